"""Live messages on the real Neo4j: one message at a time gives the graph of one ingest, ids
make adds idempotent, sessions open by the gap, bad messages write nothing."""

from __future__ import annotations

import math
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import InputError
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.models import ConversationRecord, SessionRecord
from graphmem.providers.embedder import Embedder
from graphmem.store import GraphStore, statement_by_statement

from helpers import SAMPLE, query_rows

# the open-session clock, the live version, the last derivation's stamp and each message's own
# time: not part of an ingested graph (a file gives its sessions' dates)
LIVE_ONLY = {"last_message_at", "live_version", "said_at", "derived_version", "derived_round"}


def _same_graph(live: list[dict[str, Any]], ingested: list[dict[str, Any]]) -> None:
    """Equal snapshots, but for the live clock and the last bits of floats (an embedding
    batch of one text and of many differ there, and so do scores computed from them)."""
    def node(row: dict[str, Any]) -> tuple[Any, ...]:
        props = {k: v for k, v in row["props"] if k not in LIVE_ONLY}
        return row["labels"], row["id"], row["dims"], row["out"], props

    assert [r["id"] for r in live] == [r["id"] for r in ingested]
    for a, b in zip(live, ingested, strict=True):
        *same_a, props_a = node(a)
        *same_b, props_b = node(b)
        assert same_a == same_b
        assert props_a.keys() == props_b.keys(), a["id"]
        for k, v in props_a.items():
            w = props_b[k]
            assert (math.isclose(v, w, abs_tol=1e-5) if isinstance(v, float) else v == w), \
                (a["id"], k, v, w)


def _messages(session: SessionRecord) -> list[dict[str, Any]]:
    assert session.started_at is not None
    return [{"speaker": t.speaker, "text": t.text, "id": t.source_id,
             "image_caption": t.image_caption,
             "at": (session.started_at + timedelta(minutes=i)).isoformat()}
            for i, t in enumerate(session.turns)]


@pytest.mark.parametrize(("mode", "delay"), [("background", 0.2), ("inline", 0.2),
                                             ("background", 0.0)])
def test_one_message_at_a_time_builds_the_graph_of_one_ingest(
        settings: Settings, store: GraphStore, embedder: Embedder, space: str,
        mode: str, delay: float) -> None:
    # with no delay the worker derives while the next messages are written: the race the
    # pending version guards against
    memory = Memory(settings.model_copy(update={"live_derive": mode,
                                                "live_delay_seconds": delay}),
                    store=store, embedder=embedder)
    [conv] = parse_file(Path(SAMPLE), "auto").conversations
    reports = []
    for session in conv.sessions:
        for message in _messages(session):
            reports.append(memory.add_messages(space, conv.key, [message]))
    # the sessions are days apart: each one opened by the gap
    assert [r.session for r in reports if r.new_session] == ["session_1", "session_2",
                                                            "session_3"]
    if mode == "inline":  # closing a session brought the whole-conversation layers up
        assert [r.refreshed for r in reports if r.new_session][1:] == [["scenes",
                                                                         "episodes"]] * 2
        assert reports[-1].pending == ["scenes", "episodes"]
    else:  # only the turns were written in the calls
        assert all(set(r.layers) == {"turns"} for r in reports)
        assert reports[-1].pending == ["edus", "events", "segments", "scenes", "episodes"]
    # the newest turn is searchable at once, from Neo4j's indexes (`turns`) and from the
    # client's table of the space (`graphmem`). The budget holds the whole conversation: how
    # the ranker places the turn depends on which layers the worker has derived meanwhile
    # (with no delay, some), and that is not what this checks; a stale table would lack it.
    for strategy in ("turns", "graphmem"):
        found = memory.search("What did Maya show in the photo?", space=space,
                              strategy=strategy, budget=1000)
        assert any("s3:3" in hit.source_ids for hit in found.hits), strategy
    assert memory.flush(timeout=300)
    memory.refresh(space)
    assert memory.refresh(space) == {}  # nothing waits any more
    live = memory.store.read("admin/space_snapshot", space=space)

    # the same turns, ingested at once as the sessions they became
    sessions = tuple(s.model_copy(update={"key": f"session_{s.index + 1}", "date_text": None})
                     for s in conv.sessions)
    record = ConversationRecord(key=conv.key, sessions=sessions, source_format="live",
                                source_file="(test)")
    memory.delete_space(space)
    memory.ingest([record], space=space)
    _same_graph(live, memory.store.read("admin/space_snapshot", space=space))
    memory.live.close()


