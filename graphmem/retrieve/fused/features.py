"""The fused strategy's features: one row per candidate turn, each column a named signal.

Families (each can be left out when the ranker is trained, to measure what it adds):

- a source's ``rr`` (1 / (1 + rank)), ``depth`` (1 - log(1 + rank) / log(401)) and ``score``
  (BM25 over the query's best; cosine for vectors; the summary score of a scene, an event or an
  episodic unit), all 0 when the source did not reach the turn; ``sources``: the share of
  sources that did;
- ``neighbours``: the best depth of the turns one and two places before and after it in its
  session (the reply after a question, the question before an answer), and whether the turn
  or the one before is a question;
- ``session``: how strongly the rest of the turn's session answers (the best and the mean of
  the three best depths of its other candidates, the share of its candidates found near the
  top, its number of candidates): a turn in a session about the question counts for more;
- ``salience``: the MemDecider's score, when the episodes layer wrote it;
- ``persons``: the question names the speaker, or a person the turn's text mentions; a
  speaker is named by any word of their label or any alias the conversation gives them
  ("Mel" for Melanie), and a turn mentions them by any of those names;
- ``dates``: the session's day lies in a date range the question names;
- ``position``: the session's place in time, the turn's place in its session;
- ``length``: log tokens; ``type``: when-questions x turns naming a time, how-many questions x
  turns holding a number;
- ``kind``: for a question asking for every item of a kind ("Which countries..."), the turn's
  cosine to the kind and its depth in the space's turns ranked by it (:mod:`kinds`);
- ``smalltalk``: the turn is a greeting, thanks, laughter or the like and nothing else
  (:mod:`smalltalk`): cheap lines that would otherwise win on probability per token;
- ``pair``: a short reply read with the turn it answers ("Only twice so far, it's pricey"
  after "Have you been to the new climbing gym?"): the question's cosine to the turn's own
  vector, to the pair (the turn's and the one before's unit vectors summed: a stand-in for
  the two read together), and what the turn before adds; from the vectors the client holds
  (0 for a space too large to hold them).

Per-question constants change no ranking, so a question's type enters only through such
products with the turn. A plug-in's source (:mod:`~graphmem.retrieve.fused.sources`) adds
its three columns after all of these (:func:`columns`), so ``FEATURES`` is what the shipped
ranker was trained on whatever is installed.
"""

from __future__ import annotations

import math
import re
import weakref
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

import numpy as np

from graphmem.retrieve.base import Query
from graphmem.retrieve.cues import question_spans
from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.kinds import asks_for_list
from graphmem.retrieve.fused.sources import BUILT_IN, plugin_sources, sources
from graphmem.retrieve.fused.space_index import SpaceTurns
from graphmem.retrieve.fused.space_vectors import DenseUnits

DEPTH_SCALE = math.log(401)
NEAR_TOP = 0.3  # a depth above this is a rank within the first ~60
SOURCES = tuple(s.name for s in BUILT_IN)  # graphmem's own sources, in column order
TURN_SOURCES = tuple(s.name for s in BUILT_IN if s.turn_level)
FAMILIES: dict[str, tuple[str, ...]] = {
    **{s.name: s.columns for s in BUILT_IN},
    "agreement": ("sources",),
    "neighbours": ("prev:depth", "next:depth", "prev2:depth", "next2:depth", "prev:question",
                   "self:question"),
    "session": ("session:best", "session:top3", "session:share", "session:size"),
    "salience": ("salience",),
    "persons": ("speaker_named", "person_in_text"),
    "dates": ("date_match",),
    "position": ("recency", "position", "first_in_session"),
    "length": ("log_tokens",),
    "type": ("when_x_time", "count_x_number"),
    "smalltalk": ("says_nothing",),
    "kind": ("kind:closeness", "kind:depth"),
    "pair": ("self:closeness", "pair:closeness", "pair:gain"),
}
FEATURES: tuple[str, ...] = tuple(c for cols in FAMILIES.values() for c in cols)
_COLUMN = {name: i for i, name in enumerate(FEATURES)}


def columns() -> tuple[str, ...]:
    """Every feature column: ``FEATURES``, then each plug-in source's three."""
    return FEATURES + tuple(c for s in plugin_sources() for c in s.columns)


def families() -> dict[str, tuple[str, ...]]:
    """``FAMILIES`` and a family per plug-in source."""
    return {**FAMILIES, **{s.name: s.columns for s in plugin_sources()}}


