"""Retrieval strategies: small configs plus named recipes.

A strategy turns a question into ranked :class:`Hit` objects for one space. Packing the hits
into a token budget is done afterwards, the same way for every strategy
(:mod:`graphmem.retrieve.context`).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any, Protocol

from graphmem.errors import UnknownStrategyError
from graphmem.models import Hit
from graphmem.providers.embedder import Embedder
from graphmem.retrieve.context import render_turn
from graphmem.store import GraphStore

if TYPE_CHECKING:
    from graphmem.providers.llm import LLM
    from graphmem.retrieve.ppr import ProjectionCache

_WORD = re.compile(r"\w+")
MAX_QUERY_TERMS = 256
MAX_VECTOR_CANDIDATES = 20_000


@dataclass(frozen=True)
class RetrievalContext:
    """What a strategy may use."""

    store: GraphStore
    embedder: Embedder
    projections: ProjectionCache | None = None
    llm: LLM | None = None


class Strategy(Protocol):
    name: str

    def search(self, ctx: RetrievalContext, question: str, space: str, budget: int) -> list[Hit]:
        """Ranked hits for ``question`` from ``space`` only, enough to fill ``budget`` tokens."""
        ...


def lucene_terms(question: str) -> str:
    """The question as plain Lucene terms: no operators, quotes or wildcards survive."""
    return " ".join(_WORD.findall(question.lower())[:MAX_QUERY_TERMS])


def native_datetime(value: Any) -> datetime | None:
    """A datetime from what the driver returns (neo4j.time types or None)."""
    native = value.to_native() if value is not None and hasattr(value, "to_native") else value
    return native if isinstance(native, datetime) else None


def candidate_pool(ctx: RetrievalContext, space: str, k: int, oversample: float) -> int:
    """How many vector-index neighbours to fetch so that ``k`` remain after keeping only the
    space's own nodes (0 when the space is empty), sized by the space's share of all turns."""
    counts = ctx.store.read("retrieve/count_turns", space=space)[0]
    if counts["in_space"] == 0:
        return 0
    share = counts["in_database"] / counts["in_space"]
    return int(min(MAX_VECTOR_CANDIDATES, max(k, math.ceil(k * share * oversample))))


def turn_hit(row: dict[str, Any]) -> Hit:
    started = native_datetime(row.get("started_at"))
    return Hit(
        id=row["id"], kind="turn", score=float(row["score"]),
        text=render_turn(row["speaker"], row["text"], started, row.get("image_caption")),
        source_turn_ids=[row["id"]], source_ids=[row["source_id"]],
        session_id=row["session_id"], started_at=started, date_text=row.get("date_text"),
        speaker=row["speaker"],
    )


@dataclass(frozen=True)
class TurnSearchConfig:
    """Search over raw turns: BM25, dense, or both fused by reciprocal rank (in Cypher)."""

    bm25: bool = True
    vector: bool = True
    rrf_k: int = 60
    tokens_per_hit: int = 12  # sizes the hit list from the budget: budget / tokens_per_hit
    min_hits: int = 20
    max_hits: int = 400
    oversample: float = 1.5  # vector-index neighbours fetched per hit, scaled by tenant share


class TurnSearch:
    def __init__(self, name: str, config: TurnSearchConfig) -> None:
        if not (config.bm25 or config.vector):
            raise ValueError("a turn search needs BM25, vectors or both")
        self.name = name
        self.config = config

    def hits_for(self, budget: int) -> int:
        c = self.config
        return max(c.min_hits, min(c.max_hits, budget // c.tokens_per_hit))

    def search(self, ctx: RetrievalContext, question: str, space: str, budget: int) -> list[Hit]:
        c = self.config
        k = self.hits_for(budget)
        candidates = candidate_pool(ctx, space, k, c.oversample)
        if candidates == 0:
            return []
        query = lucene_terms(question)
        if c.bm25 and c.vector:
            embedding = ctx.embedder.embed([question])[0].tolist()
            rows = ctx.store.read("retrieve/turns_rrf", space=space, query=query,
                                  embedding=embedding, k=k, candidates=candidates,
                                  rrf_k=c.rrf_k)
        elif c.bm25:
            if not query:
                return []
            rows = ctx.store.read("retrieve/turns_fulltext", space=space, query=query, k=k)
        else:
            embedding = ctx.embedder.embed([question])[0].tolist()
            rows = ctx.store.read("retrieve/turns_vector", space=space, embedding=embedding,
                                  k=k, candidates=candidates)
        return [turn_hit(row) for row in rows]


def _emem(name: str, **config: Any) -> Strategy:
    from graphmem.retrieve.emem import EMemConfig, EMemSearch

    return EMemSearch(name, EMemConfig(**config))


def _esmem(name: str, **config: Any) -> Strategy:
    from graphmem.retrieve.esmem import ESMemConfig, ESMemSearch

    return ESMemSearch(name, ESMemConfig(**config))


RECIPES: dict[str, Callable[[], Strategy]] = {
    "turns": lambda: TurnSearch("turns", TurnSearchConfig()),
    "turns-bm25": lambda: TurnSearch("turns-bm25", TurnSearchConfig(vector=False)),
    "turns-vector": lambda: TurnSearch("turns-vector", TurnSearchConfig(bm25=False)),
    "emem": lambda: _emem("emem"),
    "emem-g": lambda: _emem("emem-g", graph=True),
    # ours: the same statements, but as many as the budget holds instead of at most ten
    "emem-fill": lambda: _emem("emem-fill", k=None),
    "emem-g-fill": lambda: _emem("emem-g-fill", graph=True, k=None),
    "esmem": lambda: _esmem("esmem"),
    # ours: as many ranked events as the budget holds instead of the paper's top 10
    "esmem-fill": lambda: _esmem("esmem-fill", top_k=None),
    # ours: the same coarse stage, then the activated events' turns ranked one by one
    "esmem-turns": lambda: _esmem("esmem-turns", turns=True),
}


def strategy_names() -> list[str]:
    return sorted(RECIPES)


def get_strategy(name: str, **overrides: Any) -> Strategy:
    """The named recipe; keyword overrides change fields of its config."""
    try:
        strategy = RECIPES[name]()
    except KeyError:
        raise UnknownStrategyError(
            f"unknown strategy {name!r}; choose from {', '.join(strategy_names())}"
        ) from None
    if overrides:
        config = getattr(strategy, "config", None)
        if config is None:
            raise UnknownStrategyError(f"strategy {name!r} takes no options")
        strategy = type(strategy)(name, replace(config, **overrides))  # type: ignore[call-arg]
    return strategy
