"""Every benchmark and study script answers ``--help`` (its docstring first) without running
anything: the scripts are not run by the suite, so this is what keeps their imports and
arguments from rotting when the code they measure moves. Studies change no product code while
they run (they vary what the code takes as options and arguments)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
STUDIES = ROOT / "studies"
HELPERS = {"common.py", "upstream_plugin.py"}  # imported by the scripts, not run
SCRIPTS = sorted(p for folder in (BENCHMARKS, STUDIES) for p in folder.glob("*.py")
                 if p.name not in HELPERS)
PRODUCT = ("graphmem", "ingest", "retrieve")


def test_every_script_is_listed_in_its_folders_readme() -> None:
    unlisted = [p.name for p in SCRIPTS
                if f"`{p.name}`" not in (p.parent / "README.md").read_text(encoding="utf-8")]
    assert unlisted == []


def test_no_study_or_benchmark_assigns_into_product_code() -> None:
    """``module.name = ...`` or ``Class.method = ...`` on something imported from graphmem
    would measure code that does not ship."""
    import ast

    found = []
    for script in [*SCRIPTS, *(BENCHMARKS / "peers").glob("*.py")]:
        tree = ast.parse(script.read_text(encoding="utf-8"))
        product = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(PRODUCT):
                product.update(a.asname or a.name for a in node.names)
            elif isinstance(node, ast.Import):
                product.update(a.asname or a.name.split(".")[0] for a in node.names
                               if a.name.startswith(PRODUCT))
        for node in ast.walk(tree):
            targets = node.targets if isinstance(node, ast.Assign) else (
                [node.target] if isinstance(node, ast.AugAssign | ast.AnnAssign) else [])
            for target in targets:
                base = target
                while isinstance(base, ast.Attribute):
                    base = base.value
                if (isinstance(target, ast.Attribute) and isinstance(base, ast.Name)
                        and base.id in product):
                    found.append(f"{script.name}:{node.lineno}")
    assert found == []


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
