"""Forgetting a message, a session or a conversation: afterwards nothing serves it, by any
strategy, in any index, in any node or relationship, in the client's caches or in a fresh
backup; what remains is still found, and the layers are whole again."""

from __future__ import annotations

import gzip
import json
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.ingest import layers
from graphmem.retrieve.registry import RECIPES
from graphmem.telemetry import acting

from helpers import query_rows, text_held


def chat(secret: str) -> dict[str, Any]:
    return {"format": "graphmem.chat/v1", "conversations": [
        {"id": "c", "sessions": [
            {"id": "s1", "started_at": "2024-05-02T18:00:00", "turns": [
                {"speaker": "Ines", "text": "I started a greenhouse with tomatoes and basil."},
                {"speaker": "Ines", "text": f"My locker code at the gym is {secret}, "
                                            f"could you remember {secret} for me?"},
                {"speaker": "Ana", "text": "Noted. How is the greenhouse doing?"},
                {"speaker": "Ines", "text": "The basil is thriving, tomatoes are slow."}]},
            {"id": "s2", "started_at": "2024-06-10T19:00:00", "turns": [
                {"speaker": "Ana", "text": "Did the tomatoes ripen in the greenhouse?"},
                {"speaker": "Ines", "text": "Yes, we made a big tomato salad on Sunday."}]}]},
        {"id": "other", "sessions": [
            {"id": "o1", "started_at": "2024-07-01T10:00:00", "turns": [
                {"speaker": "Ines", "text": "My cousin Teodor moved to Lisbon last month."},
                {"speaker": "Ana", "text": "Lisbon is lovely in summer. Has he found a flat?"}]}
        ]}]}


QUESTION = "What is my locker code at the gym?"
WITH_PLUGIN = "edus,events,segments,scenes,episodes,questions"  # every layer, and the example


def stored_chat(memory: Memory, space: str, folder: Path, secret: str,
                layers: str | None = None) -> None:
    """The chat ingested into ``space``, its locker code ``secret``."""
    path = folder / "chat.json"
    path.write_text(json.dumps(chat(secret)), encoding="utf-8")
    memory.ingest(path, space=space, layers=layers)


def trace(memory: Memory, space: str, secret: str) -> list[str]:
    """Every place the graph still holds ``secret``: node and relationship properties,
    fulltext indexes, and vectors near the text that held it."""
    found = text_held(memory.store, space, secret)
    said = memory.embedder.embed([f"Ines: My locker code at the gym is {secret}"])[0].tolist()
    for index in query_rows(memory.store, "SHOW INDEXES YIELD name, type "
                            "WHERE type = 'VECTOR' RETURN name"):
        hits = query_rows(memory.store, "CALL db.index.vector.queryNodes($name, 50, $v) "
                          "YIELD node, score WHERE node.space = $space AND score > 0.97 "
                          "RETURN node.id AS id", name=index["name"], v=said, space=space)
        found += [f"vector {index['name']}: {h['id']}" for h in hits]
    return found


def cached(memory: Memory, secret: str) -> bool:
    """Whether any cache of the client holds ``secret``."""
    parts = memory.caches._parts.values()  # a look inside, for this test only
    return any(secret.lower() in repr(entry).lower()
               for cache in parts for entry, _ in cache._items.values())


