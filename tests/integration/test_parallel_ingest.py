"""Ingest with worker processes (`--workers`): the graph equals a one-process ingest of the
same conversations, including the arguments they share and their synonym edges, and the
report counts the same."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable, InputError
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.layers import run_order
from graphmem.ingest.parallel import write_parallel
from graphmem.models import ConversationRecord, IngestReport
from graphmem.store import GraphStore

from helpers import DATA, SAMPLE, free_port


def conversations() -> list[ConversationRecord]:
    sample = parse_file(SAMPLE).conversations[0]
    other = parse_file(DATA / "ppr_conversation.json").conversations
    # copies share every argument: a copy computed beside another finds at commit time that
    # the other stored them first, as a one-process ingest would
    return [*(sample.model_copy(update={"key": f"copy-{n}"}) for n in range(3)), *other]


def snapshot(store: GraphStore, space: str) -> str:
    rows = store.read("admin/space_snapshot", space=space)
    return json.dumps(rows, default=str).replace(space, "<space>")


def test_workers_write_the_graph_one_process_writes(memory: Memory, space: str) -> None:
    records = conversations()
    alone = f"{space}-alone"
    try:
        one = memory.ingest(records, space=alone)
        many = memory.ingest(records, space=space, workers=2)
        assert (many.conversations, many.sessions, many.turns) == \
            (one.conversations, one.sessions, one.turns)
        assert {n: t.written for n, t in many.layers.items()} == \
            {n: t.written for n, t in one.layers.items()}
        assert snapshot(memory.store, space) == snapshot(memory.store, alone)
        again = memory.ingest(records, space=space, workers=2)  # idempotent as ever
        assert again.count("new arguments") == 0
        assert snapshot(memory.store, space) == snapshot(memory.store, alone)
    finally:
        memory.delete_space(alone)


def test_the_workers_option(space: str, neo4j_server: object) -> None:
    env = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None}
    result = CliRunner().invoke(main, ["ingest", str(DATA / "ppr_conversation.json"),
                                       "--space", space, "--layers", "edus", "--workers", "2"],
                                env=env)
    assert result.exit_code == 0, result.output
    assert f"space {space!r}: " in result.output and "edus:" in result.output
    result = CliRunner().invoke(main, ["ingest", str(SAMPLE), "--space", space,
                                       "--workers", "0"], env=env)
    assert result.exit_code == 2 and "--workers" in result.output


def test_a_failing_worker_is_one_clear_error_naming_what_was_stored(
        settings: Settings, space: str) -> None:
    # nothing listens there (a wrong password instead would lock the suite's server's user
    # for a while after a few tries)
    wrong = settings.model_copy(update={"neo4j_uri": f"bolt://127.0.0.1:{free_port()}",
                                        "neo4j_timeout": 1.0})
    report = IngestReport(space=space)
    with pytest.raises(DatabaseUnavailable, match="cannot reach Neo4j") as caught:
        write_parallel(wrong, space, conversations(), run_order(["turns"]), 2, report)
    assert "0 of 4 conversations were stored (none) before a worker failed" in \
        " ".join(caught.value.__notes__)
    assert report.conversations == 0


def test_several_spaces_at_once_equal_each_ingested_alone(memory: Memory, space: str) -> None:
    """One haystack per space (LongMemEval's layout), written by two workers over all spaces."""
    sample, *others = conversations()[2:]
    jobs = {f"{space}-a": [sample], f"{space}-b": others}
    alone = {name: f"{name}-alone" for name in jobs}
    seen: list[tuple[str, int]] = []
    try:
        for name, records in jobs.items():
            memory.ingest(records, space=alone[name])
        reports = memory.ingest_spaces(jobs, workers=2,
                                       stored=lambda s, r: seen.append((s, r.turns)))
        for name, records in jobs.items():
            assert snapshot(memory.store, name) == snapshot(memory.store, alone[name])
            assert reports[name].conversations == len(records)
            assert reports[name].turns == sum(r.n_turns for r in records) > 0
            assert reports[name].seconds > 0
        assert sorted(seen) == sorted((name, r.n_turns) for name, recs in jobs.items()
                                      for r in recs)
        with pytest.raises(InputError):  # checked before anything is written
            memory.ingest_spaces({f"{space}-c": [sample], "": [sample]})
        assert f"{space}-c" not in {row["space"] for row in memory.spaces()}
    finally:
        for name in [*jobs, *alone.values()]:
            memory.delete_space(name)


PARENT = """
import multiprocessing, sys, threading, time
from pathlib import Path
from graphmem.config import Settings
from graphmem.ingest.layers import run_order
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.parallel import write_parallel
from graphmem.models import IngestReport

first = parse_file(Path(sys.argv[2])).conversations[0]
records = [first.model_copy(update={"key": f"c{n}"}) for n in range(40)]
threading.Thread(target=write_parallel, daemon=True, args=(
    Settings(), sys.argv[1], records, run_order(["turns", "edus"]), 2,
    IngestReport(space=sys.argv[1]))).start()
while len(multiprocessing.active_children()) < 2:
    time.sleep(0.05)
print(" ".join(str(p.pid) for p in multiprocessing.active_children()), flush=True)
time.sleep(600)
"""


def _running(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
    except FileNotFoundError:
        return False


def test_workers_end_when_the_ingest_that_started_them_is_killed(space: str,
                                                                 neo4j_server: object) -> None:
    """A killed `graphmem ingest --workers N` leaves no worker behind writing on its own."""
    parent = subprocess.Popen([sys.executable, "-c", PARENT, space, str(SAMPLE)],
                              stdout=subprocess.PIPE, text=True)
    pids: list[int] = []
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) >= 2 and all(_running(p) for p in pids)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(10)
        deadline = time.monotonic() + 20
        while any(_running(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not any(_running(p) for p in pids)
    finally:
        parent.kill()
        for pid in filter(_running, pids):  # a failed run must not leave them writing
            os.kill(pid, signal.SIGKILL)
