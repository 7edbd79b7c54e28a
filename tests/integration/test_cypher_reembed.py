"""The files under cypher/admin/reembed/, one case each: the statement runs on the real Neo4j as
written, with parameters only, and does what its comment says. (`drop_vector_indexes` drops
the database's indexes: it runs for real on a server of its own in test_reembed.py.)"""

from __future__ import annotations

import re

import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.ingest.embedding_rows import composed_hash, embedding_hash
from graphmem.ingest.layers.turns import stored_line
from graphmem.providers.embedder import HashEmbedder
from graphmem.store import GraphStore

from cypher_support import Case, registrar
from helpers import SAMPLE, query_rows

# each case runs its statement alone, outside the door graphmem's write paths take
pytestmark = pytest.mark.usefixtures("one_statement_at_a_time")

CASES: dict[str, Case] = {}
case = registrar(CASES)
OTHER = HashEmbedder(384)


def turn_rows(store: GraphStore, space: str) -> list[dict[str, object]]:
    return store.read("admin/reembed/vector_texts", space=space, kind="turn")


def node(store: GraphStore, key: object) -> dict[str, object]:
    [row] = query_rows(store, "MATCH (n) WHERE elementId(n) = $key RETURN n.embedding AS "
                       "embedding, n.embedded_hash AS hash, n.embedding_next AS next, "
                       "n.embedded_hash_next AS staged", key=key)
    return row


@case("admin/reembed/vector_texts")
def _texts(store: GraphStore, space: str, memory: Memory) -> None:
    turns = turn_rows(store, space)
    assert len(turns) == 17 and [r["id"] for r in turns] == sorted(r["id"] for r in turns)
    for row in turns:  # the stored hash is the hash of the line the fields rebuild
        assert row["hash"] == embedding_hash(memory.embedder, stored_line(row["fields"]))
        assert row["staged"] is None and row["dimensions"] == 384
    for kind in ("edu", "argument", "event", "boundary", "retrievalunit", "profile",
                 "episode"):
        rows = store.read("admin/reembed/vector_texts", space=space, kind=kind)
        assert rows and all(r["fields"]["text"] for r in rows), kind
    for kind in ("scene", "nothing"):  # a scene's vector embeds no text: composed_units
        assert store.read("admin/reembed/vector_texts", space=space, kind=kind) == []
    assert store.read("admin/reembed/vector_texts", space=space + "-x", kind="turn") == []


@case("admin/reembed/composed_units")
@case("admin/reembed/turn_vectors")
def _composed(store: GraphStore, space: str, memory: Memory) -> None:
    scenes = store.read("admin/reembed/composed_units", space=space, kind="scene")
    assert scenes and [r["id"] for r in scenes] == sorted(r["id"] for r in scenes)
    turns = {r["key"]: r for r in turn_rows(store, space)}
    for row in scenes:  # every scene's turns, their hashes beside them, its hash from them
        assert row["turn_keys"] and set(row["turn_keys"]) <= set(turns)
        assert row["turn_hashes"] == [turns[k]["hash"] for k in row["turn_keys"]]
        assert row["hash"] == composed_hash(memory.embedder, row["turn_hashes"])
        assert row["staged"] is None
    assert store.read("admin/reembed/composed_units", space=space, kind="nothing") == []
    assert store.read("admin/reembed/composed_units", space=space + "-x", kind="scene") == []
    keys = scenes[0]["turn_keys"]
    found = store.read("admin/reembed/turn_vectors", space=space, keys=keys)
    assert [r["key"] for r in found] == keys
    for r in found:
        assert r["embedding"] == node(store, r["key"])["embedding"]
    assert store.read("admin/reembed/turn_vectors", space=space + "-x", keys=keys) == []


@case("admin/reembed/stage_vectors")
@case("admin/reembed/swap_vectors")
def _stage_and_swap(store: GraphStore, space: str, memory: Memory) -> None:
    first, second = turn_rows(store, space)[:2]
    before = node(store, first["key"])
    rows = [{"key": r["key"], "embedding": OTHER.embed([str(r["id"])])[0].tolist(),
             "hash": f"new-{r['id']}"} for r in (first, second)]
    assert store.write("admin/reembed/stage_vectors", space=space + "-x", rows=rows) == [
        {"staged": 0}]  # another space's keys are not touched
    assert store.write("admin/reembed/stage_vectors", space=space, rows=rows) == [
        {"staged": 2}]
    staged = node(store, first["key"])
    assert staged["embedding"] == before["embedding"] and staged["staged"] == "new-" + str(
        first["id"])
    assert len(staged["next"]) == 384  # type: ignore[arg-type]
    # the first one's hash matches: it moves in; the second's does not: only removed
    [row] = store.write("admin/reembed/swap_vectors", space=space,
                        rows=[{"key": first["key"], "hash": rows[0]["hash"]},
                              {"key": second["key"], "hash": "another"}])
    assert row == {"swapped": 1}
    moved, kept = node(store, first["key"]), node(store, second["key"])
    assert moved["embedding"] == staged["next"] and moved["hash"] == rows[0]["hash"]
    assert kept["hash"] == second["hash"] and kept["embedding"] != moved["embedding"]
    assert (moved["next"], moved["staged"], kept["next"], kept["staged"]) == (None,) * 4


@case("admin/reembed/set_vectors")
def _set(store: GraphStore, space: str, memory: Memory) -> None:
    [first] = turn_rows(store, space)[:1]
    vector = OTHER.embed(["set directly"])[0].tolist()
    store.write("admin/reembed/stage_vectors", space=space,
                rows=[{"key": first["key"], "embedding": vector, "hash": "staged"}])
    assert store.write("admin/reembed/set_vectors", space=space,
                       rows=[{"key": first["key"], "embedding": vector, "hash": "set"}]) == [
        {"embedded": 1}]
    after = node(store, first["key"])
    assert after["hash"] == "set" and after["next"] is None and after["staged"] is None
    assert after["embedding"] == pytest.approx(vector, abs=1e-6)


@case("admin/reembed/stamp_embedder")
def _stamp(store: GraphStore, space: str, memory: Memory) -> None:
    [state] = store.read("admin/space_state", space=space, layers=[])
    assert state["embedder"] == memory.embedder.name  # the first writer named it
    assert store.write("admin/reembed/stamp_embedder", space=space, embedder="other") == [
        {"embedder": "other"}]
    assert store.read("admin/space_state", space=space, layers=[])[0]["embedder"] == "other"
    assert store.write("admin/reembed/stamp_embedder", space=space + "-x", embedder="x") == []


@case("admin/reembed/drop_vector_indexes")
def _drop(store: GraphStore, space: str, memory: Memory) -> None:
    dropped = [re.fullmatch(r"DROP INDEX (\w+) IF EXISTS;?", s.strip().splitlines()[-1])
               for s in cypher.statements("admin/reembed/drop_vector_indexes")]
    assert all(dropped)
    assert sorted(m.group(1) for m in dropped if m) == sorted(
        row["name"] for row in store.read("admin/vector_indexes"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
