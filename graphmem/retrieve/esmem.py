"""Strategy ``esmem`` (seed 000): boundaries as anchors, a window of events around each, a
rerank of those events by their summaries, and the events' raw turns as context."""

from __future__ import annotations

from dataclasses import dataclass

from graphmem.models import Hit
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy, hits_for
from graphmem.retrieve.hits import event_hit, turn_hit


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


class ESMemSearch(Strategy[ESMemConfig]):
    needs = ("turns", "events")
    config_type = ESMemConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        plan = state.vector(c.k, c.oversample)
        if plan is None:
            return []
        common = {"space": state.space, "embedding": ctx.query.embedding, "k": c.k, **plan,
                  "w": c.w, "alpha": c.alpha}
        if ctx.explaining is not None:
            ctx.explaining.how = (
                f"esmem: the {c.k} event boundaries closest to the question open their events, "
                f"and the {c.w} events either side join them; each event scores {c.alpha} x "
                "its summary's cosine + the rest x its best boundary's (context), packed in "
                "that order" + (f"; its turns score {c.beta} x their own cosine + the rest x "
                                "their event's" if c.turns else ""))
            ctx.explaining.detail = {"anchors": c.k, "window": c.w, "alpha": c.alpha}
        if c.turns:
            rows = ctx.store.read("retrieve/esmem_turns", **common, beta=c.beta,
                                  limit=hits_for(budget, c.tokens_per_turn, 20))
            if ctx.explaining is not None:
                ctx.explaining.keep(rows, event="s_event", turn="s_turn")
            return [turn_hit(row) for row in rows]
        limit = c.top_k if c.top_k is not None else hits_for(budget, c.tokens_per_event, 10)
        rows = ctx.store.read("retrieve/esmem", **common, limit=limit)
        if ctx.explaining is not None:
            ctx.explaining.keep(rows, context="s_ctx", summary="s_sum", summary_text="summary")
        return [event_hit(row) for row in rows if row["turns"]]
