"""Many processes and threads searching many spaces with GDS PPR at once, with a cap on
projections far below the number of spaces and a short grace period, so that projections are
made, shared, evicted and made again all the time: no search may fail, and each must find
what a lone search finds. The spaces searched change with phases of a clock shared by every
process (see ``ppr_worker.py``), so the churn happens however fast or slow the machine is."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import uuid

from ppr_worker import QUESTIONS

from graphmem.client import Memory

from helpers import DATA, TESTS

PROCESSES, THREADS, SPACES = 3, 3, 5


def test_concurrent_ppr_searches_never_fail(memory: Memory) -> None:
    spaces = [f"test-ppr-{uuid.uuid4().hex[:8]}-{n}" for n in range(SPACES)]
    try:
        for space in spaces:
            memory.ingest(DATA / "ppr_conversation.json", space=space)
        alone = {q: [h.id.replace(spaces[0], "") for h in memory.search(
            q, space=spaces[0], strategy="emem-g").hits] for q in QUESTIONS}
        env = {**os.environ, "GRAPHMEM_MAX_PROJECTIONS": "2",
               "GRAPHMEM_PROJECTION_GRACE": "1",
               "PYTHONPATH": os.pathsep.join([str(TESTS), os.environ.get("PYTHONPATH", "")])}
        runs = [subprocess.Popen([sys.executable, str(TESTS / "ppr_worker.py"), str(THREADS),
                                  str(seed), *spaces],
                                 env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True) for seed in range(PROCESSES)]
        for run in runs:  # the clock starts once every process has loaded its models
            assert run.stdout is not None and run.stderr is not None
            if run.stdout.readline().strip() != "ready":
                run.wait(timeout=60)
                raise AssertionError(run.stderr.read()[-2000:])
        start = time.time() + 0.5
        outputs = [run.communicate(f"{start}\n", timeout=600) for run in runs]
        for run, (_, err) in zip(runs, outputs, strict=True):
            assert run.returncode == 0, err[-2000:]
        reports = [json.loads(out) for out, _ in outputs]
        errors = [e for report in reports for e in report["errors"]]
        assert errors == [], "\n".join(sorted(set(e[:400] for e in errors)))
        made, evicted = (sum(r["stats"][key] for r in reports) for key in ("made", "evicted"))
        # projections really came and went meanwhile
        assert made > SPACES and evicted > 0, [report["stats"] for report in reports]
        found = [f for report in reports for f in report["found"]]
        assert len(found) == sum(report["tried"] for report in reports) >= PROCESSES * THREADS
        for search in found:  # the same statements, whichever space held them
            ids = [i.replace(str(search["space"]), "") for i in search["ids"]]
            assert ids == alone[search["question"]]
    finally:
        for space in spaces:
            memory.delete_space(space)
