"""docs/extending.md's worked example, run as the page shows it: a layer, a strategy and a
Cypher folder added from outside graphmem."""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.ingest import layers
from graphmem.retrieve import registry

from helpers import SAMPLE

PAGE = Path(__file__).resolve().parents[2] / "docs" / "extending.md"
BLOCK = re.compile(r"```(?:python|cypher)\n(?:#|//) file: (\S+)\n(.*?)```", re.DOTALL)


@pytest.fixture()
def example(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The page's files written out, importable; graphmem's registries restored afterwards."""
    blocks = BLOCK.findall(PAGE.read_text(encoding="utf-8"))
    assert {name for name, _ in blocks} >= {"qa_pairs.py", "use_it.py",
                                            "cypher/questions/asked.cypher"}
    for name, text in blocks:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(cypher, "_EXTRA", [])
    saved_layers, saved_recipes = dict(layers.LAYERS), dict(registry.RECIPES)
    yield tmp_path
    for live, saved in ((layers.LAYERS, saved_layers), (registry.RECIPES, saved_recipes)):
        live.clear()
        live.update(saved)  # type: ignore[arg-type]
    for module in ("qa_pairs", "use_it"):
        sys.modules.pop(module, None)
    cypher._catalog.cache_clear()
    cypher.names.cache_clear()


def test_the_worked_example_runs_as_documented(example: Path, memory: Memory,
                                               space: str) -> None:
    use_it = importlib.import_module("use_it")
    assert "questions" in layers.LAYERS and "asked" in registry.RECIPES
    assert "questions/asked" in cypher.names()
    memory.ensure_schema()  # creates the example's constraint with graphmem's own
    context = use_it.ask(memory, str(SAMPLE), space)
    shown = PAGE.read_text(encoding="utf-8").rsplit("```\n[", 1)[1].split("```")[0]
    assert context.startswith("[" + shown.strip())
    stored = memory.store.read("admin/space_state", space=space, layers=["questions"])[0]
    assert stored["layers"] == [{"layer": "questions", "missing": 0}]
    # and a space without the layer is told how to get it
    other = space + "-plain"
    memory.ingest(SAMPLE, space=other, layers="")
    try:
        with pytest.raises(Exception, match="graphmem layers add questions"):
            memory.search("How far?", space=other, strategy="asked")
    finally:
        memory.delete_space(other)