def monotone(name: str) -> int:
    """The direction known before any data of column ``name`` (0: none): ``MONOTONE``, and
    a plug-in source's ``rr`` and ``depth`` as graphmem's own."""
    known = MONOTONE.get(name)
    if known is not None:
        return known
    source, _, column = name.partition(":")
    return 1 if column in ("rr", "depth") and source in {s.name for s in sources()} else 0
# the direction known before any data: a source ranking a turn higher, more sources agreeing,
# the session's day inside the date the question names, never count against it; a turn that
# says nothing never counts for it (the trees may be held to these, ``--monotone``)
MONOTONE: dict[str, int] = {
    **{f"{source}:{c}": 1 for source in SOURCES for c in ("rr", "depth")},
    "sources": 1, "date_match": 1, "says_nothing": -1,
}
_TIME = re.compile(r"\b(\d{1,4}|yesterday|today|tomorrow|tonight|week|weekend|month|year|"
                   r"monday|tuesday|wednesday|thursday|friday|saturday|sunday|january|february|"
                   r"march|april|may|june|july|august|september|october|november|december|"
                   r"ago|last|next|since|recently)\b", re.IGNORECASE)
_NUMBER = re.compile(r"\b(\d+|one|two|three|four|five|six|seven|eight|nine|ten|twice|"
                     r"once|several|few|many)\b", re.IGNORECASE)
_WHEN = re.compile(r"^\s*(when|what (date|day|year|month|time)|how long|which (year|month|"
                   r"day))\b", re.IGNORECASE)
