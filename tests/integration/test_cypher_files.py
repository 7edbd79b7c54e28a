"""One test per file under cypher/: each statement runs on the real Neo4j as written, with
parameters only, and does what its comment says. A new file without a case here fails."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from helpers import SAMPLE

from graphmem import cypher
from graphmem.client import Memory
from graphmem.ingest.writer import conversation_id, session_id, speaker_id, turn_id
from graphmem.store import GraphStore

Case = Callable[[GraphStore, str, Memory], None]
CASES: dict[str, Case] = {}
KEY = "maya-jonas"


def case(name: str) -> Callable[[Case], Case]:
    def register(func: Case) -> Case:
        CASES[name] = func
        return func

    return register


def vector(memory: Memory, text: str) -> list[float]:
    return memory.embedder.embed([text])[0].tolist()  # type: ignore[no-any-return]


def _schema_file(name: str) -> Case:
    def check(store: GraphStore, space: str, memory: Memory) -> None:
        with store.driver.session(database=store.database) as session:
            for statement in cypher.statements(name):
                summary = session.run(statement).consume()  # type: ignore[arg-type]
                assert summary.counters.indexes_added == 0  # already there: a no-op
                assert summary.counters.constraints_added == 0

    return check


for _name in ("schema/constraints", "schema/range_indexes", "schema/fulltext_indexes",
              "schema/vector_indexes"):
    CASES[_name] = _schema_file(_name)


@case("ingest/merge_conversation")
def _merge_conversation(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.write("ingest/merge_conversation", space=space,
                       conversation_id=conversation_id(space, "extra"), key="extra",
                       source_format="json",
                       speakers=[{"id": speaker_id(space, "Zoe"), "name": "Zoe"}])
    assert rows == [{"speakers": 1}]
    assert len(memory.spaces()) >= 1


@case("ingest/merge_sessions")
def _merge_sessions(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    row = {"id": session_id(space, KEY, "s9"), "key": "s9", "index": 9, "started_at": None,
           "date_text": None}
    assert store.write("ingest/merge_sessions", space=space, conversation_id=cid,
                       sessions=[row]) == [{"sessions": 1}]
    # another space's id cannot attach sessions to this conversation
    assert store.write("ingest/merge_sessions", space="elsewhere", conversation_id=cid,
                       sessions=[row]) == [{"sessions": 0}]


@case("ingest/merge_turns")
def _merge_turns(store: GraphStore, space: str, memory: Memory) -> None:
    row = {"id": turn_id(space, KEY, "s1:1"), "session_id": session_id(space, KEY, "s1"),
           "speaker_id": speaker_id(space, "Maya"), "order": 0, "speaker": "Maya",
           "text": "Hi Jonas! I finally signed up for the pottery class at the community centre.",
           "source_id": "s1:1", "image_caption": None, "image_url": None}
    before = store.read("admin/space_snapshot", space=space)
    assert store.write("ingest/merge_turns", space=space, turns=[row]) == [{"turns": 1}]
    assert store.read("admin/space_snapshot", space=space) == before  # same values: no change


@case("ingest/set_turn_embeddings")
@case("ingest/turn_embedding_hashes")
def _embeddings(store: GraphStore, space: str, memory: Memory) -> None:
    tid = turn_id(space, KEY, "s1:2")
    rows = [{"id": tid, "embedding": vector(memory, "x"), "embedded_hash": "abc"}]
    assert store.write("ingest/set_turn_embeddings", space=space, rows=rows) == [{"embedded": 1}]
    hashes = {r["id"]: r["embedded_hash"] for r in store.read(
        "ingest/turn_embedding_hashes", space=space, conversation_id=conversation_id(space, KEY))}
    assert len(hashes) == 17 and hashes[tid] == "abc"


@case("ingest/link_turns")
@case("admin/turn_neighbours")
def _link(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    assert store.write("ingest/link_turns", space=space, conversation_id=cid) == [{"links": 16}]
    [row] = store.read("admin/turn_neighbours", space=space, conversation_id=cid)
    assert row["chain"][:3] == ["s1:1", "s1:2", "s1:3"] and len(row["chain"]) == 17


@case("retrieve/turns_rrf")
def _rrf(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/turns_rrf", space=space, query="pottery class",
                      embedding=vector(memory, "pottery class"), k=5, candidates=100,
                      rrf_k=60)
    assert rows[0]["source_id"] == "s1:1"
    assert rows[0]["score"] == pytest.approx(2 / 61)  # first in both lists


@case("retrieve/turns_fulltext")
def _fulltext(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/turns_fulltext", space=space, query="kiln", k=5)
    assert [r["source_id"] for r in rows] == ["s3:3"]


@case("retrieve/turns_vector")
def _vector(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/turns_vector", space=space,
                      embedding=vector(memory, "a rescued racing dog"), k=3, candidates=100)
    assert len(rows) == 3 and rows[0]["source_id"] == "s2:1"


@case("retrieve/count_turns")
def _count(store: GraphStore, space: str, memory: Memory) -> None:
    [row] = store.read("retrieve/count_turns", space=space)
    assert row["in_space"] == 17 and row["in_database"] >= 17


@case("admin/list_spaces")
def _list(store: GraphStore, space: str, memory: Memory) -> None:
    rows = {r["space"]: r for r in store.read("admin/list_spaces")}
    assert rows[space] == {"space": space, "conversations": 1, "sessions": 3, "turns": 17}


@case("admin/space_snapshot")
def _snapshot(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("admin/space_snapshot", space=space)
    labels = sorted(label for row in rows for label in row["labels"])
    assert labels.count("Turn") == 17 and labels.count("Session") == 3
    assert {row["dims"] for row in rows if "Turn" in row["labels"]} == {384}


@case("admin/delete_space")
def _delete(store: GraphStore, space: str, memory: Memory) -> None:
    store.run_autocommit("admin/delete_space", space=space)
    assert store.read("admin/space_snapshot", space=space) == []


def test_every_cypher_file_has_a_case() -> None:
    assert sorted(CASES) == sorted(cypher.names())


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
