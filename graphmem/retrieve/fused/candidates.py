"""Candidates for the fused strategy: every layer's retriever, each mapped to the space's turns.

A *source* ranks turns: ``bm25`` (the space's own BM25, :mod:`space_index`) and ``vector``
(dense) over the raw turns; ``units`` (MMS retrieval units, dense), ``edus`` (EMem
statements), ``scenes`` (CAST scene summaries), ``events`` (ES-Mem's boundary anchors, event
windows and summary rerank) and ``episodes`` (EMA units) over the layers built on them. A
derived unit passes its rank and score to each of its source turns (a turn keeps its best).
A question about several people or things is also asked of each part (:mod:`parts`) by the
sources scored in the client, and a turn keeps its best rank over the parts. For a question
asking for every item of a kind, each turn's closeness to the kind is measured (:mod:`kinds`)
and the closest turns join the candidates.

A layer that none of the space's sessions hold is skipped. The dense sources of a space of up
to ``GRAPHMEM_CLIENT_VECTORS_MAX_TURNS`` turns are scored in the client from vectors read once
per change of the space (:mod:`space_vectors`); what is left (events, and every source of a
larger space) runs in Neo4j in two read transactions at once. Vector reads in Neo4j scan small
spaces exactly (``SpaceState.vector``), so no source's ranking depends on another tenant's data.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from graphmem.retrieve.base import RetrievalContext, SpaceState
from graphmem.retrieve.fused.kinds import question_kind
from graphmem.retrieve.fused.parts import question_parts
from graphmem.retrieve.fused.space_index import SpaceTurns
from graphmem.retrieve.fused.space_vectors import (
    DENSE_SOURCES,
    DenseUnits,
    SpaceVectors,
    space_vectors,
)
from graphmem.store import Tx
from graphmem.telemetry import stage

# each source and the layer it reads ("turns" is always there)
SOURCES: dict[str, str] = {"bm25": "turns", "vector": "turns", "units": "segments",
                           "edus": "edus", "scenes": "scenes", "events": "events",
                           "episodes": "episodes"}
OPTIONAL_LAYERS = ("segments", "edus", "scenes", "events", "episodes")
PARALLEL_READS = 2
COSTLY_FIRST = ("edus", "vector", "events", "units", "scenes", "episodes")  # measured order


@dataclass(frozen=True)
class Pools:
    """How many items each source fetches (turns, units, statements, scenes, events' turns,
    episodic units)."""

    turns: int = 100
    units: int = 30
    edus: int = 50
    scenes: int = 8
    event_turns: int = 100
    anchors: int = 10  # ES-Mem's k boundaries
    window: int = 3  # ES-Mem's w
    alpha: float = 0.7  # ES-Mem's summary weight
    episodes: int = 20
    kind: int = 20  # turns closest to the kind a list question asks for
    oversample: float = 1.5

    def scaled(self, budget: int, tokens_per_turn: int = 15) -> Pools:
        """Turn pools deep enough to fill ``budget`` (a turn costs ~15 tokens)."""
        deep = min(400, max(self.turns, budget // tokens_per_turn))
        return replace(self, turns=deep, event_turns=max(self.event_turns, deep))


@dataclass
class Signals:
    """Per source, the rank (from 0) and score of each turn it reached, by row of the table."""

    ranks: dict[str, dict[int, tuple[int, float]]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()  # the sources that ran
    held: SpaceVectors | None = None  # the space's vectors, when the client holds them
    question: np.ndarray | None = None  # the question's vector, with ``held``
    # every turn's rank and closeness to the kind a list question asks for (:mod:`kinds`)
    kind: dict[int, tuple[int, float]] = field(default_factory=dict)

    def add(self, source: str, row: int | None, rank: int, score: float) -> None:
        if row is None:
            return
        seen = self.ranks.setdefault(source, {})
        if row not in seen or seen[row][0] > rank:
            seen[row] = (rank, score)

    def rows(self) -> set[int]:
        return {row for found in self.ranks.values() for row in found}


def available(state: SpaceState) -> tuple[str, ...]:
    """The sources this space can feed: a layer counts when some session holds it."""
    return tuple(s for s, layer in SOURCES.items()
                 if layer == "turns" or state.missing.get(layer, 0) < state.sessions)


def gather(ctx: RetrievalContext, state: SpaceState, table: SpaceTurns, pools: Pools,
           sources: tuple[str, ...] | None = None, parts: tuple[str, ...] = (),
           kind: str | None = None) -> Signals:
    """Run every available source (or those named) for ``ctx.query``. The space's BM25 and
    the dense sources held in the client run also for each of the question's ``parts`` (a
    question about several people or things, :mod:`parts`), a turn keeping its best rank,
    and a list question's ``kind`` is scored against every turn (:mod:`kinds`); both need
    only the client's vectors, so a space too large to hold them is asked the question
    whole."""
    use = tuple(s for s in available(state) if sources is None or s in sources)
    signals = Signals(sources=use)
    at = table.index.get
    extra = (*parts, *((kind,) if kind else ()))
    if "bm25" in use:
        with stage("source.bm25", parts=len(parts)):
            for text in (ctx.query.text, *parts):
                scores = table.bm25(text)
                order = np.argsort(-scores, kind="stable")[: pools.turns]
                for rank, i in enumerate(int(i) for i in order if scores[i] > 0):
                    signals.add("bm25", i, rank, float(scores[i]))
    dense = [s for s in use if s in DENSE_SOURCES]
    with stage("source.vectors", sources=dense, parts=len(parts)):
        held = space_vectors(ctx.store, state, dense, ctx.caches) if dense else None
        if held is not None:
            signals.held = held
            vectors = [np.asarray(v, dtype=np.float32) for v in ctx.query.embed_with(extra)]
            signals.question = np.asarray(ctx.query.embedding, dtype=np.float32)
            for query in [signals.question, *vectors[:len(parts)]]:
                _score_held(signals, held, query, pools, at)
            if kind and "vector" in held.sources:
                _close_to_kind(signals, held.sources["vector"], vectors[-1], pools.kind, at)
    reads = sorted((s for s in use if s != "bm25" and (held is None or s not in dense)),
                   key=COSTLY_FIRST.index)
    if reads:
        with stage("source.neo4j", sources=reads):
            _add_found(signals, _read(ctx, state, pools, reads), at)
    return signals


def asked_of(doc: Any) -> tuple[tuple[str, ...], str | None]:
    """A parsed question's parts (:mod:`parts`) and the kind it asks for (:mod:`kinds`)."""
    return question_parts(doc), question_kind(doc)