def test_a_forgotten_message_is_gone_everywhere(memory: Memory, space: str, tmp_path: Path,
                                                qa_pairs: ModuleType) -> None:
    """With the example plug-in installed: its Question nodes hold text too."""
    secret = f"quokka{uuid.uuid4().hex[:8]}"
    stored_chat(memory, space, tmp_path, secret, layers=WITH_PLUGIN)
    question = QUESTION
    assert secret in memory.search(question, space=space, budget=200).context
    assert "node ['Question']" in trace(memory, space, secret)  # the checks see it now
    for name in RECIPES:  # every strategy's caches and projections hold the space now
        memory.search(question, space=space, strategy=name, budget=300)

    report = memory.forget(space, "c", turns=["s1:2"])
    assert (report.turns, report.sessions, report.whole_conversation) == (1, 0, False)
    # the call returns once the forgotten is gone; the layers follow in the background
    assert report.pending == report.layers and "edus" in report.layers
    assert trace(memory, space, secret) == []  # the history's entries included
    assert secret not in memory.search(question, space=space, budget=2000).context.lower()
    assert [(c.what, c.surface) for c in memory.history(space, limit=2)] == [
        ("forget", "python"), ("ingest", "python")]
    memory.flush()
    assert [(c.what, c.surface) for c in memory.history(space, limit=1)] == [
        ("layers derived", "background")]
    assert trace(memory, space, secret) == []  # derived again from what remains
    for name in RECIPES:
        for asked in (question, secret):
            shown = memory.search(asked, space=space, strategy=name, budget=2000).context
            assert secret not in shown.lower(), name
    assert not cached(memory, secret)
    backup = memory.export_space(space, tmp_path / "after.jsonl.gz").path
    with gzip.open(backup, "rt") as lines:
        assert secret not in lines.read().lower()
    # what remains is whole: every layer held, the chain re-linked, the rest still found
    state = memory.store.read("admin/space_state", space=space, layers=[
        "edus", "events", "scenes", "questions"])[0]
    assert all(row["missing"] == 0 for row in state["layers"])
    assert [m.id for m in memory.messages(space, "c").messages] == [
        "s1:1", "s1:3", "s1:4", "s2:1", "s2:2"]
    assert "salad" in memory.search("What did they make with the tomatoes?", space=space,
                                    budget=100).context
    assert query_rows(memory.store, "MATCH (:Turn {space: $space})-[n:NEXT]->(:Turn) "
                      "RETURN count(n) AS links", space=space) == [{"links": 5}]


def test_forgetting_sessions_and_conversations(memory: Memory, space: str, tmp_path: Path,
                                              qa_pairs: ModuleType) -> None:
    stored_chat(memory, space, tmp_path, "k-1234", layers="edus,events,questions")
    report = memory.forget(space, "c", sessions=["s1"])
    assert (report.sessions, report.turns) == (1, 4)
    assert [c.conversation for c in memory.conversations(space)] == ["c", "other"]
    assert trace(memory, space, "basil") == []  # said in s1 only
    # forgetting every remaining turn of a conversation forgets it whole
    report = memory.forget(space, "c", turns=["s2:1", "s2:2"])
    assert report.whole_conversation
    assert [c.conversation for c in memory.conversations(space)] == ["other"]
    assert query_rows(memory.store, "MATCH (n {space: $space}) WHERE n.conversation_id "
                      "ENDS WITH '/c' RETURN count(n) AS n", space=space) == [{"n": 0}]
    assert "Lisbon" in memory.search("Where did Teodor move?", space=space,
                                     budget=60).context
    memory.forget(space, "other", whole_conversation=True)
    assert memory.conversations(space) == []
    assert query_rows(memory.store, "MATCH (n {space: $space}) WHERE NOT n:Change "
                      "RETURN count(n) AS n", space=space) == [{"n": 0}]  # all but history
    assert [c.what for c in memory.history(space) if c.what != "layers derived"] == [
        "forget", "forget", "forget", "ingest", "ingest"]


def test_forgetting_what_is_not_there_changes_nothing(memory: Memory, space: str,
                                                     tmp_path: Path) -> None:
    stored_chat(memory, space, tmp_path, "k-9", layers="")
    before = memory.store.read("admin/space_snapshot", space=space)
    for args, says in (({"conversation": "nope", "whole_conversation": True},
                        "no conversation 'nope'"),
                       ({"conversation": "c"}, "say what to forget"),
                       ({"conversation": "c", "turns": ["s1:1"], "whole_conversation": True},
                        "not both"),
                       ({"conversation": "c\udc80", "turns": ["s1:1"]}, "surrogate"),
                       ({"conversation": "c", "turns": ["s1:1\udc80"]}, "surrogate"),
                       ({"conversation": "c", "turns": [7.5]}, "an id is a string"),
                       ({"conversation": "c", "turns": ["s9:9"]}, "has no message 's9:9'"),
                       ({"conversation": "c", "sessions": ["zz"]}, "has no session 'zz'"),
                       ({"conversation": "c", "turns": "s1:1"}, "a list of ids")):
        with pytest.raises(InputError, match=says):
            memory.forget(space, **args)  # type: ignore[arg-type]
    assert memory.store.read("admin/space_snapshot", space=space) == before