def test_a_refresh_started_before_a_message_leaves_its_work_pending(
        settings: Settings, store: GraphStore, embedder: Embedder, space: str) -> None:
    memory = Memory(settings.model_copy(update={"live_derive": "manual"}), store=store,
                    embedder=embedder)
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I moved to Leeds."}])
    [row] = memory.store.read("ingest/pending_conversations", space=space,
                              conversation_id=None)
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "The flat has a garden."}])
    cid = f"{space}/c"
    with statement_by_statement():  # the statement alone, as a stale worker would run it
        [stale] = memory.store.write("ingest/clear_pending", space=space,
                                     conversation_id=cid, layers=row["pending"],
                                     sessions=row["sessions"], version=row["version"])
    assert stale["cleared"] is False and stale["pending"] == row["pending"]
    assert memory.refresh(space) == {"c": ["edus", "events", "segments", "scenes",
                                           "episodes"]}
    assert memory.refresh(space) == {}
    derived = query_rows(memory.store, "MATCH (:EDU {space: $s})-[:FROM_TURN]->(t:Turn) "
                         "RETURN count(DISTINCT t) AS n", s=space)
    assert derived == [{"n": 2}]  # both messages have their statements


@pytest.fixture
def manual_memory(settings: Settings, store: GraphStore, embedder: Embedder) -> Memory:
    """A client whose live messages' layers are derived only when asked (``refresh``)."""
    return Memory(settings.model_copy(update={"live_derive": "manual"}), store=store,
                  embedder=embedder)


def _edu_turns(memory: Memory, space: str) -> list[str]:
    rows = query_rows(memory.store, "MATCH (:EDU {space: $s})-[:FROM_TURN]->(t:Turn) "
                      "RETURN DISTINCT t.source_id AS id ORDER BY id", s=space)
    return [r["id"] for r in rows]


def _saying(memory: Memory, space: str, words: str) -> int:
    """How many properties of the space's nodes hold ``words``."""
    [row] = query_rows(memory.store, "MATCH (n {space: $s}) UNWIND keys(n) AS k "
                       "WITH n[k] AS v WHERE v IS :: STRING AND v CONTAINS $w "
                       "RETURN count(*) AS n", s=space, w=words)
    return int(row["n"])


def _after_the_read(monkeypatch: pytest.MonkeyPatch, meanwhile: Callable[[], object]) -> None:
    """The next refresh reads the conversation, then ``meanwhile`` runs (another client's
    change, landing while the refresh derives), then the refresh goes on with what it read."""
    from graphmem.ingest import live_writer, stored

    real = stored.stored_conversations
    calls: list[int] = []

    def read_then_change(*args: Any, **kwargs: Any) -> Any:
        records = real(*args, **kwargs)
        if not calls:
            calls.append(1)
            meanwhile()
        return records

    monkeypatch.setattr(live_writer, "stored_conversations", read_then_change)