def _score_held(signals: Signals, held: SpaceVectors, query: np.ndarray, pools: Pools,
                at: Callable[[str], int | None]) -> None:
    """The dense sources scored in the client, ranked as the Neo4j statements rank them."""
    depth = {"vector": pools.turns, "units": pools.units, "edus": pools.edus,
             "scenes": pools.scenes, "episodes": pools.episodes}
    for source, units in held.sources.items():
        for rank, (i, score) in enumerate(units.nearest(query, depth[source])):
            if source == "units":  # mms_units without BM25: reciprocal rank, k = 60
                score = 1.0 / (60 + rank + 1)
            for turn in units.turn_ids[i]:
                signals.add(source, at(turn), rank, score)


def _close_to_kind(signals: Signals, turns: DenseUnits, kind: np.ndarray, pool: int,
                   at: Callable[[str], int | None]) -> None:
    """Every turn's closeness to the kind a list question asks for, and its rank by it; the
    ``pool`` closest join the candidates (as source ``kind``)."""
    if not turns.ids:
        return
    norm = float(np.linalg.norm(kind)) or 1.0
    close = turns.vectors @ (kind / norm)
    for rank, i in enumerate(np.argsort(-close, kind="stable").tolist()):
        row = at(turns.turn_ids[i][0]) if turns.turn_ids[i] else None
        if row is None:
            continue
        signals.kind[row] = (rank, float(close[i]))
        if rank < pool:
            signals.add("kind", row, rank, float(close[i]))


def _read(ctx: RetrievalContext, state: SpaceState, pools: Pools,
          reads: list[str]) -> dict[str, list[dict[str, Any]]]:
    """The sources run in Neo4j, in up to two read transactions at once."""
    embedding = ctx.query.embedding
    space = state.space

    def plan(k: int) -> dict[str, Any]:
        return state.vector(k, pools.oversample) or {"exact": True, "candidates": k}

    def statement(source: str) -> tuple[str, dict[str, Any]]:
        common = {"space": space, "embedding": embedding}
        if source == "vector":
            return "retrieve/turns_vector", {**common, "k": pools.turns, **plan(pools.turns)}
        if source == "units":
            return "retrieve/mms_units", {**common, "query": "", "bm25": False,
                                          "k": pools.units, "rrf_k": 60, **plan(pools.units)}
        if source == "edus":
            return "retrieve/edus_vector", {**common, "k": pools.edus, **plan(pools.edus)}
        if source == "scenes":
            return "retrieve/scenes_vector", {**common, "k": pools.scenes,
                                              **plan(pools.scenes)}
        if source == "events":
            return "retrieve/esmem_turns", {**common, "k": pools.anchors,
                                            **plan(pools.anchors), "w": pools.window,
                                            "alpha": pools.alpha, "beta": 0.5,
                                            "limit": pools.event_turns}
        return "retrieve/episodes_vector", {**common, "k": pools.episodes,
                                            **plan(pools.episodes)}

    def work(group: list[str]) -> dict[str, list[dict[str, Any]]]:
        def run(tx: Tx) -> dict[str, list[dict[str, Any]]]:
            return {source: tx.run(name, **params)
                    for source in group for name, params in [statement(source)]}
        return ctx.store.read_tx(run, "retrieve/candidates:" + ",".join(group))

    # the scans are the cost: two read transactions at once keep both of Neo4j's cores busy
    groups = [reads[i::PARALLEL_READS] for i in range(PARALLEL_READS) if reads[i::PARALLEL_READS]]
    found: dict[str, list[dict[str, Any]]] = {}
    if len(groups) == 1:
        found = work(groups[0])
    else:
        with ThreadPoolExecutor(max_workers=len(groups)) as pool:
            for part in pool.map(work, groups):
                found.update(part)
    return found


def _add_found(signals: Signals, found: dict[str, list[dict[str, Any]]],
               at: Callable[[str], int | None]) -> None:
    for rank, row in enumerate(found.get("vector", [])):
        signals.add("vector", at(row["id"]), rank, float(row["score"]))
    for rank, row in enumerate(found.get("edus", [])):
        for turn in row["turn_ids"]:
            signals.add("edus", at(turn), rank, float(row["score"]))
    for source, key in (("units", "turns"), ("episodes", "turns")):
        for rank, row in enumerate(found.get(source, [])):
            for turn in row[key]:
                signals.add(source, at(turn["id"]), rank, float(row["score"]))
    for rank, row in enumerate(found.get("scenes", [])):
        for turn in row["turn_ids"]:
            signals.add("scenes", at(turn), rank, float(row["score"]))
    for rank, row in enumerate(found.get("events", [])):  # the event's summary score
        signals.add("events", at(row["id"]), rank, float(row["s_event"]))
