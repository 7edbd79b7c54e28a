"""Searches in processes of their own (``graphmem serve``'s default): they see what the server
adds and forgets at once, give the server graphmem's own errors, come back when killed, and end
with the server (real Neo4j, real spawned processes)."""

from __future__ import annotations

import multiprocessing
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable, InputError, UnknownStrategyError
from graphmem.serve.search_processes import SearchProcesses

from helpers import free_port


@pytest.fixture(scope="module")
def searching(settings: Settings, store: object) -> Iterator[SearchProcesses]:
    with SearchProcesses(settings, 1) as processes:
        yield processes


def said(processes: SearchProcesses, space: str, question: str) -> str:
    return processes.search(question, space=space, budget=300).context


def test_a_search_process_sees_each_add_and_forget_at_once(
        searching: SearchProcesses, memory: Memory, space: str) -> None:
    [pid] = searching.pids()
    assert pid != os.getpid()
    memory.add_messages(space, "chat", [
        {"id": "m1", "speaker": "Maya", "text": "I planted three lemon trees in the yard."}])
    assert "lemon trees" in said(searching, space, "What did Maya plant?")
    # the search process now holds this revision of the space in its caches; a message added
    # by this process is found there as soon as the add returns
    memory.add_messages(space, "chat", [
        {"id": "m2", "speaker": "Jonas", "text": "My violin teacher moved to Lisbon."}])
    assert "Lisbon" in said(searching, space, "Where did the violin teacher move?")
    memory.forget(space, "chat", turns=["m2"])
    after = said(searching, space, "Where did the violin teacher move?")
    assert "Lisbon" not in after and "lemon trees" in said(searching, space, "What was planted?")


def test_its_errors_arrive_as_graphmem_errors(searching: SearchProcesses, space: str) -> None:
    with pytest.raises(InputError) as empty:
        searching.search("   ", space=space)
    assert empty.value.field == "question" and "empty" in str(empty.value)
    with pytest.raises(UnknownStrategyError, match="no-such-strategy"):
        searching.search("anything?", space=space, strategy="no-such-strategy")


def test_a_killed_search_process_is_started_again(settings: Settings, memory: Memory,
                                                  space: str) -> None:
    memory.add_messages(space, "chat", [
        {"id": "k1", "speaker": "Maya", "text": "The kiln reached 1200 degrees today."}])
    with SearchProcesses(settings, 1) as processes:
        [first] = processes.pids()
        os.kill(first, signal.SIGKILL)
        assert "kiln" in said(processes, space, "How hot did the kiln get?")
        [second] = processes.pids()
        assert second != first


def test_search_processes_end_with_the_server_even_when_it_is_killed(store: object) -> None:
    started = subprocess.Popen(
        [sys.executable, "-c", "from graphmem.config import Settings\n"
         "from graphmem.serve.search_processes import SearchProcesses\n"
         "import time\n"
         "p = SearchProcesses(Settings(), 1)\n"
         "print(p.pids()[0], flush=True)\n"
         "time.sleep(600)\n"], stdout=subprocess.PIPE, text=True)
    try:
        assert started.stdout is not None
        child = int(started.stdout.readline())
        os.kill(child, 0)  # alive
        started.kill()  # no clean-up runs in the server
        started.wait(timeout=30)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            try:
                os.kill(child, 0)
            except ProcessLookupError:
                return
            time.sleep(0.2)
        pytest.fail(f"search process {child} outlived its server")
    finally:
        started.kill()


def test_a_search_process_that_cannot_start_says_why_and_is_not_left_behind(
        settings: Settings) -> None:
    nowhere = settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{free_port()}",
                                          "neo4j_timeout": 1.0})
    before = set(multiprocessing.active_children())  # the module's own search process
    with pytest.raises(DatabaseUnavailable, match="cannot reach Neo4j"):
        SearchProcesses(nowhere, 1)
    assert set(multiprocessing.active_children()) == before
