"""Raw ingestion into the real Neo4j: structure, idempotence, appends, bad input, injection."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pytest

from graphmem.client import Memory
from graphmem.errors import ConfigurationError, InputError
from graphmem.store import GraphStore, Tx

from helpers import DATA, SAMPLE

T = TypeVar("T")


def snapshot(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return store.read("admin/space_snapshot", space=space)


def chain(store: GraphStore, space: str, key: str) -> list[str]:
    from graphmem.ids import conversation_id

    cid = conversation_id(space, key)
    rows = store.read("admin/turn_neighbours", space=space, conversation_id=cid)
    assert len(rows) == 1, "the turns of a conversation form one NEXT chain"
    return rows[0]["chain"]  # type: ignore[no-any-return]


def count(store: GraphStore, query: str, **params: Any) -> int:
    with store.driver.session(database=store.database) as session:
        return int(session.run(query, params).single(strict=True)[0])  # type: ignore[arg-type]


def test_sample_becomes_sessions_turns_speakers_and_embeddings(memory: Memory, space: str) -> None:
    report = memory.ingest(SAMPLE, space=space)
    assert (report.conversations, report.sessions, report.turns) == (1, 3, 17)
    assert report.layers["turns"].embedded == 17
    store = memory.store
    assert count(store, "MATCH (:Space {id: $s})-[:HAS_CONVERSATION]->(c) RETURN count(c)",
                 s=space) == 1
    assert count(store, "MATCH (s:Session {space: $s}) WHERE s.started_at IS NOT NULL "
                        "RETURN count(s)", s=space) == 3
    assert count(store, "MATCH (t:Turn {space: $s})-[:SPOKEN_BY]->(:Speaker {space: $s}) "
                        "WHERE size(t.embedding) = 384 RETURN count(t)", s=space) == 17
    assert count(store, "MATCH (sp:Speaker {space: $s}) RETURN count(sp)", s=space) == 2
    order = chain(store, space, "maya-jonas")
    assert order[:2] == ["s1:1", "s1:2"] and order[-1] == "s3:5" and len(order) == 17
    caption = count(store, "MATCH (t:Turn {space: $s, source_id: 's3:3'}) "
                           "RETURN size(t.image_caption)", s=space)
    assert caption == len("four blue glazed mugs on a wooden table")


def test_ingesting_twice_changes_nothing(memory: Memory, space: str) -> None:
    memory.ingest(DATA / "mini_locomo.json", space=space)
    before = snapshot(memory.store, space)
    again = memory.ingest(DATA / "mini_locomo.json", space=space)
    # every layer reports what it kept: nothing is embedded again
    assert set(again.layers) == {"turns", "edus", "events", "segments", "scenes", "episodes"}
    assert all(t.embedded == 0 and t.unchanged > 0 for t in again.layers.values())
    assert again.layers["turns"].unchanged == 5
    assert again.layers["edus"].unchanged == again.count("edus")  # new arguments only are embedded
    assert again.layers["events"].unchanged == again.count("events") + again.count("boundaries")
    assert again.layers["segments"].unchanged == again.count("retrieval units") == 5
    assert again.layers["scenes"].unchanged == again.count("scenes") + again.count("profiles")
    assert again.layers["episodes"].unchanged == again.count("episodic units")
    assert snapshot(memory.store, space) == before


def test_appending_a_session_extends_the_chain(memory: Memory, space: str,
                                               tmp_path: Path) -> None:
    data = json.loads(SAMPLE.read_text())
    conv = data["conversations"][0]
    later = conv["sessions"].pop()  # store the first two sessions, then add the third
    memory.ingest(_write(tmp_path / "a.json", data), space=space)
    assert len(chain(memory.store, space, "maya-jonas")) == 12
    conv["sessions"] = [later]
    report = memory.ingest(_write(tmp_path / "b.json", data), space=space)
    assert report.layers["turns"].embedded == 5
    order = chain(memory.store, space, "maya-jonas")
    assert len(order) == 17 and order[11:13] == ["s2:6", "s3:1"]
    # a session dated before the others slots in first, and stale links are dropped
    conv["sessions"] = [{"id": "s0", "started_at": "2024-01-01T09:00:00",
                         "turns": [{"speaker": "Maya", "text": "Happy new year!"}]}]
    memory.ingest(_write(tmp_path / "c.json", data), space=space)
    order = chain(memory.store, space, "maya-jonas")
    assert order[:2] == ["s0:1", "s1:1"] and len(order) == 18
    assert count(memory.store, "MATCH (a:Turn {space: $s})-[r:NEXT]->() RETURN count(r)",
                 s=space) == 17


def test_a_bad_record_writes_nothing_and_keeps_what_is_stored(memory: Memory, space: str,
                                                              tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)
    before = snapshot(memory.store, space)
    data = {"conversations": [
        {"id": "fresh", "sessions": [{"id": "x", "turns": [{"speaker": "A", "text": "new"}]}]},
        {"id": "broken", "sessions": [{"id": "y", "started_at": "the day after tomorrow",
                                       "turns": [{"speaker": "A", "text": "hi"}]}]},
    ]}
    with pytest.raises(InputError) as info:
        memory.ingest(_write(tmp_path / "bad.json", data), space=space)
    assert info.value.record == "#1 (broken)" and info.value.field == "sessions[0].started_at"
    assert snapshot(memory.store, space) == before  # not even the valid record was written
    report = memory.ingest(tmp_path / "bad.json", space=space, skip_invalid=True)
    assert report.conversations == 1 and len(report.errors) == 1
    assert count(memory.store, "MATCH (c:Conversation {space: $s}) RETURN count(c)",
                 s=space) == 2


def test_a_failing_write_leaves_no_partial_conversation(memory: Memory, space: str) -> None:
    """The last statement of the transaction fails: the merges before it are rolled back."""

    class FailingTx(Tx):
        def run(self, name: str, **params: Any) -> list[dict[str, Any]]:
            if name == "ingest/turns/link_turns":
                raise RuntimeError("disk on fire")
            return super().run(name, **params)

    class FailingStore(GraphStore):
        def write_tx(self, work: Callable[[Tx], T], name: str) -> T:
            return super().write_tx(lambda tx: work(FailingTx(tx._tx)), name)

    failing = FailingStore(memory.settings, driver=memory.store.driver)
    broken = Memory(memory.settings, store=failing, embedder=memory.embedder)
    with pytest.raises(RuntimeError, match="disk on fire"):
        broken.ingest(SAMPLE, space=space)
    assert snapshot(memory.store, space) == []


def test_vectors_of_the_wrong_size_are_refused(memory: Memory, space: str) -> None:
    class Tiny:
        name = "tiny"
        dimensions = 7

        def embed(self, texts: list[str]) -> Any:
            return np.ones((len(texts), 7), dtype=np.float32)

    with pytest.raises(ConfigurationError, match="384"):
        Memory(memory.settings, store=memory.store, embedder=Tiny()).ingest(SAMPLE, space=space)
    assert snapshot(memory.store, space) == []


def test_strings_cannot_inject_cypher(memory: Memory, space: str, tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)
    victim = snapshot(memory.store, space)
    evil_space = space + "'}) MATCH (n) DETACH DELETE n //"
    text = "x'}) MATCH (n) DETACH DELETE n RETURN 1 //\" $space `Turn`"
    data = {"conversations": [{"id": "c') DETACH DELETE n //", "sessions": [
        {"id": "s`1", "turns": [{"speaker": "Robert'); DROP", "text": text}]}]}]}
    memory.ingest(_write(tmp_path / "evil.json", data), space=evil_space)
    try:
        assert snapshot(memory.store, space) == victim
        hits = memory.search("DETACH DELETE", space=evil_space, budget=200).hits
        assert [h.text for h in hits] == [f"Robert'); DROP: {text}"]
    finally:
        memory.delete_space(evil_space)


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data))
    return path
