"""The statement that can stand in for a candidate turn when packing (strategy `graphmem`).

A turn is often several sentences of which the question needs one. The EDU layer holds each
sentence of a turn as a statement that reads on its own (the speaker named, relative dates
resolved). For every candidate turn, the turn's statement nearest the question is found;
packing may show it instead of the whole turn when it costs fewer tokens, so a budget reaches
more turns, and shows the whole turn when room is left (:func:`strategy.select`).
A statement is shown as its turn is, under the session's date header, after the speaker's name
unless it names the speaker already. A space without EDUs offers none.

Where the client holds the space's vectors (:mod:`space_vectors`), the statements' texts are
read once per space revision (``cypher/retrieve/space_statements.cypher``) and scored with numpy;
otherwise one statement per search finds them in Neo4j
(``cypher/retrieve/turn_statements.cypher``). Both score as Neo4j does, (1 + cos) / 2, ties
to the smaller id, so both choose the same statements.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import numpy as np

from graphmem.retrieve.fused.space_index import CACHED_SPACES
from graphmem.retrieve.packing import count_tokens
from graphmem.retrieve.space_cache import SpaceCache, only_appended

if TYPE_CHECKING:
    from graphmem.retrieve.base import RetrievalContext, SpaceState
    from graphmem.retrieve.fused.space_index import SpaceTurns
    from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors
    from graphmem.store import GraphStore


@dataclass(frozen=True)
class Statement:
    """One turn's statement nearest the question, as the context would show it."""

    id: str
    line: str
    score: float

    @property
    def tokens(self) -> int:
        return count_tokens(self.line)


def statement_line(speaker: str, text: str) -> str:
    """The statement as a context line: the speaker is named once, by the statement or before."""
    return text if speaker and speaker in text else f"{speaker}: {text}"


def has_statements(state: SpaceState) -> bool:
    """Whether some session of the space holds the EDU layer."""
    return state.sessions > 0 and state.missing.get("edus", 0) < state.sessions


@dataclass(frozen=True)
class SpaceStatements:
    """The statements of one space that may stand in for a turn: (id, text) by turn id, and
    the space's epoch they were read in."""

    by_turn: dict[str, list[tuple[str, str]]]
    epoch: str | None = None


def _read(store: GraphStore, space: str) -> SpaceStatements:
    by_turn: dict[str, list[tuple[str, str]]] = defaultdict(list)
    for rec in store.read_plain("retrieve/space_statements", space=space):
        if rec["text"]:
            by_turn[rec["turn_id"]].append((rec["id"], rec["text"]))
    return SpaceStatements(dict(by_turn))


def turn_statements(ctx: RetrievalContext, state: SpaceState, table: SpaceTurns,
                    rows: list[int], vectors: SpaceVectors | None = None
                    ) -> list[Statement | None]:
    """For each of ``rows`` (of ``table``), its statement nearest the question, if any;
    ``vectors``: the space's vectors when the client holds them (``Signals.held``)."""
    if not rows or not has_statements(state):
        return [None] * len(rows)
    ids = [table.rows[r].id for r in rows]
    held = vectors.sources.get("edus") if vectors is not None else None
    best = (_nearest_held(ctx, state, ids, held) if held is not None
            else _nearest_in_neo4j(ctx, state, ids))
    out: list[Statement | None] = []
    for r, turn_id in zip(rows, ids, strict=True):
        found = best.get(turn_id)
        out.append(None if found is None else Statement(
            found[0], statement_line(table.rows[r].speaker, found[1]), found[2]))
    return out


def _nearest_in_neo4j(ctx: RetrievalContext, state: SpaceState,
                      ids: list[str]) -> dict[str, tuple[str, str, float]]:
    return {rec["turn_id"]: (rec["id"], rec["text"], float(rec["score"]))
            for rec in ctx.store.read_plain(
                "retrieve/turn_statements", space=state.space, turn_ids=ids,
                embedding=[float(v) for v in ctx.query.embedding])
            if rec["text"]}


def _nearest_held(ctx: RetrievalContext, state: SpaceState, ids: list[str],
                  held: DenseUnits) -> dict[str, tuple[str, str, float]]:
    cache: SpaceCache[SpaceStatements] = ctx.caches.part("statements", CACHED_SPACES)

    def load() -> SpaceStatements:
        # an append of turns writes no statement: what the same epoch held still holds
        previous = cache.latest(ctx.store, state.space)
        if previous is not None and only_appended(previous.epoch, 0, state):
            return previous
        return replace(_read(ctx.store, state.space), epoch=state.epoch)

    known = cache.get(ctx.store, state, load)
    position = {unit: i for i, unit in enumerate(held.ids)}
    offered = [(turn, unit, text) for turn in ids for unit, text in known.by_turn.get(turn, ())
               if unit in position]
    if not offered:
        return {}
    query = np.asarray(ctx.query.embedding, dtype=np.float32)
    norm = float(np.linalg.norm(query))
    cosine = held.vectors[[position[unit] for _, unit, _ in offered]] @ (
        query / norm if norm > 0 else query)
    scores = (1.0 + cosine.astype(np.float64)) / 2.0
    best: dict[str, tuple[str, str, float]] = {}
    for (turn, unit, text), score in zip(offered, scores.tolist(), strict=True):
        have = best.get(turn)
        if have is None or score > have[2] or (score == have[2] and unit < have[0]):
            best[turn] = (unit, text, score)
    return best
