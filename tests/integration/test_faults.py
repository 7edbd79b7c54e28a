"""Neo4j killed (SIGKILL) in the middle of an ingest and of a search, on a server of the test's
own: each call fails with one clear error within a bounded wait, nothing half-written stays,
and once the server is back the same client re-runs the ingest to a graph equal to a clean
one and searches as before."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.models import ConversationRecord
from graphmem.neo4j_server.local import LAUNCHER_CLASS, LocalNeo4j
from graphmem.processes import live_pid
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore

from helpers import SAMPLE, query_rows, second_server

COPIES = 10  # conversations in the interrupted ingest: long enough to be killed midway
LAYERS = "turns,edus"  # quick to compute: an ingest notices the loss at its next statement
BOUND = 30.0  # seconds a call may take to give up on a dead server (timeout 3 s, retries)


@pytest.fixture()
def own_server(settings: Settings, neo4j_server: object, tmp_path: Path) -> Iterator[LocalNeo4j]:
    """A second server with its own data, ports and a small heap; it shares the suite's
    built jars (read only) so that it starts without Maven."""
    with second_server(settings, tmp_path, neo4j_timeout=3.0) as server:
        yield server


def kill(server: LocalNeo4j) -> None:
    """``kill -9`` of the server's JVM; returns once the process is gone."""
    pid = server.status().pid
    assert pid is not None
    os.kill(pid, signal.SIGKILL)
    deadline = time.monotonic() + 30
    while live_pid(pid, LAUNCHER_CLASS.encode()) is not None and time.monotonic() < deadline:
        time.sleep(0.05)


def copies() -> list[ConversationRecord]:
    sample = parse_file(SAMPLE).conversations[0]
    return [sample.model_copy(update={"key": f"copy-{n}"}) for n in range(COPIES)]


def snapshot(store: GraphStore, space: str) -> str:
    """The space's graph with its name taken out, to compare two spaces."""
    rows = store.read("admin/space_snapshot", space=space)
    return json.dumps(rows, default=str).replace(space, "<space>")


def test_a_killed_server_fails_calls_clearly_and_a_rerun_ingest_completes(
        own_server: LocalNeo4j, embedder: SentenceTransformerEmbedder) -> None:
    memory = Memory(own_server.settings, embedder=embedder)
    records = copies()
    outcome: dict[str, Any] = {}

    def ingest() -> None:
        began = time.monotonic()
        try:
            memory.ingest(records, space="faulty", layers=LAYERS)
        except Exception as exc:
            outcome["error"] = exc
        outcome["seconds"] = time.monotonic() - began

    try:
        memory.ensure_schema()
        worker = threading.Thread(target=ingest)
        worker.start()
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline and worker.is_alive():  # one conversation stored
            if query_rows(memory.store, "MATCH (c:Conversation {space: 'faulty'}) "
                                        "RETURN count(c) AS n")[0]["n"] >= 1:
                break
            time.sleep(0.2)
        assert worker.is_alive(), "the ingest ended before the kill: make it longer"
        killed_at = time.monotonic()
        kill(own_server)
        worker.join(timeout=120)
        assert not worker.is_alive()
        error = outcome.get("error")
        assert isinstance(error, DatabaseUnavailable), repr(error)
        assert "cannot reach Neo4j" in str(error) and "graphmem neo4j start" in str(error)
        assert time.monotonic() - killed_at < BOUND
        notes = " ".join(getattr(error, "__notes__", []))
        assert f"of {COPIES} conversations were stored before" in notes
        assert "running the same ingest again completes it" in notes

        began = time.monotonic()
        with pytest.raises(DatabaseUnavailable, match="cannot reach Neo4j"):
            memory.search("What is the name of the dog?", space="faulty")
        assert time.monotonic() - began < BOUND

        own_server.start()  # Neo4j recovers its transaction log; the client reconnects
        stored = query_rows(memory.store, "MATCH (c:Conversation {space: 'faulty'}) "
                                          "RETURN c.key AS key")
        assert 1 <= len(stored) < COPIES  # whole conversations, the interrupted one not at all
        partial = query_rows(memory.store, "MATCH (t:Turn {space: 'faulty'}) "
                                           "RETURN count(t) AS n")[0]["n"]
        assert partial == len(stored) * records[0].n_turns

        report = memory.ingest(records, space="faulty", layers=LAYERS)
        assert report.conversations == COPIES
        memory.ingest(records, space="clean", layers=LAYERS)
        assert snapshot(memory.store, "faulty") == snapshot(memory.store, "clean")
        found = memory.search("What is the name of the dog?", space="faulty", budget=200)
        assert "Pepper" in found.context
    finally:
        memory.close()


def test_a_search_while_the_server_restarts_fails_clearly_then_works(
        own_server: LocalNeo4j, embedder: SentenceTransformerEmbedder) -> None:
    memory = Memory(own_server.settings, embedder=embedder)
    try:
        memory.ingest(SAMPLE, space="steady", layers="turns,edus")
        question = "What is the name of the dog?"
        before = [hit.id for hit in memory.search(question, space="steady", budget=200).hits]
        for strategy in ("graphmem", "emem-g"):  # the second runs GDS PPR on a projection
            memory.search(question, space="steady", strategy=strategy)
        own_server.stop(timeout=30)  # a clean shutdown this time
        began = time.monotonic()
        with pytest.raises(DatabaseUnavailable, match="cannot reach Neo4j"):
            memory.search(question, space="steady")
        assert time.monotonic() - began < BOUND
        own_server.start()
        assert [hit.id for hit in memory.search(question, space="steady",
                                                budget=200).hits] == before
        assert memory.search(question, space="steady", strategy="emem-g").hits  # projection
    finally:                                                                  # made again
        memory.close()
