"""docs/extending.md's worked example, a plug-in package (tests/plugin_example/) that adds a
layer, a strategy and a Cypher folder from outside graphmem: the page shows the package as it
is, its code runs as the page says, and once installed the CLI finds it by its entry point."""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.errors import ConfigurationError
from graphmem.ingest import layers
from graphmem.retrieve import registry
from graphmem.retrieve.fused import pipeline, sources
from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.ranker import from_json
from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors, read_space_vectors

from helpers import SAMPLE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
PACKAGE = Path(__file__).resolve().parents[1] / "plugin_example"
BLOCK = re.compile(r"```(?:python|cypher|toml)\n(?:#|//) file: (\S+)\n(.*?)```", re.DOTALL)


def blocks() -> dict[str, str]:
    return dict(BLOCK.findall(PAGE.read_text(encoding="utf-8")))


def test_the_page_shows_the_package_as_it_is() -> None:
    shown = {name: text for name, text in blocks().items()
             if name not in ("use_it.py", "retrain.py")}
    files = {str(p.relative_to(PACKAGE)): p.read_text(encoding="utf-8")
             for p in PACKAGE.rglob("*") if p.is_file() and "__pycache__" not in p.parts}
    assert shown == files


@pytest.fixture()
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
            qa_pairs: ModuleType) -> Iterator[Path]:
    """The plug-in loaded and the page's usage and retraining scripts beside it."""
    for script in ("use_it.py", "retrain.py"):
        (tmp_path / script).write_text(blocks()[script], encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    sys.modules.pop("use_it", None)
    sys.modules.pop("retrain", None)


def test_the_worked_example_runs_as_documented(example: Path, memory: Memory,
                                               space: str) -> None:
    qa_pairs = importlib.import_module("qa_pairs")  # loaded by the fixture, as installed
    use_it = importlib.import_module("use_it")
    assert qa_pairs.QuestionLayer.read_options(memory.settings).mark == "?"
    with pytest.MonkeyPatch.context() as env:  # its own variables, GRAPHMEM_QUESTIONS_*
        env.setenv("GRAPHMEM_QUESTIONS_MARK", "!")
        assert qa_pairs.QuestionLayer.read_options(memory.settings).mark == "!"
    assert "questions" in layers.LAYERS and "asked" in registry.RECIPES
    assert "questions/asked" in cypher.names()
    memory.ensure_schema()  # creates the example's constraint with graphmem's own
    context = use_it.ask(memory, str(SAMPLE), space)
    shown = PAGE.read_text(encoding="utf-8").rsplit("```\n[", 1)[1].split("```")[0]
    assert context.startswith("[" + shown.strip())
    stored = memory.store.read("admin/space_state", space=space, layers=["questions"])[0]
    assert stored["layers"] == [{"layer": "questions", "missing": 0, "pending": 0}]
    # and a space without the layer is told how to get it
    other = space + "-plain"
    memory.ingest(SAMPLE, space=other, layers="")
    try:
        with pytest.raises(Exception, match="graphmem layers add questions"):
            memory.search("How far?", space=other, strategy="asked")
    finally:
        memory.delete_space(other)


def test_a_plugin_source_feeds_graphmem_once_a_ranker_reads_it(
        example: Path, memory: Memory, space: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    retrain = importlib.import_module("retrain")
    memory.ensure_schema()
    memory.ingest(SAMPLE, space=space, layers="questions")
    ran: list[Signals] = []
    real = pipeline.gather

    def spy(*args: Any, **kwargs: Any) -> Signals:
        ran.append(real(*args, **kwargs))
        return ran[-1]

    monkeypatch.setattr(pipeline, "gather", spy)
    question = "How far is Jonas running these days?"
    memory.search(question, space=space, strategy="graphmem", budget=200)
    assert "questions" not in ran[-1].sources  # the shipped ranker does not read it
    out = tmp_path / "ranker_with_questions.json"
    assert retrain.retrain(memory, space, out) == ["questions:rr", "questions:depth",
                                                   "questions:score"]
    shown = PAGE.read_text(encoding="utf-8")
    assert "returns `['questions:rr', 'questions:depth', 'questions:score']`" in shown
    result = memory.search(question, space=space, strategy="graphmem", budget=200,
                           model=str(out))
    assert "questions" in ran[-1].sources and ran[-1].ranks["questions"]
    assert "Sixteen kilometres on Sundays" in result.context
    monkeypatch.setattr(memory.settings, "ranker", out)  # GRAPHMEM_RANKER, for servers
    memory.search(question, space=space, strategy="graphmem", budget=200)
    assert "questions" in ran[-1].sources
    # dense: a small space's questions are scored in the client from the vectors that
    # questions/vectors reads, ranked as questions/asked ranks them in Neo4j for a large one
    held = ran[-1]
    assert held.held is not None and len(held.held.sources["questions"].ids) >= 2
    monkeypatch.setattr(memory.store.settings, "client_vectors_max_turns", 0)
    memory.search(question, space=space, strategy="graphmem", budget=200)
    assert ran[-1].held is None
    in_neo4j = ran[-1].ranks["questions"]
    assert {row: rank for row, (rank, _) in held.ranks["questions"].items()} == \
        {row: rank for row, (rank, _) in in_neo4j.items()}
    assert all(abs(score - in_neo4j[row][1]) < 1e-5
               for row, (_, score) in held.ranks["questions"].items())
    # after a change the client reads again only the units it lacks, by id, through the
    # plug-in's statement, and ends with what a whole read gives
    whole = read_space_vectors(memory.store, space, ["questions"]).sources["questions"]
    lacking = SpaceVectors({"questions": DenseUnits.build(
        whole.ids[1:], list(whole.vectors[1:]), whole.turn_ids[1:], whole.hashes[1:])})
    asked: list[tuple[str, Any]] = []
    read = memory.store.read_plain

    def spy_read(name: str, **params: Any) -> list[dict[str, Any]]:
        asked.append((name, params.get("ids")))
        return read(name, **params)

    monkeypatch.setattr(memory.store, "read_plain", spy_read)
    again = read_space_vectors(memory.store, space, ["questions"], lacking).sources["questions"]
    assert asked == [("questions/vectors", None), ("questions/vectors", [whole.ids[0]])]
    assert again.ids == whole.ids and again.turn_ids == whole.turn_ids
    assert np.array_equal(again.vectors, whole.vectors)
    # a process without the plug-in cannot read a ranker that needs its source
    sources.unregister_source("questions")
    with pytest.raises(ConfigurationError, match="plug-in's source"):
        from_json(json.loads(out.read_text()), out.parent)


def test_an_installed_plugin_is_found_by_the_cli(tmp_path: Path, space: str,
                                                neo4j_server: object) -> None:
    target, source = tmp_path / "site", tmp_path / "plugin_example"
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("__pycache__"))
    installed = subprocess.run(  # from a copy: a build leaves its folders beside the source
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation",
         "--target", str(target), str(source)], capture_output=True, text=True, timeout=300,
        check=False, cwd=tmp_path)
    assert installed.returncode == 0, installed.stderr[-2000:]
    env = {k: v for k, v in os.environ.items() if not k.startswith("GRAPHMEM_LLM")}
    env["PYTHONPATH"] = os.pathsep.join([str(target), env.get("PYTHONPATH", "")])

    def cli(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "graphmem", *args], env=env, text=True,
                              capture_output=True, timeout=300, check=False, cwd=tmp_path)
        assert done.returncode == 0, done.stdout + done.stderr[-2000:]
        return done.stdout

    assert "qa_pairs" in cli("plugins")
    assert "asked" in cli("strategies")
    cli("ingest", str(SAMPLE), "--space", space, "--layers", "questions")
    found = cli("search", "How far are you running these days?", "--space", space,
                "--strategy", "asked", "--budget", "100")
    assert "Maya: How far are you running at the moment?" in found
    assert "questions" in cli("layers", "list", "--space", space)