def test_a_refresh_overtaken_by_a_message_writes_what_it_derived(
        manual_memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = manual_memory
    # under a steady stream of messages, a refresh that gave up whenever a message came
    # before it committed left a busy conversation's layers never caught up
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I moved to Leeds.", "id": "a"}])
    _after_the_read(monkeypatch, lambda: memory.add_messages(
        space, "c", [{"speaker": "Ann", "text": "The flat has a garden.", "id": "b"}]))
    assert memory.refresh(space) == {"c": ["edus", "events", "segments", "scenes",
                                           "episodes"]}
    assert _edu_turns(memory, space) == ["a"]  # what it read, written
    [row] = memory.store.read("ingest/pending_conversations", space=space,
                              conversation_id=None)  # the new message's work still waits
    assert row["pending"] == ["edus", "events", "segments", "scenes", "episodes"]
    memory.refresh(space)
    assert _edu_turns(memory, space) == ["a", "b"]
    assert memory.refresh(space) == {}


def test_a_refresh_overtaken_by_a_forget_writes_nothing_of_it(
        manual_memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = manual_memory
    from graphmem.ingest.live import Superseded

    memory.add_messages(space, "c", [
        {"speaker": "Ann", "text": "My PIN is 4417 at the Leeds branch.", "id": "a"},
        {"speaker": "Ann", "text": "The flat has a garden.", "id": "b"}])
    _after_the_read(monkeypatch, lambda: memory.forget(space, "c", turns=["a"]))
    with pytest.raises(Superseded, match="forgotten in part or corrected"):
        memory.live.refresh(space, attempts=1)
    assert _edu_turns(memory, space) == []  # the stale round wrote nothing
    memory.refresh(space)  # derived again from what remains
    assert _edu_turns(memory, space) == ["b"]
    assert _saying(memory, space, "4417") == 0


def test_a_refresh_overtaken_by_a_restore_writes_nothing_of_it(
        manual_memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch,
        tmp_path: Path) -> None:
    memory = manual_memory
    # the backup was taken before the message the refresh read: a restore rolls the space
    # back, and what the refresh derived from the newer state must not come back with it
    from graphmem.ingest.live import Superseded

    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I moved to Leeds.", "id": "a"}])
    backup = memory.export_space(space, tmp_path / "before.jsonl.gz").path
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "My PIN is 4417.", "id": "b"}])
    _after_the_read(monkeypatch, lambda: memory.import_space(backup, replace=True))
    with pytest.raises(Superseded, match="deleted or restored"):
        memory.live.refresh(space, attempts=1)
    assert _edu_turns(memory, space) == []
    memory.refresh(space)  # the restored conversation's own work
    assert _edu_turns(memory, space) == ["a"]
    assert _saying(memory, space, "4417") == 0


