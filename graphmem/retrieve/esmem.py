"""Strategy ``esmem`` (seed 000): boundaries as anchors, a window of events around each, a
rerank of those events by their summaries, and the events' raw turns as context."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphmem.models import Hit
from graphmem.retrieve.context import render_turn
from graphmem.retrieve.strategies import (
    RetrievalContext,
    candidate_pool,
    native_datetime,
    turn_hit,
)


@dataclass(frozen=True)
class ESMemConfig:
    k: int = 10  # anchors: boundaries taken from the vector index
    w: int = 3  # events either side of an anchor along the conversation's event chain
    alpha: float = 0.7  # weight of the summary similarity against the anchor's
    top_k: int | None = 10  # events returned; None: as many as the budget may hold
    tokens_per_event: int = 60  # sizes the list when top_k is None
    oversample: float = 1.5
    turns: bool = False  # ours: rank the activated events' turns, not whole events
    beta: float = 0.5  # with turns: weight of a turn's own similarity against its event's
    tokens_per_turn: int = 12

    def __post_init__(self) -> None:
        if self.k < 1 or self.w < 0 or not 0.0 <= self.alpha <= 1.0 \
                or not 0.0 <= self.beta <= 1.0:
            raise ValueError("esmem needs k >= 1, w >= 0 and alpha, beta in [0, 1]")


def render_event(row: dict[str, Any]) -> str:
    """The event's turns, one per line; the session's day heads the first."""
    started = native_datetime(row.get("started_at"))
    return "\n".join(render_turn(t["speaker"], t["text"], started if i == 0 else None,
                                 t.get("image_caption")) for i, t in enumerate(row["turns"]))


def event_hit(row: dict[str, Any]) -> Hit:
    started = native_datetime(row.get("started_at"))
    return Hit(id=row["id"], kind="event", score=float(row["score"]), text=render_event(row),
               source_turn_ids=[t["id"] for t in row["turns"]],
               source_ids=[t["source_id"] for t in row["turns"]], session_id=row["session_id"],
               started_at=started, date_text=row.get("date_text"),
               speaker=row["turns"][0]["speaker"] if row["turns"] else None)


class ESMemSearch:
    def __init__(self, name: str, config: ESMemConfig) -> None:
        self.name = name
        self.config = config

    def search(self, ctx: RetrievalContext, question: str, space: str, budget: int) -> list[Hit]:
        c = self.config
        candidates = candidate_pool(ctx, space, c.k, c.oversample)
        if candidates == 0:
            return []
        embedding = ctx.embedder.embed([question])[0].tolist()
        if c.turns:
            rows = ctx.store.read("retrieve/esmem_turns", space=space, embedding=embedding,
                                  k=c.k, candidates=candidates, w=c.w, alpha=c.alpha, beta=c.beta,
                                  limit=max(20, budget // c.tokens_per_turn))
            return [turn_hit(row) for row in rows]
        limit = c.top_k if c.top_k is not None else max(10, budget // c.tokens_per_event)
        rows = ctx.store.read("retrieve/esmem", space=space, embedding=embedding, k=c.k,
                              candidates=candidates, w=c.w, alpha=c.alpha, limit=limit)
        return [event_hit(row) for row in rows if row["turns"]]
