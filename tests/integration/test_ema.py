"""EMA on the real Neo4j, over a small hand-made conversation: every turn keeps its MemDecider
score; a rejected turn is still a Turn found by `turns`; a cancelled plan and a changed job are
superseded by the later statements and the Caller shows the replacement first; a
reorganisation merges a repeated statement; re-ingest changes nothing."""

from __future__ import annotations

from typing import Any

from graphmem.client import Memory
from graphmem.ingest.layer import with_options
from graphmem.retrieve.base import Query, RetrievalContext, space_state
from graphmem.retrieve.registry import get_strategy

from helpers import DATA, query_rows

EMA = DATA / "ema_conversation.json"


def with_episodes(memory: Memory, **options: Any) -> Memory:
    """A client writing episodic units, with the episodes layer's ``options``."""
    settings = memory.settings.model_copy(update={"ingest_layers": "episodes"})
    return Memory(with_options(settings, "episodes", **options), store=memory.store,
                  embedder=memory.embedder)


def units(memory: Memory, space: str) -> list[dict[str, Any]]:
    return query_rows(memory.store, """
        MATCH (e:Episode {space: $space})-[:FROM_TURN]->(t:Turn)
        OPTIONAL MATCH (e)-[:SUPERSEDED_BY]->(n:Episode)-[:FROM_TURN]->(nt:Turn)
        OPTIONAL MATCH (e)-[:MERGED_INTO]->(m:Episode)-[:FROM_TURN]->(mt:Turn)
        RETURN t.text AS text, nt.text AS superseded_by, mt.text AS merged_into,
               e.embedding IS NOT NULL AS embedded, e.importance AS importance,
               t.salience AS salience
        ORDER BY t.seq""", space=space)


def test_rejected_turns_keep_their_score_and_stay_searchable(memory: Memory, space: str) -> None:
    report = with_episodes(memory, tau=1.0).ingest(EMA, space=space)  # nothing is admitted
    assert report.count("episodic units") == 0 and units(memory, space) == []
    turns = query_rows(memory.store, """
        MATCH (t:Turn {space: $space}) RETURN t.text AS text, t.salience AS salience""",
                       space=space)
    assert len(turns) == 8 and all(0.0 <= t["salience"] < 1.0 for t in turns)
    hits = memory.search("Where does Ana work?", space=space, strategy="turns", budget=200).hits
    assert any("Microsoft" in h.text for h in hits)


def test_plans_and_jobs_are_superseded_and_the_caller_shows_the_newer(
        memory: Memory, space: str) -> None:
    with_episodes(memory, tau=0.0).ingest(EMA, space=space)
    found = {u["text"]: u for u in units(memory, space)}
    assert len(found) == 8 and all(u["embedded"] for u in found.values())
    assert all(u["importance"] == u["salience"] for u in found.values())
    plan = found["I plan to fly to New York next Monday for the marathon."]
    assert plan["superseded_by"] == "I cancelled my New York marathon trip, my knee hurts."
    assert found["I work at Google as a designer."]["superseded_by"] == "I work at Microsoft now."
    assert found["I love the Alps."]["superseded_by"] is None
    result = memory.search("Where does Ana work?", space=space, strategy="ema", budget=500)
    texts = [h.text for h in result.hits]
    newer = next(i for i, t in enumerate(texts) if "Microsoft" in t)
    older = next(i for i, t in enumerate(texts) if "Google" in t)
    assert older == newer + 1 and "replaced on 10 April 2024" in texts[older]
    assert "importance" in texts[newer] and "confidence 1.00" in texts[newer]


def test_a_reorganisation_merges_a_repeat_and_reingest_changes_nothing(
        memory: Memory, space: str) -> None:
    layered = with_episodes(memory, tau=0.0, reorganise_after=1)
    report = layered.ingest(EMA, space=space)
    assert report.count("merged") == 1
    found = {u["text"]: u for u in units(memory, space)}
    assert found["I love the Alps!"]["merged_into"] == "I love the Alps."
    state = query_rows(memory.store, """
        MATCH (c:Conversation {space: $space})
        RETURN c.reorganised_at IS NOT NULL AS done, c.episode_operations AS ops""",
                       space=space)
    assert state == [{"done": True, "ops": 0}]
    before = memory.store.read("admin/space_snapshot", space=space)
    again = layered.ingest(EMA, space=space)
    assert again.layers["episodes"].embedded == 0
    assert memory.store.read("admin/space_snapshot", space=space) == before
    strategy = get_strategy("ema-fill")
    ctx = RetrievalContext(memory.store, memory.embedder, Query("the Alps", memory.embedder))
    hits = strategy.retrieve(ctx, space_state(memory.store, space), 500)
    assert sum("Alps" in h.text for h in hits) == 1  # the merged repeat is not shown