def test_an_empty_selection_forgets_nothing(memory: Memory, space: str,
                                           tmp_path: Path) -> None:
    """An agent that forgets "the messages matching X" and finds none must not wipe the
    conversation."""
    stored_chat(memory, space, tmp_path, "k-10", layers="")
    before = memory.store.read("admin/space_snapshot", space=space)
    for args in ({"turns": []}, {"sessions": []}, {"sessions": [], "turns": []}):
        report = memory.forget(space, "c", **args)  # type: ignore[arg-type]
        assert (report.turns, report.sessions, report.whole_conversation) == (0, 0, False)
        assert report.note == "the selection was empty: nothing was forgotten"
    assert memory.store.read("admin/space_snapshot", space=space) == before
    assert len(memory.messages(space, "c").messages) == 6
    # ids are read as add_messages reads them: stripped
    assert memory.forget(space, "c", turns=[" s1:2 "]).turns == 1


@pytest.mark.parametrize("keep_old", [True, False])
def test_a_corrected_message_is_what_is_found(memory: Memory, space: str, tmp_path: Path,
                                             keep_old: bool, qa_pairs: ModuleType) -> None:
    old = f"porto{uuid.uuid4().hex[:6]}"
    stored_chat(memory, space, tmp_path, old, layers=WITH_PLUGIN)
    question = QUESTION
    assert old in memory.search(question, space=space, budget=200).context
    [turn] = [m.turn_id for m in memory.messages(space, "c").messages if m.id == "s1:2"]
    new = "My locker code at the gym is lisbon9981 now, I changed it."
    report = memory.correct(space, turn, new, keep_old=keep_old)
    assert report.revisions == (1 if keep_old else 0) and "edus" in report.layers
    assert report.pending == report.layers and report.conversation == "c"
    # the message is embedded again within the call: found by its new words at once
    assert "lisbon9981" in memory.search("Which code is lisbon9981?", space=space,
                                         strategy="turns", budget=200).context
    memory.flush()
    for name in RECIPES:
        shown = memory.search(question, space=space, strategy=name, budget=2000).context
        assert old not in shown.lower(), name
    assert "lisbon9981" in memory.search(question, space=space, budget=200).context
    unit = memory.unit(space, turn)
    assert unit is not None and unit.properties["text"] == new
    assert unit.properties.get("revisions", []) == ([
        f"My locker code at the gym is {old}, could you remember {old} for me?"] if keep_old
        else [])
    assert trace(memory, space, old) == (["node ['Turn']"] if keep_old else [])  # its revision
    state = memory.store.read("admin/space_state", space=space,
                              layers=["edus", "events", "scenes", "questions"])[0]
    assert all(row["missing"] == 0 for row in state["layers"])
    with pytest.raises(InputError, match="holds no message"):
        memory.correct(space, turn + "x", "anything")
    with pytest.raises(InputError, match="non-empty"):
        memory.correct(space, turn, "  ")


