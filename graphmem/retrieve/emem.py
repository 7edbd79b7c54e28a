"""Strategies `emem` and `emem-g` (seed 001): EDU retrieval, a recall-oriented filter and, for
EMem-G, Personalized PageRank over the EDU-argument graph seeded from the question."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.models import Hit
from graphmem.prompts import mentions as mentions_prompt
from graphmem.prompts import relevance_filter
from graphmem.providers.embedder import query_vectors
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy
from graphmem.retrieve.hits import edu_hit
from graphmem.retrieve.ppr import PPRConfig, ProjectionCache


@dataclass(frozen=True)
class EMemConfig:
    k_edus: int = 30  # K_e: EDUs fetched from the vector index
    k: int | None = 10  # K: EDUs kept at most; None fills the budget instead
    tokens_per_edu: int = 25  # sizes the list when k is None
    min_similarity: float = 0.0  # the LLM-free filter: drop candidates below this cosine
    graph: bool = False  # EMem-G
    k_arguments: int = 10  # K_a: arguments per question mention
    max_argument_seeds: int = 30
    min_argument_similarity: float = 0.5  # measured: same recall as 0, fewer PPR seeds
    ppr: PPRConfig = field(default_factory=PPRConfig)
    oversample: float = 1.5


def cosine(index_score: float) -> float:
    """Neo4j's cosine index score is (1 + cos) / 2."""
    return 2 * float(index_score) - 1


def _named(items: list[str]) -> list[str]:
    found = list(dict.fromkeys(m.strip().lower() for m in items if m.strip()))
    if not found:
        raise ValueError("the reply names nothing")
    return found


class EMemSearch(Strategy[EMemConfig]):
    needs = ("turns", "edus")
    config_type = EMemConfig

    def _size(self, budget: int) -> int:
        c = self.config
        return c.k if c.k is not None else max(10, budget // c.tokens_per_edu)

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        size = self._size(budget)
        pool = max(c.k_edus, size)
        plan = state.vector(pool, c.oversample)
        if plan is None:
            return []
        rows = ctx.store.read("retrieve/edus_vector", space=state.space,
                              embedding=ctx.query.embedding, k=pool, **plan)
        kept = self._filter(ctx, rows)
        if not c.graph:
            return [edu_hit(row, cosine(row["score"])) for row in kept[:size]]
        return self._graph_search(ctx, state, kept, size, plan)

    def _filter(self, ctx: RetrievalContext, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The recall-oriented filter: the LLM's choice when one is available (one call over
        all candidates), else (or when its reply is unusable) the similarity floor."""
        if not rows:
            return rows
        return relevance_filter.STEP.run(
            ctx.llm, lambda: relevance_filter.messages(ctx.query.text,
                                                       [row["text"] for row in rows]),
            accept=lambda reply: [row for i, row in enumerate(rows) if i in set(reply.keep)],
            fallback=lambda: [row for row in rows
                              if cosine(row["score"]) >= self.config.min_similarity])

    def _mentions(self, ctx: RetrievalContext) -> list[str]:
        """The LLM's mentions of the question; the parser's when it fails or names none."""
        return mentions_prompt.STEP.run(
            ctx.llm, lambda: mentions_prompt.messages(ctx.query.text),
            accept=lambda reply: _named(reply.mentions), fallback=lambda: ctx.query.mentions)

    def _argument_seeds(self, ctx: RetrievalContext,
                        found: list[dict[str, Any]]) -> dict[str, float]:
        c = self.config
        if found:
            found = relevance_filter.STEP.run(
                ctx.llm, lambda: relevance_filter.messages(
                    ctx.query.text, [f"{row['text']} (for '{row['mention']}')" for row in found]),
                accept=lambda reply: [row for i, row in enumerate(found)
                                      if i in set(reply.keep)],
                fallback=lambda: [r for r in found
                                  if cosine(r["score"]) >= c.min_argument_similarity])
        best: dict[str, float] = {}
        for row in found:
            sim = max(cosine(row["score"]), 0.0)
            best[row["element_id"]] = max(sim, best.get(row["element_id"], 0.0))
        return dict(sorted(best.items(), key=lambda kv: -kv[1])[:c.max_argument_seeds])

    def _graph_search(self, ctx: RetrievalContext, state: SpaceState,
                      edus: list[dict[str, Any]], size: int,
                      plan: dict[str, Any]) -> list[Hit]:
        c = self.config
        seeds = {row["element_id"]: max(cosine(row["score"]), 0.0) for row in edus[:c.k_edus]}
        mentions = self._mentions(ctx)
        named = {row["element_id"]: row.get("text") for row in edus}  # for an explanation
        if mentions:
            vectors = query_vectors(ctx.embedder, mentions)
            found = ctx.store.read(
                "retrieve/arguments_vector", space=state.space, k=c.k_arguments, **plan,
                mentions=[{"text": m, "embedding": v.tolist()}
                          for m, v in zip(mentions, vectors, strict=True)])
            named.update({r["element_id"]: f"argument {r.get('text')!r}" for r in found})
            for element_id, sim in self._argument_seeds(ctx, found).items():
                seeds[element_id] = seeds.get(element_id, 0.0) + sim
        weighted = [{"element_id": e, "weight": w} for e, w in seeds.items() if w > 0]
        projections = ctx.projections or ProjectionCache()
        rows = projections.pagerank(ctx.store, state.space, weighted, size, c.ppr)
        if ctx.explaining is not None:
            ctx.explaining.how = ("emem-g: the statements closest to the question and the "
                                  "arguments closest to its mentions seed a Personalized "
                                  "PageRank over statements and arguments; statements are "
                                  "ranked by their PageRank score, packed in that order")
            ctx.explaining.detail = {"mentions": mentions, "seeds": [
                {"text": named.get(e, "an argument"), "weight": round(w, 4)}
                for e, w in sorted(seeds.items(), key=lambda kv: -kv[1])[:10]]}
            ctx.explaining.keep(rows, pagerank="score")
        return [edu_hit(row, float(row["score"])) for row in rows]