def test_an_older_refresh_never_replaces_a_newer_one(
        manual_memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    memory = manual_memory
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I moved to Leeds.", "id": "a"}])

    def newer_round() -> None:  # a message, then another client's refresh of it all
        memory.add_messages(space, "c", [{"speaker": "Ann", "text": "The flat has a garden.",
                                          "id": "b"}])
        memory.refresh(space)

    _after_the_read(monkeypatch, newer_round)
    memory.refresh(space)  # this one read before "b": it must not write over the newer one
    assert _edu_turns(memory, space) == ["a", "b"]
    assert memory.refresh(space) == {}  # and nothing of "b" was left behind as done


def test_message_ids_make_adding_idempotent(memory: Memory, space: str) -> None:
    at = datetime(2025, 5, 1, 9, 0)
    first = memory.add_messages(space, "c", [{"role": "user", "content": "I adopted a cat.",
                                              "id": "m1", "at": at.isoformat()}])
    assert (first.added, first.known, first.session) == (["m1"], [], "session_1")
    again = memory.add_messages(space, "c", [
        {"role": "user", "content": "I adopted a cat.", "id": "m1", "at": at.isoformat()},
        {"role": "assistant", "content": "What is its name?", "id": "m2",
         "at": (at + timedelta(minutes=1)).isoformat()}])
    assert (again.added, again.known, again.new_session) == (["m2"], ["m1"], False)
    rows = query_rows(memory.store, "MATCH (t:Turn {space: $s}) RETURN t.source_id AS id, "
                      "t.order AS o ORDER BY o", s=space)
    assert rows == [{"id": "m1", "o": 0}, {"id": "m2", "o": 1}]
    nothing = memory.add_messages(space, "c", [{"speaker": "user", "text": "I adopted a cat.",
                                                "id": "m1"}])
    assert nothing.added == [] and nothing.known == ["m1"]


def test_an_add_writes_what_it_adds_however_long_the_open_session(
        settings: Settings, store: GraphStore, embedder: Embedder, space: str) -> None:
    """The turns already in the open session are read, not written again: the tenth and the
    thirtieth message of one session change as much of the graph."""
    memory = Memory(settings.model_copy(update={"live_derive": "manual"}), store=store,
                    embedder=embedder)
    for n in range(30):
        memory.add_messages(space, "c", [{"speaker": "Ann" if n % 2 else "Bob",
                                          "text": f"Note {n} about the garden.",
                                          **({"id": "session_1:12"} if n == 5 else {})}])
    adds = [c for c in reversed(memory.history(space)) if c.what == "messages added"]
    assert len(adds) == 30
    counts = {(c.nodes_created, c.relationships_created, c.properties_set)
              for c in adds[9:]}
    assert len(counts) == 1, counts  # the same for each message from the tenth on
    rows = query_rows(memory.store, "MATCH (s:Session {space: $s})-[:HAS_TURN]->(t:Turn) "
                      "RETURN s.key AS k, t.order AS o, t.source_id AS id, t.seq AS seq "
                      "ORDER BY o", s=space)
    assert [r["o"] for r in rows] == [r["seq"] for r in rows] == list(range(30))
    assert {r["k"] for r in rows} == {"session_1"}
    ids = [r["id"] for r in rows]
    # the twelfth message's own id was taken by the sixth: it gets a free one
    assert len(set(ids)) == 30 and ids[5] == ids[11][:-2] == "session_1:12"
    assert ids[1] == "session_1:2" and ids[11] == "session_1:12.2"


def test_an_id_made_for_a_message_never_takes_another_message_s_own(memory: Memory,
                                                                    space: str) -> None:
    """A message given the id a later session's first message would get keeps it, and that
    later message gets another: neither overwrites the other."""
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Mine is trips:1.",
                                      "id": "trips:1"}])
    later = memory.add_messages(space, "c", [{"speaker": "Bob", "text": "I have no id."}],
                                session="trips")
    assert later.added == ["trips:1.2"]
    texts = {m.id: m.text for m in memory.messages(space, "c").messages}
    assert texts == {"trips:1": "Mine is trips:1.", "trips:1.2": "I have no id."}


def test_sessions_open_by_the_gap_or_by_name(memory: Memory, space: str) -> None:
    at = datetime(2025, 5, 1, 9, 0)

    def add(minutes: float, text: str, session: str | None = None) -> str:
        stamp = (at + timedelta(minutes=minutes)).isoformat()
        return memory.add_messages(space, "c", [{"speaker": "Ann", "text": text, "at": stamp}],
                                   session=session).session

    assert add(0, "Morning! I start the new job today.") == "session_1"
    assert add(10, "The office is near the river.") == "session_1"  # within 30 minutes
    assert add(200, "Back home, tired but happy.") == "session_2"  # after the gap
    assert add(201, "A note for the trip file.", session="trips") == "trips"
    assert add(202, "Another line, still the evening chat.") == "trips"  # the last session
    rows = query_rows(memory.store, "MATCH (s:Session {space: $s})-[:HAS_TURN]->(t) "
                      "RETURN s.key AS k, s.index AS i, count(t) AS n ORDER BY i", s=space)
    assert rows == [{"k": "session_1", "i": 0, "n": 2}, {"k": "session_2", "i": 1, "n": 1},
                    {"k": "trips", "i": 2, "n": 2}]
    turns = query_rows(memory.store, "MATCH (t:Turn {space: $s}) RETURN t.seq AS seq, "
                       "t.source_id AS id ORDER BY seq", s=space)
    assert [t["id"] for t in turns] == ["session_1:1", "session_1:2", "session_2:1",
                                        "trips:1", "trips:2"]