def test_a_plugin_layer_is_covered_by_a_process_without_the_plugin(
        memory: Memory, space: str, tmp_path: Path, qa_pairs: ModuleType) -> None:
    """A plug-in's nodes go by provenance, not by a list of labels this process knows: a
    correction or a forget made where the plug-in is not installed leaves none of its text,
    and its layer is then marked missing (to be added again where it is installed)."""
    old = f"faro{uuid.uuid4().hex[:6]}"
    stored_chat(memory, space, tmp_path, old, layers="edus,questions")
    assert "node ['Question']" in trace(memory, space, old)
    del layers.LAYERS["questions"], RECIPES["asked"]  # the process without the plug-in
    [turn] = [m.turn_id for m in memory.messages(space, "c").messages if m.id == "s1:2"]
    memory.correct(space, turn, "My locker code at the gym changed, could you note it?",
                   keep_old=False)
    assert trace(memory, space, old) == []
    assert query_rows(memory.store, "MATCH (s:Session {space: $space}) WHERE 'questions' IN "
                      "s.layers RETURN s.conversation_id ENDS WITH '/c' AS corrected",
                      space=space) == [{"corrected": False}]  # the other conversation's
    memory.forget(space, "other", whole_conversation=True)
    assert query_rows(memory.store, "MATCH (q:Question {space: $space}) RETURN count(q) AS n",
                      space=space) == [{"n": 0}]


# what is not derived from turns: the space's structure, its history, and what several
# statements or scenes share (removed by ingest/forget_orphans once nothing supports it)
NOT_DERIVED = {"Space", "Conversation", "Session", "Turn", "Change", "Speaker", "Argument",
               "Character"}


def test_every_derived_node_links_to_its_turns(memory: Memory, space: str, tmp_path: Path,
                                               qa_pairs: ModuleType) -> None:
    """The rule forgetting relies on: whatever a layer (a plug-in's included) derives links to
    the turns it comes from, so forgetting them finds it."""
    stored_chat(memory, space, tmp_path, "k-77", layers=WITH_PLUGIN)
    rows = query_rows(memory.store, "MATCH (n {space: $space}) WITH labels(n) AS kinds, "
                      "EXISTS { (n)-[:FROM_TURN]->(:Turn) } AS linked "
                      "RETURN kinds[0] AS kind, collect(DISTINCT linked) AS linked",
                      space=space)
    derived = {r["kind"]: r["linked"] for r in rows if r["kind"] not in NOT_DERIVED}
    assert {"EDU", "Event", "Scene", "Episode", "RetrievalUnit", "Question"} <= set(derived)
    assert {kind: linked for kind, linked in derived.items() if linked != [True]} == {}


def test_a_plug_in_layer_s_node_is_found_by_its_id_like_graphmem_s(
        memory: Memory, space: str, tmp_path: Path, qa_pairs: ModuleType) -> None:
    """``unit`` finds a node of a label graphmem does not know (through the turns it comes
    from), with those turns, and only in its own space."""
    stored_chat(memory, space, tmp_path, "k-12", layers=WITH_PLUGIN)
    [row] = query_rows(memory.store, "MATCH (q:Question {space: $space})-[:FROM_TURN]->(t) "
                       "RETURN q.id AS id, q.text AS text, collect(t.id) AS turns LIMIT 1",
                       space=space)
    unit = memory.unit(space, row["id"])
    assert unit is not None and unit.kind == "Question"
    assert unit.properties["text"] == row["text"]
    assert sorted(t["id"] for t in unit.source_turns) == sorted(row["turns"])
    assert memory.unit(space + "-elsewhere", row["id"]) is None
    assert memory.unit(space, row["id"] + "-none") is None


def test_the_history_says_who_changed_what(memory: Memory, space: str) -> None:
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I adopted a cat."}],
                        layers="edus")
    memory.flush()  # the background worker derives the EDUs
    with acting("mcp", "abc123"):
        memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Her name is Miso."}],
                            layers="")
    changes = memory.history(space)
    assert [(c.what, c.surface, c.caller) for c in changes] == [
        ("messages added", "mcp", "abc123"),
        ("layers derived", "background", None),  # the session's EDUs, then the conversation
        ("layers derived", "background", None),
        ("messages added", "python", None)]
    assert [c.at for c in changes] == sorted((c.at for c in changes), reverse=True)
    assert changes[-1].nodes_created >= 4  # space, conversation, session, turn, speaker...
    assert changes[0].revision == memory.store.read("admin/space_state", space=space,
                                                    layers=[])[0]["revision"]
    with pytest.raises(InputError, match="limit"):
        memory.history(space, limit=0)


