"""The files under cypher/ingest/, one case each: the statement runs on the real Neo4j as
written, with parameters only, and does what its comment says."""

from __future__ import annotations

import threading
import time
from datetime import datetime
from typing import Any

import numpy as np
import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.ids import (
    conversation_id,
    forgotten_digest,
    forgotten_digests,
    session_id,
    speaker_id,
    turn_id,
)
from graphmem.store import GraphStore

from cypher_support import (
    KEY,
    Case,
    _edu_rows,
    _episode,
    _episodes,
    _events,
    _scenes,
    _units,
    foreign,
    registrar,
    vector,
)
from helpers import SAMPLE, query_rows

# each case runs its statement alone, outside the door graphmem's write paths take
pytestmark = pytest.mark.usefixtures("one_statement_at_a_time")

CASES: dict[str, Case] = {}
case = registrar(CASES)


@case("ingest/turns/merge_conversation")
def _merge_conversation(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.write("ingest/turns/merge_conversation", space=space,
                       conversation_id=conversation_id(space, "extra"), key="extra",
                       source_format="json",
                       speakers=[{"id": speaker_id(space, "Zoe"), "name": "Zoe"}])
    assert rows == [{"speakers": 1}]
    assert len(memory.spaces()) >= 1


@case("ingest/turns/merge_sessions")
def _merge_sessions(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    row = {"id": session_id(space, KEY, "s9"), "key": "s9", "index": 9, "started_at": None,
           "date_text": None}
    assert store.write("ingest/turns/merge_sessions", space=space, conversation_id=cid,
                       sessions=[row]) == [{"sessions": 1}]
    # another space's id cannot attach sessions to this conversation
    assert store.write("ingest/turns/merge_sessions", space="elsewhere", conversation_id=cid,
                       sessions=[row]) == [{"sessions": 0}]


@case("ingest/turns/merge_turns")
def _merge_turns(store: GraphStore, space: str, memory: Memory) -> None:
    row = {"id": turn_id(space, KEY, "s1:1"), "session_id": session_id(space, KEY, "s1"),
           "speaker_id": speaker_id(space, "Maya"), "order": 0, "speaker": "Maya",
           "text": "Hi Jonas! I finally signed up for the pottery class at the community centre.",
           "source_id": "s1:1", "image_caption": None, "image_url": None}
    before = store.read("admin/space_snapshot", space=space)
    assert store.write("ingest/turns/merge_turns", space=space, turns=[row]) == [{"turns": 1}]
    assert store.read("admin/space_snapshot", space=space) == before  # same values: no change


@case("ingest/set_vectors")
@case("ingest/embedded_hashes")
def _embeddings(store: GraphStore, space: str, memory: Memory) -> None:
    tid = turn_id(space, KEY, "s1:2")
    rows = [{"id": tid, "embedding": vector(memory, "x"), "embedded_hash": "abc"}]
    assert store.write("ingest/set_vectors", space=space,
                       rows=rows) == [{"embedded": 1}]
    assert store.write("ingest/set_vectors", space="elsewhere", rows=rows) == [{"embedded": 0}]
    hashes = {r["id"]: r["embedded_hash"] for r in store.read(
        "ingest/embedded_hashes", space=space,
        ids=[r["id"] for r in query_rows(store, "MATCH (t:Turn {space: $s}) RETURN t.id AS id",
                                         s=space)] + [turn_id("elsewhere", KEY, "s1:2")])}
    assert len(hashes) == 17 and hashes[tid] == "abc"
    # one statement for every embedded label: a node of each, found by its id
    kinds = query_rows(store, "MATCH (n {space: $s}) WHERE n.embedding IS NOT NULL "
                       "WITH labels(n)[0] AS kind, min(n.id) AS id RETURN kind, id", s=space)
    assert {k["kind"] for k in kinds} >= {"Turn", "EDU", "Argument", "Event", "RetrievalUnit"}
    marked = [{"id": k["id"], "embedding": vector(memory, k["kind"]), "embedded_hash": "k"}
              for k in kinds]
    assert store.write("ingest/set_vectors", space=space,
                       rows=marked) == [{"embedded": len(kinds)}]
    assert query_rows(store, "MATCH (n {space: $s}) WHERE n.id IN $ids "
                      "RETURN collect(DISTINCT n.embedded_hash) AS h", s=space,
                      ids=[k["id"] for k in kinds]) == [{"h": ["k"]}]
    # and one reads every label's hashes back, in its own space only
    ids = [k["id"] for k in kinds]
    assert {r["id"]: r["embedded_hash"] for r in store.read(
        "ingest/embedded_hashes", space=space, ids=ids)} == dict.fromkeys(ids, "k")
    assert store.read("ingest/embedded_hashes", space="elsewhere", ids=ids) == []


@case("ingest/turns/link_turns")
@case("admin/turn_neighbours")
def _link(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    assert store.write("ingest/turns/link_turns", space=space,
                       conversation_id=cid) == [{"links": 16}]
    [row] = store.read("admin/turn_neighbours", space=space, conversation_id=cid)
    assert row["chain"][:3] == ["s1:1", "s1:2", "s1:3"] and len(row["chain"]) == 17
    # a chain that holds already is left as it is: nothing written (a live message's
    # transaction writes its own turn's seq and link, not every turn of the conversation)
    with store.driver.session(database=store.database) as session:
        again = session.run(cypher.load("ingest/turns/link_turns"), space=space,
                            conversation_id=cid).consume().counters
    assert (again.properties_set, again.relationships_created,
            again.relationships_deleted) == (0, 0, 0)


@case("ingest/turns/link_appended")
def _link_appended(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)

    def new_turns(session: str, orders: list[int]) -> list[str]:
        rows = [{"id": turn_id(space, KEY, f"{session}:new{o}"),
                 "session_id": session_id(space, KEY, session),
                 "speaker_id": speaker_id(space, "Maya"), "order": o, "speaker": "Maya",
                 "text": f"Turn {o}.", "source_id": f"{session}:new{o}", "image_caption": None,
                 "image_url": None} for o in orders]
        store.write("ingest/turns/merge_turns", space=space, turns=rows)
        return [r["id"] for r in rows]

    def link(session: str, ids: list[str]) -> bool:
        [row] = store.write("ingest/turns/link_appended", space=space, conversation_id=cid,
                            session_id=session_id(space, KEY, session), turn_ids=ids)
        return bool(row["linked"])

    def chain() -> list[tuple[str, int | None]]:
        return [(r["id"], r["seq"]) for r in query_rows(
            store, "MATCH (t:Turn {conversation_id: $c}) "
            "RETURN t.source_id AS id, t.seq AS seq ORDER BY seq", c=cid)]

    before = chain()
    last = before[-1]
    # turns that do not come last in time are left to link_turns: nothing written
    early = new_turns("s1", [50])
    assert not link("s1", early)
    assert chain() == sorted([*before, ("s1:new50", None)], key=lambda x: (x[1] is None, x[1]))
    low = new_turns("s3", [0, 1])
    assert not link("s3", low[:1])  # an order before the session's last turn's
    assert not link("s2", [])  # not the last session
    # appended at the end: numbered after the last turn and chained to it, in the order given
    ids = new_turns("s3", [40, 41])
    assert link("s3", ids)
    rows = query_rows(store, "MATCH (a:Turn {conversation_id: $c})-[:NEXT]->(b:Turn) "
                      "WHERE b.id IN $ids RETURN a.source_id AS a, b.source_id AS b, "
                      "b.seq AS seq ORDER BY seq", c=cid, ids=ids)
    assert rows == [{"a": last[0], "b": "s3:new40", "seq": last[1] + 1},
                    {"a": "s3:new40", "b": "s3:new41", "seq": last[1] + 2}]
    assert not link("s3", ids)  # linked already: a second call writes nothing
    assert not link("s3", [turn_id("elsewhere", KEY, "s3:x")])  # ids of no turn here
    # the full statement agrees with what the short one wrote: it has nothing to change
    for tid in early + low:
        query_rows(store, "MATCH (t:Turn {id: $id}) DETACH DELETE t", id=tid)
    with store.driver.session(database=store.database) as session:
        full = session.run(cypher.load("ingest/turns/link_turns"), space=space,
                           conversation_id=cid)
        assert full.single()["links"] == len(before) + 1
        counters = full.consume().counters
    assert (counters.properties_set, counters.relationships_created,
            counters.relationships_deleted) == (0, 0, 0)
    # a session opened after the last: its first turns follow the previous session's last
    store.write("ingest/turns/merge_sessions", space=space, conversation_id=cid, sessions=[
        {"id": session_id(space, KEY, "s9"), "key": "s9", "index": 9,
         "started_at": datetime(2099, 1, 1), "date_text": None}])
    later = new_turns("s9", [0])
    assert link("s9", later)
    assert chain()[-2:] == [("s3:new41", last[1] + 2), ("s9:new0", last[1] + 3)]


@case("ingest/mark_layers")
@case("admin/upgrade_session_layers")
def _mark_layers(store: GraphStore, space: str, memory: Memory) -> None:
    sid = session_id(space, KEY, "s1")
    layers = query_rows(store, "MATCH (s:Session {id: $id}) RETURN s.layers AS l", id=sid)
    assert layers == [{"l": ["turns", "edus", "events", "segments", "scenes", "episodes"]}]
    query_rows(store, "MATCH (s:Session {id: $id}) REMOVE s.layers", id=sid)
    [row] = store.write("admin/upgrade_session_layers")
    assert row["upgraded"] >= 1  # read from what hangs off the session
    assert query_rows(store, "MATCH (s:Session {id: $id}) RETURN s.layers AS l", id=sid) == layers
    [row] = store.write("ingest/mark_layers", space=space, session_ids=[sid],
                        layers=["extra", "turns"],
                        known=["turns", "extra", "edus", "events", "segments"])
    assert row == {"sessions": 1}
    assert query_rows(store, "MATCH (s:Session {id: $id}) RETURN s.layers AS l", id=sid) == [
        {"l": ["turns", "extra", "edus", "events", "segments", "scenes", "episodes"]}]
    # kept, added, known ones in known order, then those this process does not know
    assert store.write("ingest/mark_layers", space="elsewhere", session_ids=[sid],
                       layers=["x"], known=["x"]) == [{"sessions": 0}]
    # a process without the "extra" plug-in keeps what it does not know
    store.write("ingest/mark_layers", space=space, session_ids=[sid], layers=["turns"],
                known=["turns", "edus", "events", "segments", "scenes", "episodes"])
    assert query_rows(store, "MATCH (s:Session {id: $id}) RETURN s.layers AS l", id=sid) == [
        {"l": ["turns", "edus", "events", "segments", "scenes", "episodes", "extra"]}]


@case("ingest/lock_space")
def _lock_space(store: GraphStore, space: str, memory: Memory) -> None:
    text = cypher.load("ingest/lock_space")
    done: list[str] = []
    [before] = store.read("admin/space_state", space=space, layers=[])
    with store.driver.session(database=store.database) as first:
        tx = first.begin_transaction()
        locked = tx.run(text, space=space, embedder=None).single()
        assert locked is not None and locked["space"] == space
        assert locked["embedder"] == memory.embedder.name  # named by the ingest, kept

        def second(name: str) -> None:
            with store.driver.session(database=store.database) as other:
                other.execute_write(lambda t: t.run(text, space=name, embedder="x").consume())
            done.append(name)

        waiting = threading.Thread(target=second, args=(space,))
        elsewhere = threading.Thread(target=second, args=(f"{space}-other",))
        waiting.start()
        elsewhere.start()
        elsewhere.join(timeout=30)
        time.sleep(0.5)
        assert done == [f"{space}-other"]  # another space's writer is not held
        tx.commit()
        waiting.join(timeout=30)
    assert done == [f"{space}-other", space]  # this one went on once the first committed
    [after] = store.read("admin/space_state", space=space, layers=[])
    # each writer gave the space a new revision: the second one's is what stays
    assert after["revision"] not in (before["revision"], locked["revision"], None)
    # the first writer that embeds names the embedder; a later one never renames it
    assert after["embedder"] == memory.embedder.name
    assert store.read("admin/space_state", space=f"{space}-other",
                      layers=[])[0]["embedder"] == "x"
    store.run_autocommit("admin/delete_space", space=f"{space}-other")


@case("ingest/conversation_records")
def _conversation_records(store: GraphStore, space: str, memory: Memory) -> None:
    [row] = store.read("ingest/conversation_records", space=space, conversation_id=None)
    assert row["conversation"] == KEY and [s["key"] for s in row["sessions"]] == ["s1", "s2",
                                                                                   "s3"]
    first = row["sessions"][0]["turns"]
    assert [t["order"] for t in first] == list(range(len(first)))
    assert first[0]["source_id"] == "s1:1" and first[0]["speaker"] == "Maya"
    assert store.read("ingest/conversation_records", space="elsewhere",
                      conversation_id=None) == []
    assert store.read("ingest/conversation_records", space=space,
                      conversation_id=conversation_id(space, "other")) == []
    [one] = store.read("ingest/conversation_records", space=space,
                       conversation_id=conversation_id(space, KEY))
    assert one == row


@case("ingest/edus/conversation_edus")
def _conversation_edus(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("ingest/edus/conversation_edus", space=space,
                      conversation_id=conversation_id(space, KEY))
    assert len(rows) == len(_edu_rows(store, space))
    assert rows[0]["session_id"].endswith("/s1") and rows[-1]["session_id"].endswith("/s3")
    assert any("pottery class" in r["arguments"] for r in rows)
    assert store.read("ingest/edus/conversation_edus", space="elsewhere",
                      conversation_id=conversation_id(space, KEY)) == []


@case("ingest/edus/merge_edus")
def _merge_edus(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    hashes = store.read("ingest/embedded_hashes", space=space,
                        ids=[r["id"] for r in _edu_rows(store, space)] + [f"{cid}#nothing~0"])
    edu = {"id": f"{cid}#extra~0", "session_id": session_id(space, KEY, "s1"),
           "conversation_id": cid, "kind": "edu", "text": "Maya likes clay.",
           "rendered": "Maya likes clay.", "speaker": "Maya", "order": 99,
           "source_ids": ["s1:1"], "source_turn_ids": [turn_id(space, KEY, "s1:1")]}
    assert store.write("ingest/edus/merge_edus", space=space, edus=[edu]) == [{"edus": 1}]
    assert len(hashes) == len(_edu_rows(store, space))  # every stored EDU has an embedding


@case("ingest/edus/prune_edus")
def _prune(store: GraphStore, space: str, memory: Memory) -> None:
    before = len(_edu_rows(store, space))
    keep = [r["id"] for r in _edu_rows(store, space) if r["session_id"].endswith("s1")]
    [row] = store.write("ingest/edus/prune_edus", space=space,
                        session_ids=[session_id(space, KEY, "s3")], keep=keep)
    assert row["pruned"] > 0 and len(_edu_rows(store, space)) == before - row["pruned"]


@case("ingest/edus/space_arguments")
@case("ingest/edus/merge_arguments")
@case("ingest/edus/link_arguments")
@case("ingest/edus/prune_argument_links")
@case("ingest/edus/merge_synonyms")
def _arguments(store: GraphStore, space: str, memory: Memory) -> None:
    args = store.read("ingest/edus/space_arguments", space=space)
    assert args and all(len(a["embedding"]) == 384 for a in args)
    first, second = sorted(a["id"] for a in args)[:2]
    [row] = store.write("ingest/edus/merge_synonyms", space=space,
                        pairs=[{"source": first, "target": second, "score": 0.95}])
    assert row == {"synonyms": 1}
    edu = _edu_rows(store, space)[0]["id"]
    assert store.write("ingest/edus/merge_arguments", space=space,
                       arguments=[{"id": first, "text": "x"}]) == [{"arguments": 1}]
    assert store.write("ingest/edus/link_arguments", space=space,
                       links=[{"edu_id": edu, "argument_id": first}]) == [{"links": 1}]
    linked = "MATCH (:EDU {id: $e})-[:HAS_ARGUMENT]->(a) RETURN a.id AS id ORDER BY id"
    assert {"id": first} in query_rows(store, linked, e=edu)
    store.write("ingest/edus/prune_argument_links", space=space, edu_ids=[edu],
                links=[{"edu_id": edu, "argument_id": first}])
    assert query_rows(store, linked, e=edu) == [{"id": first}]  # only the named link is left
    assert store.write("ingest/edus/prune_argument_links", space="elsewhere", edu_ids=[edu],
                       links=[]) == [{"dropped": 0}]
    assert store.write("ingest/set_vectors", space=space, rows=[
        {"id": first, "embedding": vector(memory, "clay"), "embedded_hash": "h"}]) == [
        {"embedded": 1}]


@case("ingest/segments/merge_units")
def _merge_units(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    ids = [r["id"] for r in query_rows(store, "MATCH (r:RetrievalUnit {space: $s}) "
                                       "RETURN r.id AS id", s=space)]
    # every stored unit has an embedding
    assert len(store.read("ingest/embedded_hashes", space=space,
                          ids=[*ids, "x"])) == len(_units(store, space)) == 17
    unit = {"id": f"{cid}#r~extra", "context_id": f"{cid}#c~extra",
            "session_id": session_id(space, KEY, "s1"), "conversation_id": cid, "order": 99,
            "round": "Maya: clay", "keywords": ["clay"], "perspectives": ["What does Maya like?"],
            "episodic": [], "semantic": ["Maya likes clay."], "retrieval_text": "clay, Maya",
            "context_text": "Maya: clay", "source_ids": ["s1:1", "s1:2"],
            "source_turn_ids": [turn_id(space, KEY, "s1:1"), turn_id(space, KEY, "s1:2")]}
    assert store.write("ingest/segments/merge_units", space=space, units=[unit]) == [{"units": 1}]
    assert store.write("ingest/segments/merge_units", space="elsewhere",
                       units=[unit]) == [{"units": 0}]
    assert store.write("ingest/set_vectors", space=space, rows=[
        {"id": unit["id"], "embedding": vector(memory, "clay"), "embedded_hash": "h"}]) == [
        {"embedded": 1}]
    [found] = [r for r in _units(store, space) if r["id"] == unit["id"]]
    assert found["context_id"] == unit["context_id"] and found["context_text"] == "Maya: clay"
    assert [t["source_id"] for t in found["turns"]] == ["s1:1", "s1:2"]  # in spoken order


@case("ingest/segments/prune_units")
def _prune_units(store: GraphStore, space: str, memory: Memory) -> None:
    keep = [r["id"] for r in _units(store, space) if not r["session_id"].endswith("s3")]
    [row] = store.write("ingest/segments/prune_units", space=space,
                        session_ids=[session_id(space, KEY, "s3")], keep=keep)
    assert row == {"pruned": 5} and len(_units(store, space)) == 12
    left = "MATCH (c:ContextUnit {space: $space}) RETURN count(c) AS n"
    assert query_rows(store, left, space=space) == [{"n": 12}]  # context units went too


@case("ingest/events/conversation_events")
def _conversation_events(store: GraphStore, space: str, memory: Memory) -> None:
    rows = _events(store, space)
    assert len(rows) >= 3  # at least one event per session
    assert [r["session_id"] for r in rows] == sorted(r["session_id"] for r in rows)
    assert all(r["boundary_id"] == f"{r['id']}/boundary" for r in rows)
    assert all(1 <= len(r["first_turns"]) <= 2 and r["embedded_hash"] for r in rows)
    assert rows[0]["first_turns"][0]["text"].startswith("Hi Jonas!")
    assert rows[0]["first_turns"][0]["id"] == turn_id(space, KEY, "s1:1")
    assert store.read("ingest/events/conversation_events", space="elsewhere",
                      conversation_id=conversation_id(space, KEY), context=2) == []


@case("ingest/events/merge_events")
def _merge_events(store: GraphStore, space: str, memory: Memory) -> None:
    sid = session_id(space, KEY, "s3")
    row = {"id": f"{sid}/event/extra", "session_id": sid,
           "conversation_id": conversation_id(space, KEY), "order": 99, "name": "mugs",
           "summary": "mugs; kiln", "topics": ["mugs"], "keywords": ["mug", "kiln"],
           "source_ids": ["s3:1"], "source_turn_ids": [turn_id(space, KEY, "s3:1")],
           "started_at": None, "date_text": None}
    assert store.write("ingest/events/merge_events", space=space, events=[row]) == [{"events": 1}]
    assert store.write("ingest/events/merge_events", space="elsewhere",
                       events=[row]) == [{"events": 0}]
    rows = [{"id": row["id"], "embedding": vector(memory, "mugs"), "embedded_hash": "h"}]
    assert store.write("ingest/set_vectors", space=space,
                       rows=rows) == [{"embedded": 1}]
    assert store.write("ingest/set_vectors", space="elsewhere",
                       rows=rows) == [{"embedded": 0}]


@case("ingest/events/merge_boundaries")
@case("ingest/events/prune_events")
@case("ingest/events/link_events")
def _boundaries_prune_link(store: GraphStore, space: str, memory: Memory) -> None:
    rows = _events(store, space)
    first, second = rows[0], rows[1]
    boundary = {"id": second["boundary_id"], "conversation_id": conversation_id(space, KEY),
                "opens": second["id"], "kind": "topic", "name": "→ test",
                "description": "a new description", "p_eb": 0.9,
                "source_turn_ids": [first["last_turns"][-1]["id"]]}
    assert store.write("ingest/events/merge_boundaries", space=space,
                       boundaries=[boundary]) == [{"boundaries": 1}]
    assert query_rows(store, "MATCH (b:Boundary {id: $id})-[:FROM_TURN]->(t) RETURN t.id AS id",
                id=boundary["id"]) == [{"id": first["last_turns"][-1]["id"]}]
    # prune: keep only the first session's events; the rest of the conversation's boundaries go
    keep = [r["id"] for r in rows if r["session_id"] == first["session_id"]]
    store.write("ingest/events/prune_events", space=space,
                conversation_id=conversation_id(space, KEY),
                session_ids=[r["session_id"] for r in rows], keep_events=keep,
                keep_boundaries=[f"{e}/boundary" for e in keep], event_turns=[])
    left = _events(store, space)
    assert [r["id"] for r in left] == keep
    [chain] = store.write("ingest/events/link_events", space=space,
                          conversation_id=conversation_id(space, KEY))
    assert chain["events"] == len(keep)


@case("ingest/turns/turn_vectors")
def _turn_vectors(store: GraphStore, space: str, memory: Memory) -> None:
    rows = store.read("ingest/turns/turn_vectors", space=space,
                      conversation_id=conversation_id(space, KEY))
    assert len(rows) == 17 and all(len(r["embedding"]) == 384 for r in rows)
    assert store.read("ingest/turns/turn_vectors", space="elsewhere",
                      conversation_id=conversation_id(space, KEY)) == []


@case("ingest/scenes/space_characters")
@case("retrieve/space_characters")
@case("ingest/scenes/merge_characters")
def _characters(store: GraphStore, space: str, memory: Memory) -> None:
    known = store.read("ingest/scenes/space_characters", space=space)
    assert known == [{"key": "jonas", "name": "Jonas", "aliases": []},
                     {"key": "maya", "name": "Maya", "aliases": []}]
    row = {"id": f"{space}/%pepper", "key": "pepper", "name": "Pepper", "aliases": [],
           "speaker_id": None}
    assert store.write("ingest/scenes/merge_characters", space=space, characters=[row]) == [
        {"characters": 1}]
    ids = query_rows(store, "MATCH (ch:Character {space: $space, key: 'maya'})"
                     "-[:SPEAKS_AS]->(s) RETURN ch.id AS character, s.id AS speaker",
                     space=space)[0]
    store.write("ingest/scenes/merge_characters", space=space, characters=[
        {"id": ids["character"], "key": "maya", "name": "Maya", "aliases": ["may"],
         "speaker_id": ids["speaker"]}])  # the aliases land on the character and the speaker
    assert store.read("retrieve/space_characters", space=space)[1]["aliases"] == ["may"]
    assert query_rows(store, "MATCH (s:Speaker {id: $id}) RETURN s.aliases AS a",
                      id=ids["speaker"]) == [{"a": ["may"]}]
    speakers = query_rows(store, "MATCH (:Character {space: $space})-[:SPEAKS_AS]->(s) "
                          "RETURN count(s) AS n", space=space)
    assert speakers == [{"n": 2}]  # a person only mentioned speaks as nobody
    assert store.read("ingest/scenes/space_characters", space=space)[-1]["key"] == "pepper"
    assert [r["key"] for r in store.read("retrieve/space_characters", space=space)] == [
        "jonas", "maya", "pepper"]
    assert store.read("retrieve/space_characters", space="elsewhere") == []


@case("ingest/scenes/merge_scenes")
@case("ingest/scenes/scene_embedding_hashes")
@case("retrieve/scenes_vector")
def _merge_scenes(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    stored = store.read("ingest/scenes/scene_embedding_hashes", space=space, conversation_id=cid)
    assert len(stored) == len(_scenes(store, space, "dog", memory)) + 2  # and two profiles
    scene = {"id": f"{cid}#scene~extra", "conversation_id": cid, "order": 9,
             "summary": "Maya's greyhound Pepper", "title": "Pepper", "started_at": None,
             "ended_at": None, "place": "Bristol", "participants": ["Maya"], "source_ids": ["s2:1"],
             "source_turn_ids": [turn_id(space, KEY, "s2:1")],
             "roles": [{"character_id": f"{space}/%maya", "role": "main"}]}
    assert store.write("ingest/scenes/merge_scenes", space=space, scenes=[scene]) == [{"scenes": 1}]
    assert store.write("ingest/scenes/merge_scenes", space="elsewhere", scenes=[scene]) == [
        {"scenes": 0}]
    assert store.write("ingest/set_vectors", space=space, rows=[
        {"id": scene["id"], "embedding": vector(memory, scene["summary"]),
         "embedded_hash": "h"}]) == [{"embedded": 1}]
    top = _scenes(store, space, "Pepper the greyhound", memory, k=1)[0]
    assert top["id"] == scene["id"] and top["place"] == "Bristol"
    assert top["turn_ids"] == [turn_id(space, KEY, "s2:1")] and top["participants"] == ["Maya"]
    roles = query_rows(store, "MATCH (c:Character)-[r:IN_SCENE]->(:Scene {id: $id}) "
                       "RETURN c.name AS name, r.role AS role", id=scene["id"])
    assert roles == [{"name": "Maya", "role": "main"}]
    indexed = _scenes(store, space, "dog", memory, exact=False, candidates=1000)
    assert indexed and _scenes(store, "elsewhere", "dog", memory) == []


@case("ingest/scenes/merge_profiles")
def _merge_profiles(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    scene_id = _scenes(store, space, "running", memory)[0]["id"]
    profile = {"id": f"{cid}#profile~extra", "character_id": f"{space}/%jonas",
               "conversation_id": cid, "name": "Jonas", "text": "Jonas runs.",
               "scenes": [{"id": scene_id, "order": 0, "role": "main"}],
               "source_ids": ["s1:4"], "source_turn_ids": [turn_id(space, KEY, "s1:4")]}
    assert store.write("ingest/scenes/merge_profiles", space=space, profiles=[profile]) == [
        {"profiles": 1}]
    assert store.write("ingest/set_vectors", space=space, rows=[
        {"id": profile["id"], "embedding": vector(memory, "Jonas runs."),
         "embedded_hash": "h"}]) == [{"embedded": 1}]
    rows = query_rows(store, """
        MATCH (:Character {id: $character})-[:HAS_PROFILE]->(p:Profile {id: $id})
        MATCH (p)-[f:FEATURES]->(sc:Scene), (p)-[:FROM_TURN]->(t:Turn)
        RETURN sc.id AS scene, f.role AS role, t.source_id AS turn, p.embedded_hash AS hash""",
        character=profile["character_id"], id=profile["id"])
    assert rows == [{"scene": scene_id, "role": "main", "turn": "s1:4", "hash": "h"}]
    moved = {**profile, "source_ids": ["s1:2"], "source_turn_ids": [turn_id(space, KEY, "s1:2")]}
    store.write("ingest/scenes/merge_profiles", space=space, profiles=[moved])
    assert query_rows(store, "MATCH (:Profile {id: $id})-[:FROM_TURN]->(t) "
                      "RETURN t.source_id AS turn", id=profile["id"]) == [{"turn": "s1:2"}]


@case("ingest/scenes/prune_scenes")
@case("ingest/scenes/prune_characters")
def _prune_scenes(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    scenes = [r["id"] for r in _scenes(store, space, "dog", memory)]
    [row] = store.write("ingest/scenes/prune_scenes", space=space, conversation_id=cid,
                        scenes=scenes[:1], profiles=[])
    assert row == {"scenes": len(scenes) - 1, "profiles": 2}
    assert [r["id"] for r in _scenes(store, space, "dog", memory)] == scenes[:1]
    assert store.write("ingest/scenes/prune_characters", space=space) == [{"pruned": 0}]
    store.write("ingest/scenes/prune_scenes", space=space, conversation_id=cid, scenes=[],
                profiles=[])
    assert store.write("ingest/scenes/prune_characters", space=space) == [{"pruned": 2}]


@case("ingest/episodes/set_salience")
def _set_salience(store: GraphStore, space: str, memory: Memory) -> None:
    scored = query_rows(store, "MATCH (t:Turn {space: $space}) WHERE t.salience IS NULL "
                        "RETURN count(t) AS n", space=space)
    assert scored == [{"n": 0}]  # the ingest scored every turn
    tid = turn_id(space, KEY, "s1:1")
    assert store.write("ingest/episodes/set_salience", space=space, rows=[
        {"id": tid, "salience": 0.42}]) == [{"scored": 1}]
    assert store.write("ingest/episodes/set_salience", space="elsewhere", rows=[
        {"id": tid, "salience": 0.1}]) == [{"scored": 0}]
    assert query_rows(store, "MATCH (t:Turn {id: $id}) RETURN t.salience AS s", id=tid) == [
        {"s": 0.42}]


@case("ingest/episodes/merge_episodes")
@case("ingest/episodes/episode_state")
@case("retrieve/episodes_vector")
@case("retrieve/episodes_by_id")
def _merge_episodes(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    [before] = store.read("ingest/episodes/episode_state", space=space, conversation_id=cid)
    unit = _episode(space, "extra", "Pepper won a gold medal at the county dog show")
    assert store.write("ingest/episodes/merge_episodes", space=space,
                       units=[unit]) == [{"units": 1}]
    assert store.write("ingest/episodes/merge_episodes", space="elsewhere", units=[unit]) == [
        {"units": 0}]
    assert store.write("ingest/set_vectors", space=space, rows=[
        {"id": unit["id"], "embedding": vector(memory, unit["representation"]),
         "embedded_hash": "h"}]) == [{"embedded": 1}]
    [after] = store.read("ingest/episodes/episode_state", space=space, conversation_id=cid)
    assert len(after["units"]) == len(before["units"]) + 1
    assert {"id": unit["id"], "representation": unit["representation"], "embedded_hash": "h",
            "merged_into": None} in after["units"]
    top = _episodes(store, space, "a gold medal at the dog show", memory, k=1)[0]
    assert top["id"] == unit["id"] and top["importance"] == 0.9
    assert top["turns"] == [{"id": turn_id(space, KEY, "s2:1"), "source_id": "s2:1"}]
    assert _episodes(store, space, "dog", memory, exact=False, candidates=1000)
    assert _episodes(store, "elsewhere", "dog", memory) == []
    [by_id] = store.read("retrieve/episodes_by_id", space=space, ids=[unit["id"]],
                         embedding=vector(memory, "greyhound"))
    assert by_id["id"] == unit["id"] and 0 < by_id["score"] <= 1
    assert store.read("retrieve/episodes_by_id", space="elsewhere", ids=[unit["id"]],
                      embedding=vector(memory, "greyhound")) == []


@case("ingest/episodes/link_episodes")
def _link_episodes(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    a, b, c = (_episode(space, k, f"Pepper fact {k}") for k in ("a", "b", "c"))
    store.write("ingest/episodes/merge_episodes", space=space, units=[a, b, c])
    for u in (a, b, c):
        store.write("ingest/set_vectors", space=space, rows=[
            {"id": u["id"], "embedding": vector(memory, u["content"]), "embedded_hash": "h"}])
    [row] = store.write("ingest/episodes/link_episodes", space=space, conversation_id=cid,
                        related=[{"a": a["id"], "b": b["id"], "score": 0.8}],
                        superseded=[{"old": a["id"], "new": b["id"]}],
                        merged=[{"dup": c["id"], "into": a["id"]}], operations=7,
                        reorganised=False)
    assert row == {"operations": 7}
    [state] = store.read("ingest/episodes/episode_state", space=space, conversation_id=cid)
    assert state["operations"] == 7 and state["reorganised_at"] is None
    assert {"type": "RELATED", "a": a["id"], "b": b["id"]} in state["edges"]
    assert {"type": "SUPERSEDED_BY", "a": a["id"], "b": b["id"]} in state["edges"]
    rows = {r["id"]: r for r in _episodes(store, space, "Pepper fact", memory)}
    assert rows[a["id"]]["superseded_by"] == b["id"]  # the merged unit c is not searched
    store.write("ingest/episodes/link_episodes", space=space, conversation_id=cid, related=[],
                superseded=[], merged=[], operations=0, reorganised=True)
    [state] = store.read("ingest/episodes/episode_state", space=space, conversation_id=cid)
    assert state["edges"] == [] and state["reorganised_at"] is not None


@case("ingest/episodes/prune_episodes")
def _prune_episodes(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    ids = [u["id"] for u in store.read("ingest/episodes/episode_state", space=space,
                                       conversation_id=cid)[0]["units"]]
    assert ids  # the ingest admitted some turns
    [row] = store.write("ingest/episodes/prune_episodes", space=space, conversation_id=cid,
                        keep=ids[:1])
    assert row == {"pruned": len(ids) - 1}
    left = store.read("ingest/episodes/episode_state", space=space, conversation_id=cid)[0]["units"]
    assert [u["id"] for u in left] == ids[:1]
    assert query_rows(store, "MATCH (t:Turn {space: $space}) RETURN count(t) AS n",
                      space=space) == [{"n": 17}]  # the turns stay


@case("ingest/edus/known_arguments")
def _known_arguments(store: GraphStore, space: str, memory: Memory) -> None:
    ids = [a["id"] for a in store.read("ingest/edus/space_arguments", space=space)]
    [row] = store.read("ingest/edus/known_arguments", space=space, ids=[ids[0], f"{space}/arg/zz"])
    assert row == {"known": [ids[0]], "stored": len(ids)}
    [other] = store.read("ingest/edus/known_arguments", space="elsewhere", ids=ids[:1])
    assert other == {"known": [], "stored": 0}


@case("ingest/edus/argument_neighbours")
def _argument_neighbours(store: GraphStore, space: str, memory: Memory) -> None:
    args = store.read("ingest/edus/space_arguments", space=space)
    ids = [a["id"] for a in args]
    vectors = np.array([a["embedding"] for a in args], dtype=np.float32)
    probe = {"id": f"{space}/arg/new", "embedding": args[0]["embedding"]}
    rows = store.read("ingest/edus/argument_neighbours", space=space, rows=[probe], threshold=0.3,
                      cap=5)
    cosines = vectors @ vectors[0]
    expected = sorted(((float(c), i) for c, i in zip(cosines, ids, strict=True) if c >= 0.3),
                      key=lambda x: (-x[0], x[1]))[:5]
    assert [r["target"] for r in rows] == [i for _, i in expected]  # exact, closest first
    assert rows[0]["target"] == ids[0] and rows[0]["cosine"] == pytest.approx(1.0, abs=1e-5)
    assert [r["cosine"] for r in rows] == pytest.approx([c for c, _ in expected], abs=1e-5)
    assert store.read("ingest/edus/argument_neighbours", space="elsewhere", rows=[probe],
                      threshold=0.3, cap=5) == []


@case("ingest/live_session")
def _live_session(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    known = [turn_id(space, KEY, "s1:1"), turn_id(space, KEY, "nope")]
    digests = [forgotten_digests(t, "a-deployment-key") for t in known]
    # forgotten before the key was set: its plain digest alone is held, and still refuses
    store.write("ingest/forget_ids", space=space, digests=[[forgotten_digest(known[1])]],
                refuse=True)
    [row] = store.read("ingest/live_session", space=space, conversation_id=cid, session=None,
                       turn_ids=known, digests=digests, whole=True)
    assert row["exists"] and row["pending"] == [] and row["last_index"] == 2
    assert row["session"]["key"] == "s3" and row["session"]["last_message_at"] is None
    assert sorted(t["order"] for t in row["session"]["turns"]) == list(range(5))
    assert row["stored_turn_ids"] == known[:1] and row["forgotten_turn_ids"] == known[1:]
    [named] = store.read("ingest/live_session", space=space, conversation_id=cid,
                         session="s1", turn_ids=[], digests=[], whole=True)
    assert named["session"]["key"] == "s1" and named["session"]["turns"][0]["text"]
    assert named["forgotten_turn_ids"] == []
    [slim] = store.read("ingest/live_session", space=space, conversation_id=cid,
                        session="s1", turn_ids=[], digests=[], whole=False)
    assert slim["session"]["turns"] == []  # appending reads no turn of the session
    assert slim["session"]["last_order"] == max(t["order"] for t in named["session"]["turns"])
    assert slim["session"]["size"] == len(named["session"]["turns"])
    [none] = store.read("ingest/live_session", space=space,
                        conversation_id=conversation_id(space, "other"), session=None,
                        turn_ids=known, digests=digests, whole=False)
    assert (none["exists"], none["last_index"], none["session"]) == (False, -1, None)
    assert none["stored_turn_ids"] == known[:1]  # ids are global: the caller builds them


@case("ingest/stored_turns")
def _stored_turns(store: GraphStore, space: str, memory: Memory) -> None:
    ids = [turn_id(space, KEY, "s1:1"), turn_id(space, KEY, "nope"),
           turn_id("elsewhere", KEY, "s1:1")]
    assert store.read("ingest/stored_turns", ids=ids) == [{"stored": ids[:1]}]
    assert store.read("ingest/stored_turns", ids=[]) == [{"stored": []}]


@case("ingest/forget_ids")
def _forget_ids(store: GraphStore, space: str, memory: Memory) -> None:
    first, second = forgotten_digests("a", None), forgotten_digests("b", "key")
    assert store.write("ingest/forget_ids", space=space, digests=[first, first],
                       refuse=True) == [{"forgotten": 1}]  # once each
    assert store.write("ingest/forget_ids", space=space, digests=[first, second],
                       refuse=True) == [{"forgotten": 2}]  # the keyed one, not the plain
    [held] = query_rows(store, "MATCH (sp:Space {id: $space}) RETURN sp.forgotten AS f",
                        space=space)
    assert held == {"f": [first[0], second[0]]} and second[0] != forgotten_digest("b")
    again = [forgotten_digests("a", "k")]  # the keyed one first, then the plain one
    assert store.write("ingest/forget_ids", space=space, digests=again,
                       refuse=False) == [{"forgotten": 1}]  # may be used again: either form
    [kept] = query_rows(store, "MATCH (sp:Space {id: $space}) RETURN sp.forgotten AS f",
                        space=space)
    assert kept == {"f": [second[0]]}
    assert store.write("ingest/forget_ids", space="no-such-space", digests=[first],
                       refuse=True) == []


@case("ingest/mark_rederive")
def _mark_rederive(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    # nothing held besides the turns: nothing waits, no session is named
    [row] = store.write("ingest/mark_rederive", space=space, conversation_id=cid, pending=[])
    assert row == {"pending": [], "sessions": []}
    [row] = store.write("ingest/mark_rederive", space=space, conversation_id=cid,
                        pending=["edus", "events"])
    assert row["pending"] == ["edus", "events"] and sorted(row["sessions"]) == ["s1", "s2", "s3"]
    [row] = store.write("ingest/mark_rederive", space=space, conversation_id=cid,
                        pending=["events", "scenes"])  # added once each
    assert row["pending"] == ["edus", "events", "scenes"] and len(row["sessions"]) == 3
    assert store.read("ingest/pending_conversations", space=space, conversation_id=cid)[0][
        "pending"] == ["edus", "events", "scenes"]
    assert store.write("ingest/mark_rederive", space="elsewhere", conversation_id=cid,
                       pending=["edus"]) == []


@case("ingest/mark_live")
@case("ingest/clear_pending")
@case("ingest/pending_conversations")
def _pending(store: GraphStore, space: str, memory: Memory) -> None:
    cid, sid = conversation_id(space, KEY), session_id(space, KEY, "s3")
    assert store.read("ingest/pending_conversations", space=space, conversation_id=None) == []
    for n, pending in enumerate((["scenes"], ["scenes", "episodes"]), 1):
        [row] = store.write("ingest/mark_live", space=space, conversation_id=cid,
                            session_id=sid, last_message_at=datetime(2024, 4, 1, 9, 30),
                            pending=pending, sessions=["s3"])
        assert row == {"session": sid, "pending": ["scenes", "episodes"][:n],
                       "sessions": ["s3"], "version": n}
    [node] = query_rows(store, "MATCH (c:Conversation {id: $id}) RETURN elementId(c) AS n",
                        id=cid)
    assert store.read("ingest/pending_conversations", space=space, conversation_id=cid) == [
        {"conversation": KEY, "pending": ["scenes", "episodes"], "sessions": ["s3"],
         "version": 2, "erased": 0, "node": node["n"]}]
    assert store.read("ingest/pending_conversations", space="elsewhere",
                      conversation_id=None) == []
    # a refresh that read version 1 clears nothing: a message came after it read
    [row] = store.write("ingest/clear_pending", space=space, conversation_id=cid,
                        layers=["scenes"], sessions=["s3"], version=1)
    assert row == {"conversation": cid, "cleared": False, "pending": ["scenes", "episodes"],
                   "sessions": ["s3"]}
    [row] = store.write("ingest/clear_pending", space=space, conversation_id=cid,
                        layers=["scenes"], sessions=[], version=2)
    assert row == {"conversation": cid, "cleared": True, "pending": ["episodes"],
                   "sessions": ["s3"]}
    store.write("ingest/clear_pending", space=space, conversation_id=cid,
                layers=["episodes"], sessions=["s3"], version=2)
    assert store.read("ingest/pending_conversations", space=space, conversation_id=None) == []
    assert query_rows(store, "MATCH (s:Session {id: $id}) RETURN s.last_message_at.hour AS h",
                      id=sid) == [{"h": 9}]


@case("ingest/note_appends")
def _note_appends(store: GraphStore, space: str, memory: Memory) -> None:
    def note(ids: list[str] | None, most: int = 3, where: str = space) -> list[dict[str, Any]]:
        return store.write("ingest/note_appends", space=where, turn_ids=ids, most=most)

    [first] = note(None)  # a change that was not only an append: a new epoch, nothing listed
    assert first["appended"] == 0 and len(first["epoch"]) == 36
    assert note(["a", "b"]) == [{"epoch": first["epoch"], "appended": 2}]
    assert note(["c"]) == [{"epoch": first["epoch"], "appended": 3}]
    [full] = note(["d"])  # beyond $most: a new epoch, so readers read the table whole
    assert full["appended"] == 0 and full["epoch"] != first["epoch"]
    [other] = note(None)
    assert other["appended"] == 0 and other["epoch"] not in (first["epoch"], full["epoch"])
    query_rows(store, "MATCH (sp:Space {id: $s}) REMOVE sp.epoch, sp.appended", s=space)
    [fresh] = note(["e"])  # a space without an epoch (written before there were epochs)
    assert fresh["appended"] == 0 and fresh["epoch"] is not None
    assert note(["a"], where="no-such-space") == []


@case("ingest/claim_derivation")
def _claim_derivation(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)

    [node] = query_rows(store, "MATCH (c:Conversation {id: $id}) RETURN elementId(c) AS n",
                        id=cid)

    def claim(version: int, erased: int, round_: str, where: str = space,
              other: bool = False) -> str:
        [row] = store.write("ingest/claim_derivation", space=where, conversation_id=cid,
                            node="4:nothing:0" if other else node["n"], version=version,
                            erased=erased, round=round_)
        return str(row["status"])

    def stamped() -> dict[str, object]:
        [row] = query_rows(store, "MATCH (c:Conversation {id: $id}) RETURN c.derived_version "
                           "AS version, c.derived_round AS round", id=cid)
        return row

    assert claim(3, 0, "a") == "claimed"  # nothing derived yet: any read may write
    assert stamped() == {"version": 3, "round": "a"}
    assert claim(3, 0, "a") == "claimed"  # the same round's next transaction
    assert claim(3, 0, "b") == "overtaken"  # another round of the same state: one writes
    assert claim(2, 0, "c") == "overtaken"  # an older read never replaces a newer one
    assert stamped() == {"version": 3, "round": "a"}  # refusals write nothing
    assert claim(5, 0, "d") == "claimed"  # a read after more messages
    assert stamped() == {"version": 5, "round": "d"}
    # a forget raises the erase version: a round that read before it writes nothing
    store.write("ingest/forget_derived", space=space, conversation_id=cid)
    assert claim(6, 0, "e") == "erased"
    [row] = query_rows(store, "MATCH (c:Conversation {id: $id}) RETURN c.erase_version AS e",
                       id=cid)
    assert row == {"e": 1}
    assert claim(6, 1, "e") == "claimed"
    assert claim(6, 1, "e", where="elsewhere") == "gone"  # another space's reader finds none
    # a restore (or a delete and a new ingest) makes another node: what was read is gone
    assert claim(6, 1, "e", other=True) == "gone"


@case("ingest/forget_turns")
def _forget_turns(store: GraphStore, space: str, memory: Memory) -> None:
    s3, turn = session_id(space, KEY, "s3"), turn_id(space, KEY, "s2:3")
    [row] = store.write("ingest/forget_turns", space=space, session_ids=[s3], turn_ids=[turn])
    assert row["turns"] == 6 and row["sessions"] == 1 and row["derived"] > 5
    assert query_rows(store, "MATCH (n {space: $space}) WHERE n.id = $turn OR "
                      "n.session_id = $s3 OR n.id = $s3 RETURN n", space=space, turn=turn,
                      s3=s3) == []
    assert query_rows(store, "MATCH (d)-[:FROM_TURN]->(t:Turn {id: $turn}) RETURN d",
                      turn=turn) == []
    assert store.write("ingest/forget_turns", space=space, session_ids=[], turn_ids=[]) == [
        {"derived": 0, "turns": 0, "sessions": 0}]


@case("ingest/correct_turn")
def _correct_turn(store: GraphStore, space: str, memory: Memory) -> None:
    turn = turn_id(space, KEY, "s1:2")
    [row] = store.write("ingest/correct_turn", space=space, turn_id=turn, text="Fridays?",
                        keep=True)
    assert row == {"conversation_id": conversation_id(space, KEY), "revisions": 1}
    [stored] = query_rows(store, "MATCH (t:Turn {id: $id}) RETURN t.text AS text, "
                          "t.revisions AS revisions, t.embedding IS NULL AS unembedded",
                          id=turn)
    assert stored == {"text": "Fridays?", "revisions": ["Nice! Is that the Tuesday evening one?"],
                      "unembedded": True}
    [row] = store.write("ingest/correct_turn", space=space, turn_id=turn, text="Mondays?",
                        keep=False)
    assert row["revisions"] == 0  # asked not to keep: the earlier revisions go too
    assert store.write("ingest/correct_turn", space="elsewhere", turn_id=turn, text="x",
                       keep=True) == []


@case("ingest/forget_derived")
def _forget_derived(store: GraphStore, space: str, memory: Memory) -> None:
    cid = conversation_id(space, KEY)
    foreign(store, space, cid)
    [row] = store.write("ingest/forget_derived", space=space, conversation_id=cid)
    assert row["derived"] > 18 and row["sessions"] == 3
    assert query_rows(store, "MATCH (n {space: $space, conversation_id: $cid}) "
                      "RETURN DISTINCT labels(n)[0] AS kind ORDER BY kind", space=space,
                      cid=cid) == [{"kind": "Session"}, {"kind": "Turn"}]
    assert query_rows(store, "MATCH (f:Foreign {space: $space}) RETURN count(f) AS n",
                      space=space) == [{"n": 0}]
    assert query_rows(store, "MATCH (s:Session {space: $space}) RETURN DISTINCT s.layers AS l",
                      space=space) == [{"l": ["turns"]}]


@case("ingest/forget_conversation")
@case("ingest/forget_orphans")
def _forget_conversation(store: GraphStore, space: str, memory: Memory) -> None:
    foreign(store, space, conversation_id(space, KEY))
    [row] = store.write("ingest/forget_conversation", space=space,
                        conversation_id=conversation_id(space, KEY))
    assert row["conversations"] == 1 and row["nodes"] > 18
    [orphans] = store.write("ingest/forget_orphans", space=space)
    assert orphans["arguments"] > 0 and orphans["speakers"] == 2 and orphans["characters"] > 0
    assert query_rows(store, "MATCH (n {space: $space}) WHERE NOT n:Change "
                      "RETURN count(n) AS n", space=space) == [{"n": 0}]  # only Space, history
    assert store.write("ingest/forget_orphans", space=space) == [
        {"arguments": 0, "speakers": 0, "characters": 0}]


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
