"""Strategies `cast`, `cast-fill` and `cast-scenes` (seed 004): semantic and episodic memory,
fused.

- Semantic: the turns behind EMem-G's Personalized PageRank over the EDU-argument graph (our
  stand-in for the paper's HippoRAG 2 index: a turn ranks where its best statement ranks),
  with dense retrieval over turns as the fall-back when the graph gives nothing.
- Episodic: the ``k_scenes`` scenes whose summary embedding is nearest the question, filtered
  by the persons, dates and places it names (:mod:`graphmem.retrieve.cues`).
- Fusion (`cast`, `cast-fill`): semantic hits that lie in a retrieved scene move to the
  front, keeping their semantic order; nothing is added. `cast` keeps the paper's ``k`` = 8
  semantic hits; `cast-fill` asks for enough to fill the budget.
- Ours (`cast-scenes`): the retrieved scenes add candidates. Their turns (scene by scene, in
  time order) and the semantic list are fused by reciprocal rank, so a scene's turns the
  graph missed can enter the context. A question that names characters searches the scenes
  of their profiles (every scene of theirs, over all time) instead of the nearest scenes of
  the space (`profiles`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from graphmem.models import Hit
from graphmem.retrieve import cues
from graphmem.retrieve.base import RetrievalContext, SpaceState, Strategy, hits_for
from graphmem.retrieve.emem import EMemConfig, EMemSearch
from graphmem.retrieve.hits import turn_hit
from graphmem.retrieve.ppr import PPRConfig
from graphmem.text import Cast, character_key, native_datetime


@dataclass(frozen=True)
class CastConfig:
    k: int | None = 8  # semantic hits kept (the paper's best was 8-9); None fills the budget
    k_scenes: int = 8  # scenes retrieved after the filters
    scene_pool: int = 40  # nearest scenes fetched before the filters
    add_scenes: bool = False  # ours: the scenes' turns join the candidates (RRF)
    profiles: bool = False  # ours: a question naming characters searches their profiles' scenes
    tokens_per_turn: int = 20  # sizes the semantic list from the budget when k is None
    max_turns: int = 200
    rrf_k: int = 60
    ppr: PPRConfig = field(default_factory=PPRConfig)
    oversample: float = 1.5


@dataclass(frozen=True)
class Retrieved:
    """One scene the episodic search kept."""

    id: str
    participants: tuple[str, ...]  # character keys
    place: str | None
    span: tuple[Any, Any]
    turn_ids: tuple[str, ...]


def promote(semantic: list[str], scenes: list[Retrieved]) -> list[str]:
    """The paper's fusion: ids that a retrieved scene holds first, then the others, each group
    in semantic order; no id is added."""
    held = {t for s in scenes for t in s.turn_ids}
    return [i for i in semantic if i in held] + [i for i in semantic if i not in held]


def rank_fuse(semantic: list[str], scenes: list[Retrieved], rrf_k: int) -> list[str]:
    """Ours: the semantic list and the scenes' turns (scene by scene) fused by reciprocal
    rank; a turn in both gains."""
    score: dict[str, float] = {}
    for rank, turn in enumerate(semantic):
        score[turn] = score.get(turn, 0.0) + 1 / (rrf_k + rank + 1)
    episodic = list(dict.fromkeys(t for s in scenes for t in s.turn_ids))
    for rank, turn in enumerate(episodic):
        score[turn] = score.get(turn, 0.0) + 1 / (rrf_k + rank + 1)
    return sorted(score, key=lambda t: -score[t])


class CastSearch(Strategy[CastConfig]):
    needs = ("turns", "edus", "scenes")
    config_type = CastConfig

    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        c = self.config
        size = c.k if c.k is not None else hits_for(budget, c.tokens_per_turn, 10, c.max_turns)
        semantic = self.semantic(ctx, state, size, budget)
        scenes = self.episodic(ctx, state)
        order = (rank_fuse(list(semantic), scenes, c.rrf_k) if c.add_scenes
                 else promote(list(semantic), scenes))
        if c.add_scenes:
            order = order[: max(size, len(semantic))]
        rows = ctx.store.read("retrieve/turns_by_id", space=state.space, ids=order,
                              scores=[semantic.get(i, 0.0) for i in order])
        return [turn_hit(row) for row in rows]

    def semantic(self, ctx: RetrievalContext, state: SpaceState, size: int,
                 budget: int) -> dict[str, float]:
        """Turn ids in semantic order with their scores: EMem-G's statements mapped to their
        turns, or dense search over turns when the graph gives nothing."""
        c = self.config
        graph = EMemSearch("cast-semantic", EMemConfig(graph=True, k=None, ppr=c.ppr,
                                                       oversample=c.oversample))
        ranked: dict[str, float] = {}
        for hit in graph.retrieve(ctx, state, max(budget, size * 75)):
            for turn in hit.source_turn_ids:
                ranked.setdefault(turn, hit.score)
            if len(ranked) >= size:
                break
        if ranked:
            return ranked
        plan = state.vector(size, c.oversample)
        rows = [] if plan is None else ctx.store.read(
            "retrieve/turns_vector", space=state.space, embedding=ctx.query.embedding, k=size,
            **plan)
        return {row["id"]: float(row["score"]) for row in rows}

    def episodic(self, ctx: RetrievalContext, state: SpaceState) -> list[Retrieved]:
        """The nearest scenes that pass the question's filters, at most ``k_scenes``."""
        c = self.config
        plan = state.vector(c.scene_pool, c.oversample)
        if plan is None:
            return []
        rows = ctx.store.read("retrieve/space_characters", space=state.space)
        cast = Cast((row["name"] for row in rows),
                    aliases={row["name"]: row["aliases"] for row in rows})
        asked = cues.question_cues(ctx.query.text, cast)
        if c.profiles and asked.persons:
            rows = ctx.store.read("retrieve/profile_scenes", space=state.space,
                                  keys=list(asked.persons), embedding=ctx.query.embedding,
                                  k=c.scene_pool)
        else:
            rows = ctx.store.read("retrieve/scenes_vector", space=state.space,
                                  embedding=ctx.query.embedding, k=c.scene_pool, **plan)
        found = [Retrieved(row["id"], tuple(character_key(p) for p in row["participants"]),
                           row["place"], (native_datetime(row["started_at"]),
                                          native_datetime(row["ended_at"])),
                           tuple(row["turn_ids"])) for row in rows]
        kept = cues.apply(found, asked, participants=lambda s: s.participants,
                          span=lambda s: _naive(s.span), place=lambda s: s.place)
        return kept[: c.k_scenes]


def _naive(span: tuple[Any, Any]) -> tuple[Any, Any]:
    """Stored times compared with a question's dates, which carry no zone."""
    return tuple(t.replace(tzinfo=None) if t is not None else None for t in span)  # type: ignore[return-value]