def test_a_question_that_is_not_text_is_refused(memory: Memory, space: str) -> None:
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Hello."}], layers="")
    with pytest.raises(InputError, match="unpaired surrogate at position 6"):
        memory.search("hello \udc80 world", space=space)


@pytest.mark.parametrize("whole", [False, True])
def test_a_forget_elsewhere_restarts_a_derivation_under_way(
        settings: Any, memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch,
        whole: bool) -> None:
    """Another process's background derivation of the same conversation, caught between
    reading the conversation and writing what it derived from it, notices the forget and
    starts again from what is stored: nothing forgotten is written back, nothing fails."""
    from graphmem.ingest import live_writer

    secret = f"wombat{uuid.uuid4().hex[:6]}"
    other = Memory(settings.model_copy(update={"live_derive": "manual"}), store=memory.store,
                   embedder=memory.embedder)  # the other process: it derives later
    other.add_messages(space, "c", [
        {"speaker": "Ines", "text": "I planted basil and tomatoes this spring.", "id": "m1"},
        {"speaker": "Ines", "text": f"The shed padlock code is {secret}.", "id": "m2"},
        {"speaker": "Ana", "text": "Lovely, how is the basil doing?", "id": "m3"}],
        layers="edus,events")
    read = live_writer.stored_conversations
    raced: list[bool] = []

    def forgotten_meanwhile(*args: Any) -> Any:
        found = read(*args)
        if not raced:  # this process forgets once the other has read the conversation
            raced.append(True)
            memory.forget(space, "c", **({"whole_conversation": True} if whole
                                         else {"turns": ["m2"]}))
        return found

    monkeypatch.setattr(live_writer, "stored_conversations", forgotten_meanwhile)
    assert other.refresh(space) == ({} if whole else {"c": ["edus", "events"]})
    assert raced and trace(memory, space, secret) == []
    other.live.close()
    if whole:
        assert memory.conversations(space) == []
    else:
        assert memory.conversations(space)[0].pending_layers == []
        state = memory.store.read("admin/space_state", space=space,
                                  layers=["edus", "events"])[0]
        assert all(row["missing"] == 0 for row in state["layers"])


def test_a_forget_key_hides_which_ids_were_forgotten(memory: Memory, space: str,
                                                     tmp_path: Path) -> None:
    """With GRAPHMEM_FORGET_KEY, the digests a space keeps of forgotten ids are keyed: an
    export file's list no longer answers "was this id forgotten?" to one who hashes guesses.
    A forget made before the key was set still refuses its id, and so does the keyed one."""
    from pydantic import SecretStr

    from graphmem.ids import forgotten_digest, turn_id

    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "first note", "id": "m1"},
                                     {"speaker": "Ann", "text": "second note", "id": "m2"},
                                     {"speaker": "Ann", "text": "third note", "id": "m3"}])
    memory.forget(space, "c", turns=["m1"])  # before the key
    keyed = Memory(settings=memory.settings.model_copy(
        update={"forget_key": SecretStr("a-deployment-secret-0123456789")}))
    try:
        keyed.forget(space, "c", turns=["m2"])
        again = keyed.add_messages(space, "c", [
            {"speaker": "Ann", "text": "first note", "id": "m1"},
            {"speaker": "Ann", "text": "second note", "id": "m2"}])
        assert sorted(again.forgotten) == ["m1", "m2"] and again.added == []
        keyed.export_space(space, tmp_path / "space.json.gz")
    finally:
        keyed.close()
    held = gzip.decompress((tmp_path / "space.json.gz").read_bytes()).decode()
    assert forgotten_digest(turn_id(space, "c", "m1")) in held  # the old one, as it was
    assert forgotten_digest(turn_id(space, "c", "m2")) not in held  # a guess tells nothing
    # without the key, the keyed forget no longer refuses (a restore elsewhere: deploy.md)
    assert memory.add_messages(space, "c", [{"speaker": "Ann", "text": "second note",
                                             "id": "m2"}]).added == ["m2"]