_WORDS = re.compile(r"[a-z]+")
_COUNT = re.compile(r"\bhow (many|much|often)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Asked:
    """What the question says of who and when, and its type."""

    persons: tuple[str, ...]  # lower case names (PERSON entities and proper nouns)
    spans: tuple[tuple[datetime, datetime], ...]
    when: bool
    count: bool
    listing: bool = False  # asks for every item of a kind: packing spreads over sessions


def analyse(query: Query, base: datetime | None = None) -> Asked:
    """Who and when the question names; a date without its year ("1/17", "last Saturday")
    is read against ``base``, the space's latest day."""
    doc = query.doc
    named = [e.text for e in doc.ents if e.label_ == "PERSON"]
    named += [t.text for t in doc if t.pos_ == "PROPN"]
    spans = question_spans(doc, base)
    return Asked(tuple(dict.fromkeys(n.lower() for n in named if len(n) > 1)), spans,
                 bool(_WHEN.search(query.text)), bool(_COUNT.search(query.text)),
                 asks_for_list(doc))


def _who(table: SpaceTurns, persons: tuple[str, ...]) -> tuple[set[str], frozenset[str]]:
    """The speakers the question's persons name (by a word of their label or an alias), and
    every name those speakers go by."""
    named = {speaker for speaker, names in table.called.items()
             if any(p in names or p == speaker.lower() for p in persons)}
    return named, frozenset(n for s in named for n in table.called[s])


def matrix(table: SpaceTurns, signals: Signals, asked: Asked,
           rows: list[int]) -> np.ndarray:
    """The feature rows (:func:`columns` order) of the candidate turns ``rows``."""
    x = np.zeros((len(rows), len(columns())), dtype=np.float32)
    if not rows:
        return x
    own = np.asarray(rows, dtype=np.int64)
    at = {row: n for n, row in enumerate(rows)}
    depth = _sources(x, table, signals, at)
    for step, name in ((-1, "prev"), (1, "next"), (-2, "prev2"), (2, "next2")):
        j = table.neighbours(own, step)
        x[:, _COLUMN[f"{name}:depth"]] = np.where(j >= 0, depth[j], 0.0)
    per = _per_turn(table)
    before = table.neighbours(own, -1)
    x[:, _COLUMN["prev:question"]] = np.where(before >= 0, per["asks"][before], 0.0)
    for name in ("self:question", "salience", "recency", "position", "first_in_session"):
        x[:, _COLUMN[name]] = per[name][own]
    turns = [table.rows[r] for r in rows]
    x[:, _COLUMN["log_tokens"]] = [math.log1p(t.tokens) / 5 for t in turns]
    x[:, _COLUMN["says_nothing"]] = [table.says_nothing(r) for r in rows]
    if asked.persons:
        named, also = _who(table, asked.persons)
        x[:, _COLUMN["speaker_named"]] = [t.speaker in named for t in turns]
        said = _said(table, rows)
        x[:, _COLUMN["person_in_text"]] = [
            any(p in lowered for p in asked.persons) or not also.isdisjoint(words)
            for lowered, words in said]
    if asked.spans:
        x[:, _COLUMN["date_match"]] = [
            t.started_at is not None and any(lo <= t.started_at.replace(tzinfo=None) < hi
                                             for lo, hi in asked.spans) for t in turns]
    if asked.when:
        x[:, _COLUMN["when_x_time"]] = [bool(_TIME.search(t.text)) for t in turns]
    if asked.count:
        x[:, _COLUMN["count_x_number"]] = [bool(_NUMBER.search(t.text)) for t in turns]
    for row, (rank, close) in signals.kind.items():
        n = at.get(row)
        if n is not None:
            x[n, _COLUMN["kind:depth"]] = 1 - math.log1p(rank) / DEPTH_SCALE
            x[n, _COLUMN["kind:closeness"]] = close
    _session_context(x, [t.session_id for t in turns], _COLUMN)
    _pairs(x, table, signals, rows, _COLUMN)
    return x


def _sources(x: np.ndarray, table: SpaceTurns, signals: Signals,
             at: dict[int, int]) -> np.ndarray:
    """Fill each source's columns and ``sources``; return every row's best depth over the
    turn-level sources (0 where none reached it), which the neighbours read."""
    depth = np.zeros(len(table.rows))
    reached = np.zeros(len(x))
    best_bm25 = max((s for _, s in signals.ranks.get("bm25", {}).values()), default=1.0) or 1.0
    column = {name: i for i, name in enumerate(columns())}
    for declared in sources():
        source = declared.name
        found = signals.ranks.get(source)
        if not found:
            continue
        hit = np.fromiter(found, dtype=np.int64, count=len(found))
        rank = np.fromiter((v[0] for v in found.values()), dtype=np.float64, count=len(found))
        score = np.fromiter((v[1] for v in found.values()), dtype=np.float64, count=len(found))
        deep = 1 - np.log1p(rank) / DEPTH_SCALE
        if declared.turn_level:
            depth[hit] = np.maximum(depth[hit], deep)
        n = np.fromiter((at.get(r, -1) for r in found), dtype=np.int64, count=len(found))
        keep = n >= 0
        n = n[keep]
        x[n, column[f"{source}:rr"]] = 1 / (1 + rank[keep])
        x[n, column[f"{source}:depth"]] = deep[keep]
        x[n, column[f"{source}:score"]] = (score[keep] / best_bm25 if source == "bm25"
                                           else score[keep])
        reached[n] += 1
    x[:, _COLUMN["sources"]] = reached / max(1, len(signals.sources))
    return depth


def _said(table: SpaceTurns, rows: list[int]) -> list[tuple[str, frozenset[str]]]:
    """Each row's text in lower case and its words, remembered with the table."""
    memo: dict[int, tuple[str, frozenset[str]]] = table.derived.setdefault("said", {})
    out = []
    for r in rows:
        got = memo.get(r)
        if got is None:
            lowered = table.rows[r].text.lower()
            got = memo[r] = (lowered, frozenset(_WORDS.findall(lowered)))
        out.append(got)
    return out


def _per_turn(table: SpaceTurns) -> dict[str, np.ndarray]:
    """The columns that depend on the turn alone, for every row, once per table."""
    got: dict[str, np.ndarray] | None = table.derived.get("features")
    if got is None:
        rows = table.rows
        newest = max((r.session_rank for r in rows), default=0) or 1
        got = {"asks": np.asarray([float("?" in r.text) for r in rows]),
               "salience": np.asarray([r.salience or 0.0 for r in rows]),
               "recency": np.asarray([r.session_rank / newest for r in rows]),
               "position": np.asarray([min(r.position, 40) / 40 for r in rows]),
               "first_in_session": np.asarray([float(r.position == 0) for r in rows])}
        got["self:question"] = got["asks"]
        table.derived["features"] = got
    return got


def unlearned(x: np.ndarray) -> np.ndarray:
    """The order no training chose: each candidate's mean depth over every source (a reached
    rank counts, a source that missed it counts 0), from a full ``FEATURES`` matrix. The
    ranker blends towards it so that a conversation unlike its training data falls back on
    what every source agrees on. graphmem's own sources only: a plug-in's source changes it
    not."""
    at = {name: i for i, name in enumerate(FEATURES)}
    return np.asarray(x[:, [at[f"{s}:depth"] for s in SOURCES]].mean(axis=1))


def _session_context(x: np.ndarray, sessions: list[str], column: dict[str, int]) -> None:
    """Fill the ``session`` family: each candidate against the other candidates of its
    session, by their best depth over the turn-level sources."""
    depth = x[:, [column[f"{s}:depth"] for s in TURN_SOURCES]].max(axis=1, initial=0.0)
    members: dict[str, list[int]] = {}
    for n, session in enumerate(sessions):
        members.setdefault(session, []).append(n)
    for group in members.values():
        top = sorted(group, key=lambda n: -depth[n])[:4]
        near = sum(1 for n in group if depth[n] > NEAR_TOP) / len(group)
        size = math.log1p(len(group)) / 5
        for n in group:
            others = [depth[m] for m in top if m != n][:3]
            x[n, column["session:best"]] = others[0] if others else 0.0
            x[n, column["session:top3"]] = sum(others) / 3
            x[n, column["session:share"]] = near
            x[n, column["session:size"]] = size


def _pairs(x: np.ndarray, table: SpaceTurns, signals: Signals, rows: list[int],
           column: dict[str, int]) -> None:
    """Fill the ``pair`` family from the turns' vectors held in the client: each candidate's
    cosine to the question, alone and summed with the turn before it (a reply read with what
    it answers), and the difference."""
    if signals.question is None or not rows:
        return
    own = np.asarray(rows, dtype=np.int64)
    before = table.neighbours(own, -1)
    has = before >= 0
    mine = turn_vectors(table, signals, own)
    theirs = turn_vectors(table, signals, np.where(has, before, own))
    if mine is None or theirs is None:
        return
    question = signals.question / (float(np.linalg.norm(signals.question)) or 1.0)
    cosine, cosine_prev = mine @ question, theirs @ question
    dot = np.einsum("ij,ij->i", mine, theirs)
    pair = (cosine + cosine_prev) / np.sqrt(np.maximum(2.0 + 2.0 * dot, 1e-6))
    pair = np.where(has, pair, cosine)
    x[:, column["self:closeness"]] = cosine
    x[:, column["pair:closeness"]] = pair
    x[:, column["pair:gain"]] = pair - cosine


def turn_units(table: SpaceTurns, signals: Signals, rows: Sequence[int] | np.ndarray
               ) -> tuple[np.ndarray, np.ndarray] | None:
    """The space's turn vectors the client holds (None when it holds none) and, for each of
    ``rows``, its turn's index among them (-1 for a turn without a vector)."""
    units = signals.held.sources.get("vector") if signals.held is not None else None
    if units is None or not units.ids:
        return None
    return units.vectors, _unit_of(table, units)[np.asarray(rows, dtype=np.int64)]


def unit_rows(vectors: np.ndarray, index: np.ndarray) -> np.ndarray:
    """``vectors[index]``, zero where the index is -1."""
    out: np.ndarray = vectors[np.maximum(index, 0)]
    out[index < 0] = 0.0
    return out


def turn_vectors(table: SpaceTurns, signals: Signals,
                 rows: Sequence[int] | np.ndarray) -> np.ndarray | None:
    """The unit vectors of the turns at ``rows`` (zero for a turn without one), when the
    client holds the space's vectors."""
    held = turn_units(table, signals, rows)
    return None if held is None else unit_rows(*held)


def _unit_of(table: SpaceTurns, units: DenseUnits) -> np.ndarray:
    """Each row's index among the client's turn vectors (-1 for a turn without one), kept
    with the table while the client holds the same vectors (a weak reference: the table
    does not keep vectors the client let go)."""
    kept = table.derived.get("units")
    if kept is not None and kept[0]() is units:
        return kept[1]  # type: ignore[no-any-return]
    at = np.full(len(table.rows), -1, dtype=np.int64)
    for i, turns in enumerate(units.turn_ids):
        row = table.index.get(turns[0]) if turns else None
        if row is not None:
            at[row] = i
    table.derived["units"] = (weakref.ref(units), at)
    return at


def candidate_rows(table: SpaceTurns, signals: Signals) -> list[int]:
    """Every turn a source reached, with the turns either side of each, in spoken order."""
    reached = signals.rows()
    around = {j for i in reached for step in (-1, 1)
              if (j := table.neighbour(i, step)) is not None}
    return sorted(reached | around)
