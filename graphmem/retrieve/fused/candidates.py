"""Candidates for the fused strategy: every layer's retriever, each mapped to the space's turns.

A *source* ranks turns (:mod:`sources` declares them all): ``bm25`` (the space's own BM25,
:mod:`space_index`) and ``vector`` (dense) over the raw turns; ``units`` (MMS retrieval units,
dense), ``edus`` (EMem statements), ``scenes`` (CAST scene summaries), ``events`` (ES-Mem's
boundary anchors, event windows and summary rerank) and ``episodes`` (EMA units) over the
layers built on them; and any a plug-in adds. A derived unit passes its rank and score to
each of its source turns (a turn keeps its best).
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
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graphmem.retrieve.base import RetrievalContext, SpaceState
from graphmem.retrieve.fused.kinds import question_kind
from graphmem.retrieve.fused.parts import question_parts
from graphmem.retrieve.fused.sources import (
    Pools,
    Source,
    costliest_first,
    dense_names,
    layers_read,
    source,
)
from graphmem.retrieve.fused.sources import sources as declared_sources
from graphmem.retrieve.fused.space_index import SpaceTurns
from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors, space_vectors
from graphmem.store import Tx
from graphmem.telemetry import stage

PARALLEL_READS = 2


@dataclass
class Signals:
    """Per source, the rank (from 0) and score of each turn it reached, by row of the table."""

    ranks: dict[str, dict[int, tuple[int, float]]] = field(default_factory=dict)
    sources: tuple[str, ...] = ()  # the sources that ran
    held: SpaceVectors | None = None  # the space's vectors, when the client holds them
    question: np.ndarray | None = None  # the question's vector, with ``held``
    # every turn's rank and closeness to the kind a list question asks for (:mod:`kinds`)
    kind: dict[int, tuple[int, float]] = field(default_factory=dict)
    # per source, the turns whose best rank came from a part of the question, and that part
    asked: dict[str, dict[int, str]] = field(default_factory=dict)

    def add(self, source: str, row: int | None, rank: int, score: float,
            part: str | None = None) -> None:
        if row is None:
            return
        seen = self.ranks.setdefault(source, {})
        if row not in seen or seen[row][0] > rank:
            seen[row] = (rank, score)
            if part is not None:
                self.asked.setdefault(source, {})[row] = part
            elif row in self.asked.get(source, ()):
                del self.asked[source][row]

    def rows(self) -> set[int]:
        return {row for found in self.ranks.values() for row in found}


def optional_layers() -> tuple[str, ...]:
    """The layers the sources read besides ``turns``: a space's state is asked about them."""
    return layers_read()


def available(state: SpaceState) -> tuple[str, ...]:
    """The sources this space can feed: a layer counts when some session holds it."""
    return tuple(s.name for s in declared_sources()
                 if s.layer == "turns" or state.missing.get(s.layer, 0) < state.sessions)


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
            for part, text in ((None, ctx.query.text), *((p, p) for p in parts)):
                scores = table.bm25(text)
                order = np.argsort(-scores, kind="stable")[: pools.turns]
                for rank, i in enumerate(int(i) for i in order if scores[i] > 0):
                    signals.add("bm25", i, rank, float(scores[i]), part)
    dense = [s for s in use if s in dense_names()]
    with stage("source.vectors", sources=dense, parts=len(parts)):
        held = space_vectors(ctx.store, state, dense, ctx.caches) if dense else None
        if held is not None:
            signals.held = held
            vectors = [np.asarray(v, dtype=np.float32) for v in ctx.query.embed_with(extra)]
            signals.question = np.asarray(ctx.query.embedding, dtype=np.float32)
            for part, query in zip((None, *parts), [signals.question, *vectors[:len(parts)]],
                                   strict=True):
                _score_held(signals, held, query, pools, at, part)
            if kind and "vector" in held.sources:
                _close_to_kind(signals, held.sources["vector"], vectors[-1], pools.kind, at)
    reads = costliest_first([s for s in use if source(s).statement is not None
                             and (held is None or s not in dense)])
    if reads:
        with stage("source.neo4j", sources=reads):
            _add_found(signals, _read(ctx, state, pools, reads), at)
    return signals


def asked_of(doc: Any) -> tuple[tuple[str, ...], str | None]:
    """A parsed question's parts (:mod:`parts`) and the kind it asks for (:mod:`kinds`)."""
    return question_parts(doc), question_kind(doc)


def _score_held(signals: Signals, held: SpaceVectors, query: np.ndarray, pools: Pools,
                at: Callable[[str], int | None], part: str | None = None) -> None:
    """The dense sources scored in the client, ranked as the Neo4j statements rank them."""
    for name, units in held.sources.items():
        declared = source(name)
        for rank, (i, score) in enumerate(units.nearest(query, declared.k(pools))):
            if declared.reciprocal:  # mms_units without BM25: reciprocal rank, k = 60
                score = 1.0 / (60 + rank + 1)
            for turn in units.turn_ids[i]:
                signals.add(name, at(turn), rank, score, part)


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

    def statement(declared: Source) -> tuple[str, dict[str, Any]]:
        k = declared.k(pools)
        assert declared.statement is not None
        return declared.statement, {"space": space, "embedding": embedding, "k": k,
                                    **declared.params(pools), **plan(k)}

    def work(group: list[str]) -> dict[str, list[dict[str, Any]]]:
        def run(tx: Tx) -> dict[str, list[dict[str, Any]]]:
            return {name: tx.run(statement_name, **params) for name in group
                    for statement_name, params in [statement(source(name))]}
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
    """Each source's rows, best first, passed to the turns they hold as its table says."""
    for name, rows in found.items():
        declared = source(name)
        for rank, row in enumerate(rows):
            score = float(row[declared.score])
            if declared.turns == "id":
                signals.add(name, at(row["id"]), rank, score)
            elif declared.turns == "turn_ids":
                for turn in row["turn_ids"]:
                    signals.add(name, at(turn), rank, score)
            else:
                for turn in row["turns"]:
                    signals.add(name, at(turn["id"]), rank, score)
