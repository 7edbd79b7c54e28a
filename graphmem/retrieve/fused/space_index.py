"""One space's turns held in the client: the table the fused strategy ranks and renders from,
and a BM25 index whose statistics are the space's own.

Lucene's BM25 in Neo4j takes its document frequencies and mean length from the whole index,
so a space's ranking moves when another tenant adds data (LoCoMo recall of `turns` moved by
up to 6 points with LongMemEval in the same database). Here each space has its own index
(:mod:`bm25`: Lucene's formula with k1 = 1.2, b = 0.75, as bm25s scores it; bm25s's English
stop words and Porter stems like the `english` analyzer), built on first use from one read of
the space and again when the space's revision changes (any write to the space,
:mod:`space_cache`); a rebuild tokenizes only the turns whose text is new (stemming is most of
an index's cost), and after live messages alone the table and its index only grow by the
appended turns (:func:`with_appended`). Its scores depend on that space alone.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import datetime
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.retrieve.fused.bm25 import Bm25
from graphmem.retrieve.fused.smalltalk import says_nothing, words_of
from graphmem.retrieve.fused.stems import stem_file
from graphmem.retrieve.packing import count_tokens
from graphmem.retrieve.space_cache import SpaceCache, SpaceCaches, only_appended
from graphmem.retrieve.times import times_note
from graphmem.store import present
from graphmem.text import native_datetime, speaker_aliases, turn_text

if TYPE_CHECKING:
    from graphmem.retrieve.base import SpaceState
    from graphmem.store import GraphStore

CACHED_SPACES = 64
STEMS_KEPT = 200_000  # words and their stems, ~30 MB at most


@dataclass(frozen=True)
class TurnRow:
    id: str
    speaker: str
    text: str
    image_caption: str | None
    source_id: str
    position: int  # in its session
    salience: float | None
    session_id: str
    session_rank: int  # sessions of the space in time order, from 0
    started_at: datetime | None
    date_text: str | None

    @cached_property
    def line(self) -> str:
        """How the turn reads in a context under its session's date header."""
        return f"{self.speaker}: {turn_text(self.text, self.image_caption)}"

    @cached_property
    def tokens(self) -> int:
        """The line's tokens (what the ranker's length feature reads)."""
        return count_tokens(self.line)

    @cached_property
    def times(self) -> str:
        """What its relative times meant (:func:`~graphmem.retrieve.times.times_note`)."""
        return times_note(self.text, self.started_at)

    def shown(self, times: bool = True) -> str:
        """The line as a context shows it: with what its relative times meant."""
        return self.line + self.times if times else self.line

    def cost(self, times: bool = True) -> int:
        """The tokens :meth:`shown` takes."""
        return self.tokens + (count_tokens(self.times) if times and self.times else 0)


