"""CAST on the real Neo4j, over a small hand-made conversation: a grandmother who is talked
about but never speaks is a supporting character; a winter talk about baking and a summer
talk about chess are separate scenes; profiles list a character's scenes in time order;
a scene's vector is the mean of its turns'; re-ingest changes nothing and appending a
session re-embeds only what it changes; the
fusion moves scene-backed semantic hits to the front and adds nothing, while `cast-scenes`
may add a scene's turns."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.client import Memory
from graphmem.ingest.embedding_rows import composed_hash, mean_vector
from graphmem.retrieve.base import Query, RetrievalContext, space_state
from graphmem.retrieve.cast import CastSearch, promote
from graphmem.retrieve.registry import get_strategy
from graphmem.store import GraphStore

from helpers import DATA, query_rows

CAST = DATA / "cast_conversation.json"


def with_scenes(memory: Memory) -> Memory:
    return Memory(memory.settings.model_copy(update={"ingest_layers": "edus,scenes"}),
                  store=memory.store, embedder=memory.embedder)


def roles(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return query_rows(store, """
        MATCH (ch:Character {space: $space})-[r:IN_SCENE]->(sc:Scene)
        RETURN ch.name AS name, r.role AS role, sc.id AS scene, sc.started_at.month AS month
        ORDER BY name, month, scene""", space=space)


def test_characters_roles_and_scenes(memory: Memory, space: str) -> None:
    report = with_scenes(memory).ingest(CAST, space=space)
    assert report.count("scenes") >= 2
    found = roles(memory.store, space)
    rosa = [r for r in found if r["name"] == "Rosa"]
    assert rosa and {r["role"] for r in rosa} == {"supporting"}  # mentioned, never speaking
    assert {r["role"] for r in found if r["name"] in {"Ana", "Ben"}} == {"main"}
    assert all(r["month"] == 1 for r in rosa)  # she is only talked about in winter
    scenes = query_rows(memory.store, """
        MATCH (sc:Scene {space: $space})
        RETURN sc.id AS id, sc.summary AS summary, sc.embedding IS NOT NULL AS embedded,
               COLLECT { MATCH (sc)-[:FROM_TURN]->(t:Turn)<-[:HAS_TURN]-(s:Session)
                         RETURN DISTINCT s.key } AS sessions""", space=space)
    assert all(len(s["sessions"]) == 1 and s["embedded"] for s in scenes)
    assert {s["sessions"][0] for s in scenes} == {"winter", "summer"}
    composed = query_rows(memory.store, """
        MATCH (sc:Scene {space: $space})-[:FROM_TURN]->(t:Turn)
        RETURN sc.embedding AS vector, sc.embedded_hash AS hash,
               collect(t.embedding) AS turns, collect(t.embedded_hash) AS hashes""",
                          space=space)
    for row in composed:  # a scene's vector: its turns' mean, named by their hashes
        assert row["hash"] == composed_hash(memory.embedder, row["hashes"])
        assert np.allclose(row["vector"], mean_vector(row["turns"]), atol=1e-5)
    speakers = query_rows(memory.store, """
        MATCH (ch:Character {space: $space})-[:SPEAKS_AS]->(sp:Speaker)
        RETURN ch.name AS name, sp.name AS speaker ORDER BY name""", space=space)
    assert speakers == [{"name": "Ana", "speaker": "Ana"}, {"name": "Ben", "speaker": "Ben"}]


def test_a_profile_lists_the_scenes_in_time_order(memory: Memory, space: str) -> None:
    with_scenes(memory).ingest(CAST, space=space)
    rows = query_rows(memory.store, """
        MATCH (ch:Character {space: $space, name: 'Ana'})-[:HAS_PROFILE]->(p:Profile)
        MATCH (p)-[f:FEATURES]->(sc:Scene)
        RETURN p.text AS text, p.embedding IS NOT NULL AS embedded, f.order AS n, f.role AS role,
               sc.started_at AS started ORDER BY n""", space=space)
    assert rows and all(r["embedded"] and r["role"] == "main" for r in rows)
    starts = [r["started"] for r in rows]
    assert starts == sorted(starts) and starts[0].month == 1 and starts[-1].month == 6
    assert rows[0]["text"].startswith(f"Ana: main in {len(rows)} scenes, supporting in 0")


def test_reingest_changes_nothing_and_appending_touches_only_new_scenes(
        memory: Memory, space: str, tmp_path: Path) -> None:
    cast = with_scenes(memory)
    cast.ingest(CAST, space=space)
    before = memory.store.read("admin/space_snapshot", space=space)
    again = cast.ingest(CAST, space=space)
    assert memory.store.read("admin/space_snapshot", space=space) == before
    assert again.layers["scenes"].embedded == 0
    winter = {r["scene"] for r in roles(memory.store, space) if r["month"] == 1}
    data = json.loads(CAST.read_text())
    data["conversations"][0]["sessions"].append({
        "id": "autumn", "started_at": "2024-10-02T10:00:00", "turns": [
            {"speaker": "Ben", "text": "My sister Clara starts university in Porto next week."},
            {"speaker": "Ana", "text": "Porto is lovely, Clara will enjoy studying there."}]})
    longer = tmp_path / "longer.json"
    longer.write_text(json.dumps(data))
    added = cast.ingest(longer, space=space)
    after = roles(memory.store, space)
    assert winter <= {r["scene"] for r in after}  # the winter scenes are kept as they were
    assert {r["role"] for r in after if r["name"] == "Clara"} == {"supporting"}
    # new autumn scenes and the profiles of the characters in them, nothing else
    autumn = {r["scene"] for r in after if r["month"] == 10}
    profiles = {r["name"] for r in after if r["month"] == 10}
    assert added.layers["scenes"].embedded == len(autumn) + len(profiles)


def test_fusion_moves_scene_hits_first_and_adds_nothing(memory: Memory, space: str) -> None:
    with_scenes(memory).ingest(CAST, space=space)
    question = "What recipe did Rosa teach Ana?"
    ctx = RetrievalContext(memory.store, memory.embedder, Query(question, memory.embedder))
    state = space_state(memory.store, space, ("turns", "edus", "scenes"))
    strategy = get_strategy("cast", k=6)
    assert isinstance(strategy, CastSearch)
    semantic = list(strategy.semantic(ctx, state, 6, 400))
    scenes = strategy.episodic(ctx, state)
    assert scenes and all("rosa" in s.participants for s in scenes)  # the person filter
    fused = promote(semantic, scenes)
    held = {t for s in scenes for t in s.turn_ids}
    assert sorted(fused) == sorted(semantic)  # nothing added, nothing lost
    inside = [t for t in semantic if t in held]
    assert fused[: len(inside)] == inside and fused[len(inside):] == [
        t for t in semantic if t not in held]
    hits = memory.search(question, space=space, strategy="cast", budget=400, k=6).hits
    assert [h.source_turn_ids[0] for h in hits] == fused
    assert any("custard tarts" in h.text for h in hits[: len(inside)])


def test_cast_scenes_adds_the_turns_of_a_scene(memory: Memory, space: str) -> None:
    with_scenes(memory).ingest(CAST, space=space)
    question = "Where did Ben play chess?"
    narrow = memory.search(question, space=space, strategy="cast", budget=400, k=1)
    wide = memory.search(question, space=space, strategy="cast-scenes", budget=400)
    assert len(narrow.hits) == 1
    assert "Oslo" in wide.context
    assert {h.source_ids[0] for h in wide.hits} > {h.source_ids[0] for h in narrow.hits}
