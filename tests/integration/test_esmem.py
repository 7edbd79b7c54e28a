"""ES-Mem on the real Neo4j: the event layer's graph (events, boundaries, chain, turn links),
idempotent re-ingest, appending an earlier session, and the `esmem` strategy."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphmem.client import Memory
from graphmem.store import GraphStore

from helpers import SAMPLE, query_rows


def events_layer(memory: Memory) -> Memory:
    settings = memory.settings.model_copy(update={"ingest_layers": "events"})
    return Memory(settings, store=memory.store, embedder=memory.embedder)


def chain(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return query_rows(store, """
        MATCH (s:Session {space: $space})-[:HAS_EVENT]->(e:Event)
        OPTIONAL MATCH (e)-[:NEXT_EVENT]->(n:Event)
        OPTIONAL MATCH (b:Boundary)-[:OPENS]->(e)
        OPTIONAL MATCH (b)-[:CLOSES]->(c:Event)
        OPTIONAL MATCH (e)-[:FROM_TURN]->(t:Turn)
        WITH s, e, n, b, c, collect(t) AS turns
        RETURN e.id AS id, e.seq AS seq, s.key AS session, n.seq AS next, b.kind AS kind,
               c.seq AS closes, b.embedding IS NOT NULL AND e.embedding IS NOT NULL AS embedded,
               all(t IN turns WHERE t.session_id = s.id) AS own_turns, size(turns) AS turns,
               e.turn_count AS turn_count, e.name AS name, b.name AS boundary_name
        ORDER BY seq""", space=space)


def test_event_layer_graph(memory: Memory, space: str) -> None:
    report = events_layer(memory).ingest(SAMPLE, space=space)
    events = chain(memory.store, space)
    assert report.count("events") == len(events) == report.count("boundaries")
    assert [e["seq"] for e in events] == list(range(len(events)))
    assert all(e["next"] == e["seq"] + 1 for e in events[:-1]) and events[-1]["next"] is None
    assert all(e["closes"] == e["seq"] - 1 for e in events[1:]) and events[0]["closes"] is None
    assert events[0]["kind"] == "conversation_start"
    firsts = {}
    for e in events:
        firsts.setdefault(e["session"], e)
    assert all(e["kind"] == "session_start" for e in list(firsts.values())[1:])
    assert all(e["embedded"] and e["own_turns"] and e["turns"] == e["turn_count"] > 0
               for e in events)
    assert sum(e["turns"] for e in events) == report.turns  # every turn in exactly one event
    assert all(e["name"] and e["boundary_name"].startswith("→") for e in events)
    # each boundary links to real turns around its cut, of the events it joins
    cut = query_rows(memory.store, """
        MATCH (b:Boundary {space: $space})-[:FROM_TURN]->(t:Turn)
        RETURN count(t) AS links,
               sum(CASE WHEN EXISTS { (b)-[:OPENS|CLOSES]->(:Event)-[:FROM_TURN]->(t) }
                   THEN 0 ELSE 1 END) AS stray""", space=space)
    assert cut[0]["links"] > 0 and cut[0]["stray"] == 0


def test_reingest_changes_nothing_and_an_earlier_session_relinks(
        memory: Memory, space: str, tmp_path: Path) -> None:
    mem = events_layer(memory)
    data = json.loads(SAMPLE.read_text())
    conversation = data["conversations"][0]
    later = {**data, "conversations": [{**conversation, "sessions": conversation["sessions"][1:]}]}
    path = tmp_path / "later.json"
    path.write_text(json.dumps(later))
    mem.ingest(path, space=space)
    before = chain(memory.store, space)
    assert before[0]["kind"] == "conversation_start" and before[0]["session"] == "s2"
    mem.ingest(SAMPLE, space=space)  # adds s1, earlier in time
    after = chain(memory.store, space)
    assert after[0]["session"] == "s1" and after[0]["kind"] == "conversation_start"
    first_s2 = next(e for e in after if e["session"] == "s2")
    assert first_s2["kind"] == "session_start" and first_s2["closes"] == first_s2["seq"] - 1
    assert [e["seq"] for e in after] == list(range(len(after)))
    snapshot = memory.store.read("admin/space_snapshot", space=space)
    mem.ingest(SAMPLE, space=space)
    assert memory.store.read("admin/space_snapshot", space=space) == snapshot
    assert chain(memory.store, space) == after


def test_esmem_strategy_returns_whole_events_of_the_space(memory: Memory, space: str) -> None:
    mem = events_layer(memory)
    mem.ingest(SAMPLE, space=space)
    other = f"{space}-other"
    try:
        mem.ingest(SAMPLE, space=other)
        result = mem.search("What kind of dog did Maya adopt?", space=space, strategy="esmem",
                            budget=400)
        assert result.hits and result.context_tokens <= 400
        assert all(hit.kind == "event" and hit.id.startswith(f"{space}/") for hit in result.hits)
        assert any("greyhound" in hit.text for hit in result.hits[:3])
        for hit in result.hits:  # the rendered text is the event's turns, in order
            lines = hit.text.splitlines()
            assert len(lines) == len(hit.source_ids) and lines[0].startswith("[")
        fill = mem.search("What kind of dog did Maya adopt?", space=space,
                          strategy="esmem", budget=400, top_k=1)
        assert len(fill.hits) == 1
        turns = mem.search("What kind of dog did Maya adopt?", space=space,
                           strategy="esmem-turns", budget=100)
        assert turns.hits and all(h.kind == "turn" and h.id.startswith(f"{space}/")
                                  for h in turns.hits)
        assert "greyhound" in turns.hits[0].text and turns.context_tokens <= 100
    finally:
        memory.store.run_autocommit("admin/delete_space", space=other)
