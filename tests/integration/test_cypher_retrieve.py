"""The files under cypher/retrieve/, one case each: the statement runs on the real Neo4j as
written, with parameters only, and does what its comment says."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from graphmem.client import Memory
from graphmem.ids import turn_id
from graphmem.retrieve.fused.space_index import TURN_FIELDS, turn_rows
from graphmem.retrieve.fused.space_vectors import unit_rows
from graphmem.store import GraphStore

from cypher_support import (
    KEY,
    Case,
    _edu_rows,
    _scenes,
    _units,
    registrar,
    vector,
)
from helpers import SAMPLE, query_rows

# each case runs its statement alone, outside the door graphmem's write paths take
pytestmark = pytest.mark.usefixtures("one_statement_at_a_time")

CASES: dict[str, Case] = {}
case = registrar(CASES)


@case("retrieve/turns_rrf")
def _rrf(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/turns_rrf", space=space, query="pottery class",
                      embedding=vector(memory, "pottery class"), k=5, candidates=20_000,
                      exact=False, rrf_k=60)
    assert rows[0]["source_id"] == "s1:1"
    assert rows[0]["score"] == pytest.approx(2 / 61)  # first in both lists


@case("retrieve/turns_fulltext")
def _fulltext(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/turns_fulltext", space=space, query="kiln", k=5)
    assert [r["source_id"] for r in rows] == ["s3:3"]


@case("retrieve/turns_vector")
def _vector(store: GraphStore, space: str, memory: Memory) -> None:
    for exact in (False, True):  # the index, or a scan of the space: the same nearest turns
        rows = store.read("retrieve/turns_vector", space=space, k=3, candidates=20_000,
                          exact=exact, embedding=vector(memory, "a rescued racing dog"))
        assert len(rows) == 3 and rows[0]["source_id"] == "s2:1"


@case("retrieve/edus_vector")
def _edus_vector(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/edus_vector", space=space, embedding=vector(memory, "greyhound"),
                      k=3, candidates=20_000, exact=False)
    assert len(rows) == 3 and "greyhound" in rows[0]["text"]
    assert rows[0]["turn_ids"] == [turn_id(space, KEY, "s2:1")]


@case("retrieve/arguments_vector")
def _arguments_vector(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/arguments_vector", space=space, k=2, candidates=20_000, exact=False,
                      mentions=[{"text": "lisbon", "embedding": vector(memory, "lisbon")}])
    assert len(rows) == 2 and rows[0]["text"] == "lisbon" and rows[0]["mention"] == "lisbon"


@case("retrieve/mms_units")
def _mms_units(store: GraphStore, space: str, memory: Memory) -> None:
    found = _units(store, space, embedding=vector(memory, "greyhound"), k=3)
    assert len(found) == 3 and "greyhound" in found[0]["context_text"]
    indexed = _units(store, space, embedding=vector(memory, "greyhound"), k=3, exact=False,
                     candidates=20_000)  # a busy database may leave fewer than k for the space
    assert indexed and [r["id"] for r in indexed] == [r["id"] for r in found][:len(indexed)]
    fused = _units(store, space, query="kiln", bm25=True)  # both lists rank every unit
    assert "kiln" in fused[0]["context_text"]
    assert _units(store, "elsewhere") == []


@case("retrieve/ppr_graph_state")
@case("retrieve/ppr_project")
@case("retrieve/ppr_usage")
@case("retrieve/ppr_evict")
@case("retrieve/ppr_forget")
@case("retrieve/ppr_drop")
@case("retrieve/ppr_edus")
def _ppr(store: GraphStore, space: str, memory: Memory) -> None:
    [state] = store.read("retrieve/ppr_graph_state", space=space)
    [space_row] = store.read("admin/space_state", space=space, layers=[])
    assert state["edus"] > 17 and state["revision"] == space_row["revision"]
    assert store.read("retrieve/ppr_graph_state", space="elsewhere") == [
        {"revision": None, "edus": 0}]
    [counts] = query_rows(store, "MATCH (a:Argument {space: $space}) RETURN count(a) AS n",
                          space=space)
    name = f"test-{space}"
    [projected] = store.write("retrieve/ppr_project", space=space, graph=name)
    assert projected["made"] and projected["nodes"] == state["edus"] + counts["n"]
    [again] = store.write("retrieve/ppr_project", space=space, graph=name)
    assert again == {"made": False, "nodes": None}  # found, not made twice
    # a small space's projection stays small (four readers' buffers took ~36 MiB each)
    [size] = query_rows(store, "CALL gds.graph.list($graph) YIELD sizeInBytes "
                        "RETURN sizeInBytes", graph=name)
    assert size["sizeInBytes"] < 16 * 2**20
    [usage] = store.read("retrieve/ppr_usage", prefix=name)
    assert usage["graph"] == name and usage["last_used"] > 0
    seed = _edu_rows(store, space)[0]
    rows = store.read("retrieve/ppr_edus", graph=name, k=5, damping=0.5, iterations=20,
                      tolerance=1e-7, concurrency=1,
                      seeds=[{"element_id": seed["element_id"], "weight": 1.0}])
    assert rows[0]["id"] == seed["id"] and len(rows) == 5
    # used just now: an eviction with an hour's grace keeps it, one with none drops it
    assert store.write("retrieve/ppr_evict", graph=name, grace_ms=3_600_000) == []
    assert store.write("retrieve/ppr_evict", graph=name, grace_ms=0) == [{"graph": name}]
    assert store.read("retrieve/ppr_usage", prefix=name) == []
    # a projection whose maker has not committed its node yet counts from its creation
    fresh = name + "-fresh"
    query_rows(store, "WITH gds.graph.project($g, 1, null) AS g RETURN g.graphName", g=fresh)
    assert store.write("retrieve/ppr_evict", graph=fresh, grace_ms=3_600_000) == []
    assert store.write("retrieve/ppr_evict", graph=fresh, grace_ms=0) == [{"graph": fresh}]
    # a bookkeeping node whose projection is gone is forgotten once past its grace
    store.write("retrieve/ppr_project", space=space, graph=name)
    query_rows(store, "CALL gds.graph.drop($g)", g=name)
    assert store.write("retrieve/ppr_forget", grace_ms=3_600_000)[0]["forgotten"] == 0
    assert store.write("retrieve/ppr_forget", grace_ms=0)[0]["forgotten"] >= 1
    assert query_rows(store, "MATCH (p:Projection {name: $g}) RETURN p", g=name) == []
    store.write("retrieve/ppr_project", space=space, graph=name)
    assert store.write("retrieve/ppr_drop", graph=name) == [{"graph": name}]
    assert store.read("retrieve/ppr_usage", prefix=name) == []
    assert query_rows(store, "MATCH (p:Projection {name: $g}) RETURN p", g=name) == []


@case("retrieve/esmem")
def _esmem(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/esmem", space=space, embedding=vector(memory, "a greyhound"),
                      k=2, candidates=20_000, exact=False, w=0, alpha=0.7, limit=10)
    assert 1 <= len(rows) <= 2  # w = 0: only the anchored events themselves
    assert all(r["turns"] and r["score"] == pytest.approx(0.7 * r["s_sum"] + 0.3 * r["s_ctx"])
               for r in rows)
    assert any("greyhound" in t["text"] for r in rows for t in r["turns"])
    wide = store.read("retrieve/esmem", space=space, embedding=vector(memory, "a greyhound"),
                      k=2, candidates=20_000, exact=False, w=3, alpha=0.7, limit=100)
    assert len(wide) > len(rows)
    assert store.read("retrieve/esmem", space="elsewhere", embedding=vector(memory, "greyhound"),
                      k=2, candidates=20_000, exact=False, w=3, alpha=0.7, limit=10) == []


@case("retrieve/esmem_turns")
def _esmem_turns(store: GraphStore, space: str, memory: Memory) -> None:
    params = dict(embedding=vector(memory, "a greyhound"), k=2, candidates=20_000, exact=False, w=0,
                  alpha=0.7, beta=0.5)
    rows = store.read("retrieve/esmem_turns", space=space, limit=3, **params)
    assert len(rows) == 3 and "greyhound" in rows[0]["text"]
    assert all(r["score"] == pytest.approx(0.5 * r["s_turn"] + 0.5 * r["s_event"]) for r in rows)
    assert [r["score"] for r in rows] == sorted((r["score"] for r in rows), reverse=True)
    assert store.read("retrieve/esmem_turns", space="elsewhere", limit=3, **params) == []


@case("retrieve/profile_scenes")
def _profile_scenes(store: GraphStore, space: str, memory: Memory) -> None:
    every = _scenes(store, space, "dog", memory)
    rows = store.read("retrieve/profile_scenes", space=space, keys=["maya"],
                      embedding=vector(memory, "dog"), k=10)
    assert [r["id"] for r in rows] == [r["id"] for r in every]  # Maya is in every scene
    assert rows[0]["turn_ids"] and rows[0]["participants"]
    assert store.read("retrieve/profile_scenes", space=space, keys=["nobody"],
                      embedding=vector(memory, "dog"), k=10) == []
    assert store.read("retrieve/profile_scenes", space="elsewhere", keys=["maya"],
                      embedding=vector(memory, "dog"), k=10) == []


@case("retrieve/turns_by_id")
def _turns_by_id(store: GraphStore, space: str, memory: Memory) -> None:
    ids = [turn_id(space, KEY, "s2:1"), turn_id(space, KEY, "s1:1")]
    rows = store.read("retrieve/turns_by_id", space=space, ids=ids, scores=[0.5, 0.25])
    assert [(r["id"], r["score"]) for r in rows] == [(ids[0], 0.5), (ids[1], 0.25)]
    assert "greyhound" in rows[0]["text"] and rows[1]["started_at"] is not None
    assert store.read("retrieve/turns_by_id", space="elsewhere", ids=ids, scores=[0, 0]) == []


@case("retrieve/space_turns")
def _space_turns(store: GraphStore, space: str, memory: Memory) -> None:
    sessions = store.read("retrieve/space_turns", space=space)
    assert [s["session_index"] for s in sessions] == sorted(s["session_index"] for s in sessions)
    assert all(len(turn) == len(TURN_FIELDS) for s in sessions for turn in s["turns"])
    rows = turn_rows(sessions)  # a row per turn, each with its session's fields
    assert [r["source_id"] for r in rows][:3] == ["s1:1", "s1:2", "s1:3"]
    assert len(rows) == 17 and [r["session_index"] for r in rows] == sorted(
        r["session_index"] for r in rows)
    assert rows[6]["source_id"] == "s2:1" and rows[6]["position"] == 0
    assert "greyhound" in rows[6]["text"] and rows[6]["started_at"] is not None
    assert all(0.0 <= r["salience"] <= 1.0 for r in rows)
    assert store.read("retrieve/space_turns", space="elsewhere") == []


@case("retrieve/appended_turns")
def _appended_turns(store: GraphStore, space: str, memory: Memory) -> None:
    ids = [turn_id(space, KEY, source) for source in ("s3:2", "s1:4", "s3:1")]
    [noted] = store.write("ingest/note_appends", space=space, turn_ids=None, most=10)
    store.write("ingest/note_appends", space=space, turn_ids=ids, most=10)
    epoch = noted["epoch"]

    def read(start: int, at: str = epoch, where: str = space) -> list[dict[str, Any]]:
        return store.read("retrieve/appended_turns", space=where, epoch=at, **{"from": start})

    [found] = read(0)
    assert found["appended"] == 3
    rows = sorted(turn_rows(found["sessions"]), key=lambda r: r["source_id"])
    assert [r["source_id"] for r in rows] == ["s1:4", "s3:1", "s3:2"]
    whole = {r["id"]: r for r in turn_rows(store.read("retrieve/space_turns", space=space))}
    assert rows == [whole[r["id"]] for r in rows]  # as the whole read gives them
    [later] = read(2)  # what a reader that holds the first two lacks
    assert [r["source_id"] for r in turn_rows(later["sessions"])] == ["s3:1"]
    assert read(3) == [{"appended": 3, "sessions": []}]
    assert read(4) == []  # more than the list holds: not this list
    assert read(0, at="another epoch") == []  # the space changed otherwise: read it whole
    assert read(0, where="elsewhere") == []


@case("retrieve/appended_vectors")
def _appended_vectors(store: GraphStore, space: str, memory: Memory) -> None:
    ids = [turn_id(space, KEY, source) for source in ("s3:2", "s1:4")]
    [noted] = store.write("ingest/note_appends", space=space, turn_ids=None, most=10)
    store.write("ingest/note_appends", space=space, turn_ids=ids, most=10)

    def read(start: int, at: str = noted["epoch"], where: str = space) -> list[dict[str, Any]]:
        return store.read("retrieve/appended_vectors", space=where, epoch=at,
                          **{"from": start})

    [found] = read(0)
    assert found["appended"] == 2
    whole = {u["id"]: u for u in read_units(store, space, ["vector"], vectors=True)}
    assert sorted(t[0] for t in found["turns"]) == sorted(ids)
    for turn, hashed, embedding in found["turns"]:  # as the whole read gives them
        assert (hashed, embedding) == (whole[turn]["hash"], whole[turn]["embedding"])
    assert [t[0] for t in read(1)[0]["turns"]] == ids[1:]
    assert read(2) == [{"appended": 2, "turns": []}] and read(3) == []
    assert read(0, at="another epoch") == [] and read(0, where="elsewhere") == []


def read_units(store: GraphStore, space: str, kinds: list[str],
               vectors: bool) -> list[dict[str, Any]]:
    """``retrieve/space_vectors`` as a row per unit, from its row per kind."""
    found = store.read("retrieve/space_vectors", space=space, kinds=kinds, vectors=vectors)
    assert [r["kind"] for r in found] == sorted(r["kind"] for r in found)
    return unit_rows(found)


@case("retrieve/space_vectors")
def _space_vectors(store: GraphStore, space: str, memory: Memory) -> None:
    kinds = ["vector", "units", "edus", "scenes", "episodes"]
    def read(kinds: list[str], vectors: bool) -> list[dict[str, Any]]:
        return read_units(store, space, kinds, vectors)

    rows = read(kinds, True)
    by_kind = {kind: [r for r in rows if r["kind"] == kind] for kind in kinds}
    assert len(by_kind["vector"]) == 17 and all(len(r["embedding"]) == 384 for r in rows)
    assert all(r["turn_ids"] == [r["id"]] for r in by_kind["vector"])
    assert all(by_kind[kind] for kind in kinds)  # the sample holds every layer
    assert all(r["turn_ids"] for r in rows)  # every unit reaches its turns
    assert all(isinstance(r["hash"], str) and r["hash"] for r in rows)
    assert [r["id"] for r in by_kind["edus"]] == sorted(r["id"] for r in by_kind["edus"])
    dog = vector(memory, "greyhound")
    best = max(by_kind["vector"], key=lambda r: float(np.dot(r["embedding"], dog)))
    assert "greyhound" in query_rows(store, "MATCH (t:Turn {id: $id}) RETURN t.text AS text",
                                     id=best["id"])[0]["text"]
    keys = read(kinds, False)
    assert [{**r, "embedding": None} for r in rows] == keys  # the same rows, no vectors
    merged = by_kind["episodes"][0]["id"]  # a unit merged into another is left out
    query_rows(store, "MATCH (e:Episode {id: $id}) SET e.merged_into = 'x'", id=merged)
    again = read(["episodes", "scenes"], True)
    assert merged not in {r["id"] for r in again} and {r["kind"] for r in again} == {
        "episodes", "scenes"}
    assert store.read("retrieve/space_vectors", space="elsewhere", kinds=kinds,
                      vectors=True) == []


@case("retrieve/turn_statements")
def _turn_statements(store: GraphStore, space: str, memory: Memory) -> None:
    dog, first = turn_id(space, KEY, "s2:1"), turn_id(space, KEY, "s1:1")
    ids = [dog, first, turn_id(space, KEY, "nope")]
    by_name = {r["turn_id"]: r for r in store.read(
        "retrieve/turn_statements", space=space, turn_ids=ids,
        embedding=vector(memory, "a greyhound called Pepper"))}
    assert set(by_name) == {dog, first}  # one row per turn that has a statement
    assert "greyhound" in by_name[dog]["text"] and "adopted" not in by_name[dog]["text"]
    again = store.read("retrieve/turn_statements", space=space, turn_ids=[dog],
                       embedding=vector(memory, "Maya adopted a dog"))
    assert "adopted" in again[0]["text"] and 0.5 < again[0]["score"] <= 1.0
    [row] = query_rows(store, "MATCH (e:EDU {id: $id})-[:FROM_TURN]->(t:Turn) "
                              "RETURN e.kind AS kind, collect(t.id) AS turns", id=again[0]["id"])
    assert row == {"kind": "edu", "turns": [dog]}
    assert store.read("retrieve/turn_statements", space="elsewhere", turn_ids=ids,
                      embedding=vector(memory, "dog")) == []


@case("retrieve/space_statements")
def _space_statements(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("retrieve/space_statements", space=space)
    assert rows and [r["id"] for r in rows] == sorted(r["id"] for r in rows)
    kinds = query_rows(store, "UNWIND $ids AS id MATCH (e:EDU {id: id})-[:FROM_TURN]->(t) "
                              "RETURN id, e.kind AS kind, count(t) AS turns",
                       ids=[r["id"] for r in rows])
    assert {(k["kind"], k["turns"]) for k in kinds} == {("edu", 1)}
    dog = turn_id(space, KEY, "s2:1")
    assert any("greyhound" in r["text"] for r in rows if r["turn_id"] == dog)
    assert store.read("retrieve/space_statements", space="elsewhere") == []


@case("retrieve/space_vectors_by_id")
def _space_vectors_by_id(store: GraphStore, space: str, memory: Memory) -> None:
    kinds = ["vector", "units", "edus", "scenes", "episodes"]
    rows = read_units(store, space, kinds, True)
    wanted = [next(r for r in rows if r["kind"] == kind) for kind in kinds]
    asked = [{"kind": r["kind"], "id": r["id"]} for r in wanted]
    found = store.read("retrieve/space_vectors_by_id", space=space, rows=asked)
    assert [(r["kind"], r["id"], r["hash"], r["embedding"]) for r in found] == \
        [(r["kind"], r["id"], r["hash"], r["embedding"]) for r in wanted]
    # another space's unit, a missing id and a kind's id under another kind give nothing
    assert store.read("retrieve/space_vectors_by_id", space="elsewhere", rows=asked) == []
    odd = [{"kind": "edus", "id": wanted[0]["id"]}, {"kind": "vector", "id": "no such turn"}]
    assert store.read("retrieve/space_vectors_by_id", space=space, rows=odd) == []


@case("retrieve/space_supersessions")
def _space_supersessions(store: GraphStore, space: str, memory: Memory) -> None:
    units = query_rows(store, "MATCH (e:Episode {space: $space})-[:FROM_TURN]->(t:Turn) "
                       "RETURN e.id AS id, collect(t.id) AS turns ORDER BY id", space=space)
    assert len(units) >= 2
    query_rows(store, "MATCH ()-[r:SUPERSEDED_BY]->(:Episode {space: $space}) DELETE r",
               space=space)  # a clean slate, then one supersession of our own
    query_rows(store, "MATCH (a:Episode {id: $a}), (b:Episode {id: $b}) "
               "MERGE (a)-[:SUPERSEDED_BY]->(b)", a=units[0]["id"], b=units[1]["id"])
    rows = store.read("retrieve/space_supersessions", space=space)
    assert {r["old"] for r in rows} == set(units[0]["turns"]) - set(units[1]["turns"])
    assert all(set(r["newer"]) == set(units[1]["turns"]) - {r["old"]} for r in rows)
    assert store.read("retrieve/space_supersessions", space="elsewhere") == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