def test_a_gap_inside_one_call_opens_a_session_as_between_calls(memory: Memory,
                                                               space: str) -> None:
    at = datetime(2025, 5, 1, 9, 0)

    def said(minutes: float, text: str) -> dict[str, str]:
        return {"speaker": "Ann", "text": text,
                "at": (at + timedelta(minutes=minutes)).isoformat()}

    week = 7 * 24 * 60
    report = memory.add_messages(space, "c", [
        said(0, "Morning! I start the new job today."), said(10, "The office is by the river."),
        said(week, "A week in, and I like it."), said(week - 5, "(written a bit earlier)"),
        said(week + 5, "The team took me to lunch."), said(2 * week, "Two weeks now.")])
    assert report.session == "session_3" and report.new_session
    assert report.notes == ["the messages span 3 sessions (a gap of more than 30 minutes "
                            "between two of them opens a new one): 'session_1', 'session_2', "
                            "'session_3'"]
    assert len(report.added) == 6
    rows = query_rows(memory.store, "MATCH (s:Session {space: $s})-[:HAS_TURN]->(t) "
                      "WITH s, t ORDER BY t.order RETURN s.key AS k, s.index AS i, "
                      "s.last_message_at AS last, collect(t.source_id) AS ids ORDER BY i",
                      s=space)
    assert [(r["k"], r["i"], r["ids"]) for r in rows] == [
        ("session_1", 0, ["session_1:1", "session_1:2"]),
        ("session_2", 1, ["session_2:1", "session_2:2", "session_2:3"]),
        ("session_3", 2, ["session_3:1"])]
    assert [r["last"].to_native() for r in rows] == [
        at + timedelta(minutes=10), at + timedelta(minutes=week + 5),
        at + timedelta(minutes=2 * week)]
    after = memory.add_messages(space, "c", [said(2 * week + 3, "Still day one of week 3.")])
    assert after.session == "session_3" and not after.new_session and after.notes == []
    named = memory.add_messages(space, "c", [said(3 * week, "x"), said(4 * week, "y")],
                                session="log")
    assert named.session == "log" and named.notes == []  # the caller placed them: one session


def test_a_backdated_message_joins_the_open_session_and_says_so(memory: Memory,
                                                               space: str) -> None:
    at = datetime(2025, 5, 1, 9, 0)
    first = memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Morning!",
                                              "at": at.isoformat()}])
    assert first.notes == []
    late = memory.add_messages(space, "c", [
        {"speaker": "Ann", "text": "A note from last year.", "id": "old",
         "at": "2024-04-30T08:00:00+00:00"},
        {"speaker": "Ann", "text": "And one from now.", "at": (at + timedelta(minutes=5))
         .isoformat()}])
    assert late.session == "session_1" and len(late.notes) == 1
    assert late.notes[0].startswith("message old is dated 2024-04-30 08:00, before the open "
                                    "session 'session_1' began (2025-05-01 09:00)")
    stored = memory.messages(space, "c").messages
    assert [(m.id, m.said_at) for m in stored][1] == ("old", datetime(2024, 4, 30, 8, 0))
    named = memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Filed it.",
                                              "at": "2024-04-30T08:01:00"}], session="archive")
    assert named.notes == []  # placed where the caller said


@pytest.mark.parametrize(("messages", "field"), [
    ([{"speaker": "Ann", "text": "fine"}, {"speaker": "Ann", "text": "  "}],
     "messages[1].text"),
    ([{"text": "who said it?"}], "messages[0].speaker"),
    ([{"speaker": "Ann", "text": "x", "at": "next Tuesday"}], "messages[0].at"),
    ([{"speaker": "Ann", "text": "x", "id": "a"}, {"speaker": "Ann", "text": "y", "id": "a"}],
     "messages[1].id"),
    ("just a string", "messages"),
    ([{"speaker": "Ann", "role": "user", "text": "x"}], "messages[0]"),  # which one?
    ([{"speaker": "Ann", "text": "x", "content": "y"}], "messages[0]"),
])
def test_bad_messages_name_the_place_and_write_nothing(memory: Memory, space: str,
                                                       messages: Any, field: str) -> None:
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Stored before."}])
    with pytest.raises(InputError) as caught:
        memory.add_messages(space, "c", messages)
    assert caught.value.field == field
    assert str(caught.value).startswith(f"field {field}: ")  # no file, no record: none read
    rows = query_rows(memory.store, "MATCH (t:Turn {space: $s}) RETURN t.text AS text",
                      s=space)
    assert rows == [{"text": "Stored before."}]


