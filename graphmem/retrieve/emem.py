"""Strategies `emem` and `emem-g` (seed 001): EDU retrieval, a recall-oriented filter and, for
EMem-G, Personalized PageRank over the EDU-argument graph seeded from the question."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.ingest.edus import arguments_of
from graphmem.models import Hit
from graphmem.nlp import nlp
from graphmem.prompts import mentions as mentions_prompt
from graphmem.prompts import relevance_filter
from graphmem.providers.llm import LLMError
from graphmem.retrieve.context import format_date
from graphmem.retrieve.ppr import PPRConfig, ProjectionCache, personalized_pagerank
from graphmem.retrieve.strategies import RetrievalContext, candidate_pool, native_datetime


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


def edu_hit(row: dict[str, Any], score: float) -> Hit:
    started = native_datetime(row.get("started_at"))
    day = format_date(started)
    body = row["rendered"] if row["kind"] == "chunk" else row["text"]
    speaker = row["speaker"]
    if row["kind"] != "chunk" and not body.startswith(f"{speaker}:"):
        body = f"{speaker}: {body}"
    return Hit(id=row["id"], kind="chunk" if row["kind"] == "chunk" else "edu", score=score,
               text=f"[{day}] {body}" if day else body, source_turn_ids=list(row["turn_ids"]),
               source_ids=list(row["source_ids"]), session_id=row["session_id"],
               started_at=started, date_text=row.get("date_text"), speaker=speaker)


def question_mentions(question: str) -> list[str]:
    """Entities and noun phrases of the question, normalised like stored arguments."""
    doc = nlp()(question)
    return list(arguments_of(doc[:]))


class EMemSearch:
    def __init__(self, name: str, config: EMemConfig,
                 projections: ProjectionCache | None = None) -> None:
        self.name = name
        self.config = config
        self.projections = projections

    def _size(self, budget: int) -> int:
        c = self.config
        return c.k if c.k is not None else max(10, budget // c.tokens_per_edu)

    def search(self, ctx: RetrievalContext, question: str, space: str, budget: int) -> list[Hit]:
        c = self.config
        size = self._size(budget)
        pool = max(c.k_edus, size)
        candidates = candidate_pool(ctx, space, pool, c.oversample)
        if candidates == 0:
            return []
        vector = ctx.embedder.embed([question])[0]
        rows = ctx.store.read("retrieve/edus_vector", space=space, embedding=vector.tolist(),
                              k=pool, candidates=candidates)
        kept = self._filter(ctx, question, rows)
        if not c.graph:
            return [edu_hit(row, cosine(row["score"])) for row in kept[:size]]
        return self._graph_search(ctx, question, space, kept, size, candidates)

    def _filter(self, ctx: RetrievalContext, question: str,
                rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The recall-oriented filter: the LLM's choice when one is available (one call over
        all candidates), else the similarity floor. An unusable LLM reply falls back too."""
        if ctx.llm is not None and rows:
            try:
                reply = ctx.llm.structured(relevance_filter.TASK, relevance_filter.messages(
                    question, [row["text"] for row in rows]), relevance_filter.FilterOutput)
                keep = set(reply.keep)
                return [row for i, row in enumerate(rows) if i in keep]
            except LLMError:
                ctx.llm.record_fallback(relevance_filter.TASK)
        return [row for row in rows if cosine(row["score"]) >= self.config.min_similarity]

    def _mentions(self, ctx: RetrievalContext, question: str) -> list[str]:
        if ctx.llm is not None:
            try:
                reply = ctx.llm.structured(mentions_prompt.TASK, mentions_prompt.messages(question),
                                           mentions_prompt.MentionsOutput)
                found = [m.strip().lower() for m in reply.mentions if m.strip()]
                if found:
                    return list(dict.fromkeys(found))
            except LLMError:
                pass
            ctx.llm.record_fallback(mentions_prompt.TASK)  # failed, or named nothing
        return question_mentions(question)

    def _argument_seeds(self, ctx: RetrievalContext, question: str,
                        found: list[dict[str, Any]]) -> dict[str, float]:
        c = self.config
        chosen: list[dict[str, Any]] | None = None
        if ctx.llm is not None and found:
            try:
                reply = ctx.llm.structured(relevance_filter.TASK, relevance_filter.messages(
                    question, [f"{row['text']} (for '{row['mention']}')" for row in found]),
                    relevance_filter.FilterOutput)
                chosen = [row for i, row in enumerate(found) if i in set(reply.keep)]
            except LLMError:
                chosen = None  # the similarity floor below decides instead
                ctx.llm.record_fallback(relevance_filter.TASK)
        if chosen is None:
            chosen = [r for r in found if cosine(r["score"]) >= c.min_argument_similarity]
        found = chosen
        best: dict[str, float] = {}
        for row in found:
            sim = max(cosine(row["score"]), 0.0)
            best[row["element_id"]] = max(sim, best.get(row["element_id"], 0.0))
        return dict(sorted(best.items(), key=lambda kv: -kv[1])[:c.max_argument_seeds])

    def _graph_search(self, ctx: RetrievalContext, question: str, space: str,
                      edus: list[dict[str, Any]], size: int, candidates: int) -> list[Hit]:
        c = self.config
        projections = ctx.projections or self.projections or ProjectionCache()
        graph = projections.graph_for(ctx.store, space)
        if graph is None:
            return []
        seeds = {row["element_id"]: max(cosine(row["score"]), 0.0) for row in edus[:c.k_edus]}
        mentions = self._mentions(ctx, question)
        if mentions:
            vectors = ctx.embedder.embed(mentions)
            found = ctx.store.read(
                "retrieve/arguments_vector", space=space, k=c.k_arguments, candidates=candidates,
                mentions=[{"text": m, "embedding": v.tolist()}
                          for m, v in zip(mentions, vectors, strict=True)])
            for element_id, sim in self._argument_seeds(ctx, question, found).items():
                seeds[element_id] = seeds.get(element_id, 0.0) + sim
        weighted = [{"element_id": e, "weight": w} for e, w in seeds.items() if w > 0]
        rows = personalized_pagerank(ctx.store, graph, weighted, size, c.ppr)
        return [edu_hit(row, float(row["score"])) for row in rows]
