"""Strategies over raw turns: Lucene BM25, dense vectors, or both fused by reciprocal rank."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.models import Hit
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy, hits_for
from graphmem.retrieve.hits import turn_hit


@dataclass(frozen=True)
class TurnSearchConfig:
    bm25: bool = True
    vector: bool = True
    rrf_k: int = 60
    tokens_per_hit: int = 12  # sizes the hit list from the budget: budget / tokens_per_hit
    min_hits: int = 20
    max_hits: int = 400
    oversample: float = 1.5  # vector-index neighbours fetched per hit, scaled by tenant share

    def __post_init__(self) -> None:
        if not (self.bm25 or self.vector):
            raise ValueError("a turn search needs BM25, vectors or both")


class TurnSearch(Strategy[TurnSearchConfig]):
    config_type = TurnSearchConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        k = hits_for(budget, c.tokens_per_hit, c.min_hits, c.max_hits)
        plan = state.vector(k, c.oversample)
        if plan is None:
            return []
        query, space = ctx.query, state.space
        if ctx.explaining is not None:
            ranked = (f"reciprocal-rank fusion (k={c.rrf_k}) of each turn's Lucene BM25 rank "
                      "and cosine rank" if c.bm25 and c.vector else
                      "Lucene BM25" if c.bm25 else "cosine to the question")
            ctx.explaining.how = (f"{self.name}: raw turns ranked by {ranked}; packing takes "
                                  "them in that order, each that still fits the budget")
        if c.bm25 and c.vector:
            rows = ctx.store.read("retrieve/turns_rrf", space=space, query=query.terms,
                                  embedding=query.embedding, k=k, rrf_k=c.rrf_k, **plan)
        elif c.bm25:
            if not query.terms:
                return []
            rows = ctx.store.read("retrieve/turns_fulltext", space=space, query=query.terms, k=k)
        else:
            rows = ctx.store.read("retrieve/turns_vector", space=space,
                                  embedding=query.embedding, k=k, **plan)
        return [turn_hit(row) for row in rows]
