"""The files under cypher/admin/, one case each: the statement runs on the real Neo4j as
written, with parameters only, and does what its comment says."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.ids import conversation_id, session_id, turn_id
from graphmem.store import GraphStore, Tx

from cypher_support import (
    KEY,
    Case,
    _edu_rows,
    registrar,
)
from helpers import SAMPLE, query_rows

# each case runs its statement alone, outside the door graphmem's write paths take
pytestmark = pytest.mark.usefixtures("one_statement_at_a_time")

CASES: dict[str, Case] = {}
case = registrar(CASES)


@case("admin/space_state")
def _space_state(store: GraphStore, space: str, memory: Memory) -> None:
    [row] = store.read("admin/space_state", space=space, layers=["turns", "edus", "nothing"])
    assert row["in_space"] == 17 and row["in_database"] >= 17 and row["sessions"] == 3
    assert isinstance(row["revision"], str) and len(row["revision"]) == 36  # a UUID
    assert row["embedder"] == memory.embedder.name  # what made the space's vectors
    assert len(row["epoch"]) == 36 and row["appended"] == 0  # an ingest is not an append
    assert row["layers"] == [{"layer": "turns", "missing": 0, "pending": 0},
                             {"layer": "edus", "missing": 0, "pending": 0},
                             {"layer": "nothing", "missing": 3, "pending": 0}]
    [empty] = store.read("admin/space_state", space=space + "-none", layers=["turns"])
    assert (empty["revision"], empty["in_space"], empty["sessions"], empty["layers"]) == (
        None, 0, 0, [{"layer": "turns", "missing": 0, "pending": 0}])
    # a layer live messages left pending is counted by conversation
    query_rows(store, "MATCH (c:Conversation {space: $space}) SET c.pending_layers = ['edus']",
               space=space)
    [waiting] = store.read("admin/space_state", space=space, layers=["edus"])
    assert waiting["layers"] == [{"layer": "edus", "missing": 0, "pending": 1}]
    # a database without a single turn still gives its row (a fresh database does that)
    no_turns = cypher.load("admin/space_state").replace(":Turn", ":NoTurnHasThisLabel")
    assert query_rows(store, no_turns, space=space, layers=[]) == [
        {"revision": row["revision"], "embedder": memory.embedder.name,
         "epoch": row["epoch"], "appended": 0, "in_space": 0, "in_database": 0, "sessions": 3,
         "layers": []}]


@case("admin/vector_indexes")
def _vector_indexes(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("admin/vector_indexes")
    assert {r["name"]: r["dimensions"] for r in rows} == {
        name: 384 for name in ("argument_embedding", "boundary_embedding", "edu_embedding",
                               "event_embedding", "turn_embedding", "unit_embedding",
                               "scene_embedding", "profile_embedding", "episode_embedding")}


@case("admin/foreign_nodes")
def _foreign_nodes(store: GraphStore, space: str, memory: Memory) -> None:
    def mine() -> list[dict[str, Any]]:
        return [r for r in store.read("admin/foreign_nodes") if "CaseNote" in r["labels"]]

    assert mine() == []  # the space's own nodes are in a space
    query_rows(store, "CREATE (:CaseNote {id: $id}), (:CaseNote {space: $gone})",
               id=f"{space}-note", gone=f"{space}-no-such-space")
    try:  # a node without a space, and one whose space does not exist
        assert mine() == [{"labels": ["CaseNote"], "nodes": 2}]
    finally:
        query_rows(store, "MATCH (n:CaseNote) DELETE n")


@case("admin/schema_objects")
def _schema_objects(store: GraphStore, space: str, memory: Memory) -> None:
    rows = {r["name"]: r for r in store.read("admin/schema_objects")}
    assert rows["turn_id"] == {"name": "turn_id", "type": "RANGE", "constraint": True}
    assert rows["turn_embedding"]["type"] == "VECTOR" and not rows["turn_embedding"]["constraint"]
    assert rows["turn_text"]["type"] == "FULLTEXT"
    assert any(r["type"] == "LOOKUP" for r in rows.values())  # every database's own


@case("admin/list_spaces")
def _list(store: GraphStore, space: str, memory: Memory) -> None:
    rows = {r["space"]: r for r in store.read("admin/list_spaces")}
    assert rows[space] == {"space": space, "conversations": 1, "sessions": 3, "turns": 17}


@case("admin/space_exists")
def _exists(store: GraphStore, space: str, memory: Memory) -> None:
    assert store.read("admin/space_exists", space=space) == [{"exists": True}]
    assert store.read("admin/space_exists", space=space + "-not") == [{"exists": False}]


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


@case("admin/export_nodes")
@case("admin/export_relationships")
@case("admin/clear_space")
@case("admin/import_nodes")
@case("admin/import_relationships")
def _export_import(store: GraphStore, space: str, memory: Memory) -> None:
    def read(tx: Tx) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
        return (tx.run("admin/export_nodes", space=space),
                tx.run("admin/export_relationships", space=space))

    nodes, rels = store.read_tx(read, "test")
    history = [row for row in nodes if row["labels"] == ["Change"]]  # the snapshot leaves out
    assert len(nodes) - len(history) == len(store.read("admin/space_snapshot", space=space))
    assert len(history) == 1
    assert all(row["props"].get("space", space) == space for row in nodes)
    keys = {row["key"] for row in nodes}
    assert all(row["from"] in keys and row["to"] in keys for row in rels)
    before = store.read("admin/space_snapshot", space=space)

    def restore(tx: Tx) -> None:
        tx.run("admin/clear_space", space=space)
        assert tx.run("admin/space_exists", space=space) == [{"exists": False}]
        made = tx.run("admin/import_nodes", rows=[{"labels": r["labels"], "props": r["props"]}
                                                  for r in nodes])
        assert [row["i"] for row in made] == list(range(len(nodes)))
        new = {old["key"]: row["key"] for old, row in zip(nodes, made, strict=True)}
        tx.run("admin/import_relationships", rows=[
            {"type": r["type"], "from": new[r["from"]], "to": new[r["to"]],
             "props": r["props"]} for r in rels])
        # as a restore does: the Space node comes back bare, the embedder from the header
        tx.run("admin/reembed/stamp_embedder", space=space, embedder=memory.embedder.name)

    store.write_tx(restore, "test")
    assert store.read("admin/space_snapshot", space=space) == before


@case("admin/record_change")
@case("admin/history")
def _history(store: GraphStore, space: str, memory: Memory) -> None:
    before = store.read("admin/history", space=space, limit=10)
    assert before and before[0]["what"] == "ingest" and before[0]["surface"] == "python"
    assert before[0]["nodes_created"] > 17
    counts = {"nodes_created": 1, "nodes_deleted": 2, "relationships_created": 3,
              "relationships_deleted": 4, "properties_set": 5}
    [row] = store.write("admin/record_change", space=space, prefix=f"{space}/change/",
                        what="test", surface="rest", caller="abc", counts=counts)
    assert row["id"].startswith(f"{space}/change/")
    [last] = store.read("admin/history", space=space, limit=1)
    assert {k: last[k] for k in ("what", "surface", "caller", *counts)} == {
        "what": "test", "surface": "rest", "caller": "abc", **counts}
    assert store.read("admin/history", space="elsewhere", limit=5) == []
    assert store.write("admin/record_change", space="elsewhere", prefix="elsewhere/",
                       what="x", surface="python", caller=None, counts=counts) == []


@case("admin/conversations")
def _conversations(store: GraphStore, space: str, memory: Memory) -> None:
    [row] = store.read("admin/conversations", space=space)
    assert (row["conversation"], row["sessions"], row["turns"], row["pending_layers"]) == (
        KEY, 3, 17, [])
    assert row["first_session_at"] < row["last_session_at"]
    assert store.read("admin/conversations", space="elsewhere") == []


@case("admin/messages")
def _messages(store: GraphStore, space: str, memory: Memory) -> None:
    def page(**params: Any) -> list[str]:
        base = {"space": space, "conversation_id": conversation_id(space, KEY), "since": None,
                "newest_first": False, "cursor": None, "limit": 4}
        return [r["id"] for r in store.read("admin/messages", **{**base, **params})]

    first = page()
    assert first == ["s1:1", "s1:2", "s1:3", "s1:4"]
    [fourth] = store.read("admin/messages", space=space,
                          conversation_id=conversation_id(space, KEY), since=None,
                          newest_first=False, cursor=2, limit=1)
    assert fourth["id"] == "s1:4" and fourth["seq"] == 3 and fourth["session"] == "s1"
    assert page(newest_first=True, limit=2) == ["s3:5", "s3:4"]
    assert page(newest_first=True, limit=2, cursor=15) == ["s3:3", "s3:2"]  # after s3:4
    assert page(since=datetime(2024, 3, 10), limit=1) == ["s2:1"]
    assert page(limit=100)[-1] == "s3:5" and len(page(limit=100)) == 17


@case("admin/unit")
def _unit(store: GraphStore, space: str, memory: Memory) -> None:
    turn = turn_id(space, KEY, "s2:1")
    [row] = store.read("admin/unit", space=space, id=turn)
    assert row["kind"] == "Turn" and [t["source_id"] for t in row["sources"]] == ["s2:1"]
    assert "embedding" not in dict(row["properties"]) and dict(row["properties"])["text"]
    kinds = {d["kind"] for d in row["derived"]}
    assert {"EDU", "Event"} <= kinds and all(d["id"] for d in row["derived"])
    assert [d["kind"] for d in row["derived"]] == sorted(d["kind"] for d in row["derived"])
    edu = _edu_rows(store, space)[0]
    [row] = store.read("admin/unit", space=space, id=edu["id"])
    assert row["kind"] == "EDU" and row["sources"] and row["derived"] == []  # not a turn
    [row] = store.read("admin/unit", space=space, id=session_id(space, KEY, "s1"))
    assert [t["source_id"] for t in row["sources"]][:2] == ["s1:1", "s1:2"]
    assert store.read("admin/unit", space="elsewhere", id=turn) == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
