"""Fixtures of the integration tests (they run against the real local Neo4j)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from graphmem import cypher
from graphmem.ingest import layers
from graphmem.retrieve import registry
from graphmem.retrieve.fused import sources

from helpers import ScriptedServer

PLUGIN_PACKAGE = Path(__file__).resolve().parents[1] / "plugin_example"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/integration/" in str(item.fspath):
            item.add_marker(pytest.mark.neo4j)


@pytest.fixture()
def qa_pairs(monkeypatch: pytest.MonkeyPatch) -> Iterator[ModuleType]:
    """docs/extending.md's example plug-in (tests/plugin_example/) loaded as an installed
    plug-in is: its layer ``questions``, its strategy ``asked``, its candidate source
    ``questions`` and its Cypher folder registered; graphmem's registries restored
    afterwards."""
    monkeypatch.syspath_prepend(str(PLUGIN_PACKAGE))
    monkeypatch.setattr(cypher, "_EXTRA", [])
    saved_layers, saved_recipes = dict(layers.LAYERS), dict(registry.RECIPES)
    cypher._catalog.cache_clear()
    cypher.names.cache_clear()
    yield importlib.import_module("qa_pairs")
    for live, saved in ((layers.LAYERS, saved_layers), (registry.RECIPES, saved_recipes)):
        live.clear()
        live.update(saved)  # type: ignore[arg-type]
    for added in sources.plugin_sources():
        sources.unregister_source(added.name)
    sys.modules.pop("qa_pairs", None)
    cypher._catalog.cache_clear()
    cypher.names.cache_clear()


@pytest.fixture()
def server() -> Iterator[ScriptedServer]:
    """A scripted OpenAI-compatible server (helpers.ScriptedServer), shut down afterwards."""
    srv = ScriptedServer()
    yield srv
    srv.httpd.shutdown()