@dataclass
class SpaceTurns:
    """The turns of one space in spoken order (``rows``), by id (``index``), with neighbours
    in the session and a BM25 index over what was said."""

    rows: list[TurnRow]
    carried: dict[tuple[str, str], list[str]] = field(default_factory=dict, repr=False)
    newer: dict[int, list[int]] = field(default_factory=dict)  # row -> rows that changed it
    # each row's place in time (conversation id, session index, position), when read from a
    # space: where appended turns go (:func:`with_appended`)
    keys: list[tuple[str, int, int]] = field(default_factory=list, repr=False)
    epoch: str | None = None  # the space's epoch and appended turns it was read at
    appended: int = 0
    # the older table's built index, its terms and where its rows went in this one: what
    # this table's index grows from (:func:`with_appended`)
    grown: tuple[Bm25, list[list[str]], np.ndarray] | None = field(default=None, repr=False)
    index: dict[str, int] = field(init=False)
    sessions: int = field(init=False)
    tokens: list[list[str]] | None = field(init=False, default=None, repr=False)
    _nothing: dict[int, bool] = field(init=False, default_factory=dict, repr=False)
    # what other modules compute once per table (per revision of the space), by their name
    derived: dict[str, Any] = field(init=False, default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self.index = {row.id: i for i, row in enumerate(self.rows)}
        self.sessions = len({row.session_id for row in self.rows})

    @cached_property
    def session_of(self) -> np.ndarray:
        """Each row's session as a number (rows of one session share it)."""
        order: dict[str, int] = {}
        return np.asarray([order.setdefault(r.session_id, len(order)) for r in self.rows],
                          dtype=np.int64)

    def neighbours(self, rows: np.ndarray, step: int) -> np.ndarray:
        """:meth:`neighbour` of many rows at once, -1 where there is none."""
        j = rows + step
        inside = (j >= 0) & (j < len(self.rows))
        same = np.zeros(len(rows), dtype=bool)
        same[inside] = self.session_of[j[inside]] == self.session_of[rows[inside]]
        return np.where(same, j, -1)

    def neighbour(self, i: int, step: int) -> int | None:
        """The turn ``step`` places from turn ``i`` within its session, if any."""
        j = i + step
        if 0 <= j < len(self.rows) and self.rows[j].session_id == self.rows[i].session_id:
            return j
        return None

    @cached_property
    def names(self) -> frozenset[str]:
        """The words of the space's speaker names, lower case (a greeting may address one)."""
        return frozenset(w for r in {row.speaker for row in self.rows}
                         for w in words_of(r))

    @cached_property
    def latest(self) -> datetime | None:
        """The space's latest session day: what a question's "last Saturday" counts from."""
        days = [r.started_at.replace(tzinfo=None) for r in self.rows if r.started_at]
        return max(days, default=None)

    @cached_property
    def called(self) -> dict[str, frozenset[str]]:
        """Every name each speaker goes by, lower case: the words of their label and the
        aliases the space's own turns give them (:func:`graphmem.text.speaker_aliases`)."""
        aliases = speaker_aliases((r.speaker, r.text) for r in self.rows)
        return {speaker: frozenset(words_of(speaker)) | frozenset(aliases.get(speaker, ()))
                for speaker in {r.speaker for r in self.rows}}

    def says_nothing(self, i: int) -> bool:
        """Whether turn ``i`` is small talk only (:mod:`smalltalk`), remembered."""
        if i not in self._nothing:
            row = self.rows[i]
            self._nothing[i] = says_nothing(turn_text(row.text, row.image_caption), self.names)
        return self._nothing[i]

    @cached_property
    def _bm25(self) -> Bm25:
        texts = [turn_text(r.text, r.image_caption) for r in self.rows]
        tokens: list[list[str] | None] = [
            self.carried.get((row.id, text)) for row, text in zip(self.rows, texts, strict=True)]
        if self.grown is not None:  # the older table's index and terms, in their new places
            index, old_tokens, moved = self.grown
            for old, place in enumerate(moved.tolist()):
                tokens[place] = old_tokens[old]
        new = [i for i, t in enumerate(tokens) if t is None]
        for i, words in zip(new, tokenize([texts[i] for i in new], ids=False), strict=True):
            tokens[i] = list(words)
        self.tokens = [t or [] for t in tokens]
        self.carried = {}
        if self.grown is None:
            return Bm25.of(self.tokens)
        index, _, moved = self.grown
        self.grown = None
        return index.placed(moved, len(self.rows), [(i, self.tokens[i]) for i in new])

    def token_memo(self) -> dict[tuple[str, str], list[str]]:
        """Each turn's BM25 terms by (id, text), once its index was built: what a rebuild of
        the space after a change keeps."""
        if self.tokens is None:
            return {}
        texts = (turn_text(r.text, r.image_caption) for r in self.rows)
        return {(row.id, text): words
                for row, text, words in zip(self.rows, texts, self.tokens, strict=True)}

    def bm25(self, question: str) -> np.ndarray:
        """BM25 score of every turn (row order) for ``question``; zeros when it has no terms."""
        if not self.rows:
            return np.zeros(0, dtype=np.float32)
        return self._bm25.scores(tokenize([question], ids=False)[0])


def _stem(words: list[str]) -> list[str]:
    return [_stem_word(w) for w in words]


@lru_cache(maxsize=STEMS_KEPT)
def _stem_word(word: str) -> str:
    """Porter's stem of one word, remembered: spaces share most of their vocabulary, and
    stemming was most of the cost of a space's first search (7,000 words: ~260 ms); the stems
    of words seen before come from disk (:mod:`graphmem.retrieve.fused.stems`)."""
    return stem_file().stem(word)


def tokenize(texts: list[str], ids: bool = True) -> Any:
    """bm25s tokens: Lucene's English stop words left out, Porter stems."""
    import bm25s

    return bm25s.tokenize(texts, stopwords="en", stemmer=_stem, return_ids=ids,
                          show_progress=False)


def read_space_turns(store: GraphStore, space: str,
                     previous: SpaceTurns | None = None) -> SpaceTurns:
    """The space's table; the terms of turns ``previous`` (an older table) held are kept."""
    return turn_table(turn_rows(store.read_plain("retrieve/space_turns", space=space)),
                      store.read("retrieve/space_supersessions", space=space), previous)


def read_appended(store: GraphStore, space: str, previous: SpaceTurns) -> SpaceTurns | None:
    """``previous`` with the turns appended to the space since it was read, or None when the
    space changed otherwise since (a new epoch: the table must be read whole)."""
    found = store.read_plain("retrieve/appended_turns", space=space, epoch=previous.epoch,
                             **{"from": previous.appended})
    if not found:
        return None
    table = with_appended(previous, turn_rows(found[0]["sessions"]))
    table.epoch, table.appended = previous.epoch, found[0]["appended"]
    return table


TURN_FIELDS = ("id", "speaker", "text", "image_caption", "source_id", "position", "salience")


def turn_rows(sessions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``retrieve/space_turns``'s sessions (each with its turns as lists) as one row per turn,
    in the same order."""
    return [{**dict(zip(TURN_FIELDS, turn, strict=True)), "session_id": s["session_id"],
             "session_index": s["session_index"], "conversation_id": s["conversation_id"],
             "started_at": s["started_at"], "date_text": s["date_text"]}
            for s in sessions for turn in s["turns"]]


NEEDED = ("id", "speaker", "text", "source_id", "session_id")  # null: deleted mid-read


def turn_table(rows: list[dict[str, Any]], changed: list[dict[str, Any]],
               previous: SpaceTurns | None = None) -> SpaceTurns:
    """The table of ``rows`` (``retrieve/space_turns``'s, in time order) and their
    supersessions. A turn deleted while it was read is left out: the forget that deleted it
    gave the space a new revision, so the next search reads the table again."""
    rows = present(rows, NEEDED)
    order: dict[str, int] = {}
    for row in rows:  # rows come in time order: conversation, session index, position
        order.setdefault(row["session_id"], len(order))
    table = SpaceTurns([_turn_row(row, order[row["session_id"]]) for row in rows],
                       carried=previous.token_memo() if previous is not None else {},
                       keys=[_key(row) for row in rows])
    at = table.index
    table.newer = {at[row["old"]]: sorted(at[n] for n in row["newer"] if n in at)
                   for row in changed if row["old"] in at}
    return table


def _turn_row(row: dict[str, Any], rank: int) -> TurnRow:
    return TurnRow(
        id=row["id"], speaker=row["speaker"], text=row["text"],
        image_caption=row.get("image_caption"), source_id=row["source_id"],
        position=int(row["position"] or 0),
        salience=None if row.get("salience") is None else float(row["salience"]),
        session_id=row["session_id"], session_rank=rank,
        started_at=native_datetime(row.get("started_at")), date_text=row.get("date_text"))


def _key(row: dict[str, Any]) -> tuple[str, int, int]:
    return (row["conversation_id"] or "", int(row["session_index"] or 0),
            int(row["position"] or 0))


def with_appended(previous: SpaceTurns, rows: list[dict[str, Any]]) -> SpaceTurns:
    """``previous`` (a table read whole, or built this way) with ``rows`` (turns appended to
    the space since, as :func:`turn_rows` gives them) in their places in time; a turn it holds
    already is kept as it is (only appends happened since it was read, so it is unchanged).
    Its supersessions and BM25 terms are carried over."""
    fresh = sorted((row for row in present(rows, NEEDED) if row["id"] not in previous.index),
                   key=_key)
    if not fresh:
        return previous
    placed = [*zip(previous.keys, previous.rows, strict=True),
              *((_key(row), _turn_row(row, 0)) for row in fresh)]
    if previous.keys and _key(fresh[0]) < previous.keys[-1]:
        placed.sort(key=lambda pair: pair[0])  # stable: a session's turns keep their order
    order: dict[str, int] = {}
    for _, row in placed:
        order.setdefault(row.session_id, len(order))
    built = previous.__dict__.get("_bm25")  # the older table's index, if a search built it
    table = SpaceTurns(
        [row if row.session_rank == order[row.session_id]
         else replace(row, session_rank=order[row.session_id]) for _, row in placed],
        carried={} if built is not None else previous.token_memo(),
        keys=[key for key, _ in placed])
    named = [previous.rows[i].id for i in range(len(previous.rows))]
    at = table.index
    if built is not None and previous.tokens is not None:
        table.grown = (built, previous.tokens,
                       np.asarray([at[name] for name in named], dtype=np.int64))
    table.newer = {at[named[old]]: sorted(at[named[n]] for n in newer)
                   for old, newer in previous.newer.items()}
    return table


def space_turns(store: GraphStore, state: SpaceState, caches: SpaceCaches) -> SpaceTurns:
    """The table of ``state.space``, read when the space changed since the last search: only
    the appended turns when nothing else changed since the latest table (same epoch), else
    whole."""
    cache: SpaceCache[SpaceTurns] = caches.part("turns", CACHED_SPACES)

    def load() -> SpaceTurns:
        previous = cache.latest(store, state.space)
        if previous is not None and only_appended(previous.epoch, previous.appended, state):
            table = read_appended(store, state.space, previous)
            if table is not None:
                return table
        table = read_space_turns(store, state.space, previous)
        table.epoch, table.appended = state.epoch, state.appended
        return table

    return cache.get(store, state, load)