def test_synonyms_found_in_the_database_equal_those_from_the_vectors(
        memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.ingest.layer import LayerContext
    from graphmem.ingest.layers.edus import layer as edu_layer

    memory.ingest(SAMPLE, space=space, layers="edus")
    texts = ["pottery classes", "the Tuesday evening class", "a half marathon in Lisbon",
             "mugs for her sister"]
    vectors = memory.embedder.embed(texts)
    rows = [{"id": f"{space}/arg/new-{i}", "embedding": v.tolist()}
            for i, v in enumerate(vectors)]
    layer = edu_layer.EduLayer(LayerContext(memory.store, memory.embedder))
    stored = len(memory.store.read("ingest/edus/space_arguments", space=space))
    monkeypatch.setattr(edu_layer, "SYNONYM_THRESHOLD", 0.6)  # enough pairs to compare
    in_database = layer._synonyms(memory.store.read, space, rows, stored)
    monkeypatch.setattr(edu_layer, "IN_DATABASE_COMPARISONS", 0)
    from_vectors = layer._synonyms(memory.store.read, space, rows, stored)
    assert len(in_database) >= 3
    assert [(p["source"], p["target"]) for p in in_database] == \
        [(p["source"], p["target"]) for p in from_vectors]
    assert [p["score"] for p in in_database] == pytest.approx(
        [p["score"] for p in from_vectors], abs=1e-5)


def test_adds_to_one_conversation_from_many_threads_lose_nothing(memory: Memory,
                                                                  space: str) -> None:
    from concurrent.futures import ThreadPoolExecutor

    def add(n: int) -> None:
        for i in range(3):
            memory.add_messages(space, "c", [{"speaker": "Ann", "text": f"Note {n}.{i}."}])

    with ThreadPoolExecutor(6) as pool:
        list(pool.map(add, range(6)))
    memory.flush()
    rows = query_rows(memory.store, "MATCH (s:Session {space: $s})-[:HAS_TURN]->(t:Turn) "
                      "RETURN s.key AS session, t.order AS o, t.text AS text", s=space)
    assert len(rows) == 18 and {r["session"] for r in rows} == {"session_1"}
    assert sorted(r["o"] for r in rows) == list(range(18))  # every message its own place
    assert sorted(r["text"] for r in rows) == sorted(f"Note {n}.{i}." for n in range(6)
                                                     for i in range(3))


def test_a_message_keeps_its_own_time_and_a_far_future_one_is_refused(
        memory: Memory, space: str) -> None:
    at = datetime(2024, 5, 2, 18, 30)
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Back from Porto.", "at": at,
                                      "id": "m1"}], layers="")
    [stored] = memory.messages(space, "c").messages
    assert stored.said_at == at and stored.session_started_at == at
    with pytest.raises(InputError) as caught:
        memory.add_messages(space, "c", [{"speaker": "Ann", "text": "Hi from the future.",
                                          "at": "2999-01-01T00:00:00"}])
    assert caught.value.field == "messages[0].at" and "a day ahead of now" in str(caught.value)
    later = memory.add_messages(space, "c", [{"speaker": "Ann", "text": "And now?"}], layers="")
    assert later.new_session  # the 2999 message did not hold a session open
    # the time survives what rebuilds conversations from the graph (layers added, forget)
    memory.add_layers(space, "edus")
    assert memory.messages(space, "c").messages[0].said_at == at
