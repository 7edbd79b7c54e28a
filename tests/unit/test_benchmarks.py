"""Every benchmark script answers ``--help`` (its docstring first) without running anything:
the scripts are not run by the suite, so this is what keeps their imports and arguments
from rotting when the code they measure moves."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"
HELPERS = {"common.py", "upstream_plugin.py"}  # imported by the scripts, not run
SCRIPTS = sorted(p for p in BENCHMARKS.glob("*.py") if p.name not in HELPERS)


def test_every_script_is_listed_in_the_benchmarks_readme() -> None:
    readme = (BENCHMARKS / "README.md").read_text(encoding="utf-8")
    assert [p.name for p in SCRIPTS if f"`{p.name}`" not in readme] == []


@pytest.mark.slow  # trains or starts processes: left out of ./run check
def test_every_script_answers_help() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(BENCHMARKS.parent), os.environ.get("PYTHONPATH", "")])}
    running = {p: subprocess.Popen([sys.executable, str(p), "--help"], env=env, text=True,
                                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
               for p in SCRIPTS}
    failed = {}
    for script, process in running.items():
        out, err = process.communicate(timeout=300)
        doc = (script.read_text(encoding="utf-8").split('"""')[1].strip().splitlines() or [""])[0]
        if process.returncode != 0 or "usage:" not in out or doc[:40] not in out:
            failed[script.name] = (process.returncode, err[-500:])
    assert failed == {}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_every_script_has_a_docstring(script: Path) -> None:
    assert script.read_text(encoding="utf-8").startswith('"""'), script.name
