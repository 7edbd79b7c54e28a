"""Adds to one conversation that queue up in a process are written in one transaction, and
each still gets the answer of its own messages: added, known or (written alone) forgotten;
every message is stored once, in the order the adds came."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.live_group import Queues, Ticket
from graphmem.ingest.live_writer import LiveWriter
from graphmem.models import LiveReport
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore

from helpers import query_rows

STORED = """
MATCH (:Conversation {space: $space, key: 'shared'})-[:HAS_SESSION]->(:Session)-[:HAS_TURN]->(t)
OPTIONAL MATCH (t)-[:NEXT]->(n)
RETURN t.source_id AS id, t.seq AS seq, n.seq AS next ORDER BY t.seq
"""


@pytest.fixture()
def live(settings: Settings, store: GraphStore,
         embedder: SentenceTransformerEmbedder) -> Iterator[Memory]:
    memory = Memory(settings.model_copy(update={"live_derive": "background",
                                                "ingest_layers": ""}),
                    store=store, embedder=embedder)
    yield memory
    memory.live.close()


def held_back(monkeypatch: pytest.MonkeyPatch, memory: Memory, waiting: int
              ) -> list[list[str]]:
    """Make the first write wait until ``waiting`` other adds are queued behind it; return
    the ids each write stored."""
    writes: list[list[str]] = []
    real: Callable[..., LiveReport] = LiveWriter._write

    def write(self: LiveWriter, live: Any, now: list[str], later: list[str]) -> LiveReport:
        if not writes:
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline and sum(
                    len(q) for q in memory.live._queues._waiting.values()) < waiting:
                time.sleep(0.01)
        report = real(self, live, now, later)
        writes.append(list(report.added))
        return report

    monkeypatch.setattr(LiveWriter, "_write", write)
    return writes


def add(memory: Memory, space: str, ids: list[str]) -> LiveReport:
    return memory.add_messages(space, "shared", [{"speaker": "Ana", "text": f"note {i}",
                                                  "id": i} for i in ids])


def test_adds_that_queue_up_are_written_together(live: Memory, space: str, store: GraphStore,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    add(live, space, ["old"])
    writes = held_back(monkeypatch, live, waiting=4)
    batches = [["a1"], ["b1", "b2"], ["c1", "old"], ["d1"], ["e1"]]
    started = threading.Barrier(len(batches))

    def send(ids: list[str]) -> LiveReport:
        started.wait()
        if ids != batches[0]:
            time.sleep(0.2)  # the first holds the conversation's turn first
        return add(live, space, ids)

    with ThreadPoolExecutor(max_workers=len(batches)) as pool:
        reports = list(pool.map(send, batches))
    assert len(writes) == 2  # the first alone, the four behind it together
    assert sorted(writes[1]) == ["b1", "b2", "c1", "d1", "e1"]
    for ids, report in zip(batches, reports, strict=True):
        assert report.added == [i for i in ids if i != "old"]  # each its own share
        assert report.known == (["old"] if "old" in ids else [])
    rows = query_rows(store, STORED, space=space)
    assert sorted(r["id"] for r in rows) == sorted(["old", "a1", "b1", "b2", "c1", "d1", "e1"])
    assert [r["seq"] for r in rows] == list(range(7))  # once each, one chain
    assert [r["next"] for r in rows] == [*range(1, 7), None]


def test_a_group_that_would_refuse_a_forgotten_id_is_written_add_by_add(
        live: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    add(live, space, ["gone", "kept"])
    live.forget(space, "shared", turns=["gone"])
    writes = held_back(monkeypatch, live, waiting=2)
    batches = [["x1"], ["y1", "gone"], ["z1"]]
    started = threading.Barrier(len(batches))

    def send(ids: list[str]) -> LiveReport:
        started.wait()
        if ids != batches[0]:
            time.sleep(0.2)
        return add(live, space, ids)

    with ThreadPoolExecutor(max_workers=len(batches)) as pool:
        reports = list(pool.map(send, batches))
    assert sorted(map(tuple, writes)) == [("x1",), ("y1",), ("z1",)]  # none together
    assert [r.added for r in reports] == [["x1"], ["y1"], ["z1"]]
    assert reports[1].forgotten == ["gone"] and not reports[0].forgotten
    assert not reports[2].forgotten


def test_only_adds_that_cannot_change_each_other_share_a_transaction() -> None:
    queues, where = Queues(), ("s", "c")

    def ticket(ids: list[str | None], session: str | None = None) -> Ticket:
        from graphmem.ingest.live import Message

        return Ticket([Message(speaker="A", text="t", id=i) for i in ids], session,
                      ("turns",), ())

    first, same, other_session, clash, after = (ticket(["1"]), ticket(["2"]),
                                                ticket(["3"], "s9"), ticket(["2"]),
                                                ticket(["4"]))
    for t in (first, same, other_session, clash, after):
        queues.put(where, t)
    assert queues.take(where, first) == [first, same, after]  # "2" twice: one waits
    assert queues.take(where, clash) == [clash]
    assert queues.take(where, other_session) == [other_session]
    assert queues._waiting == {}
