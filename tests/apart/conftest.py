"""The frameworks that cannot share graphmem's test environment (Strands pins an older MCP
than graphmem's servers need, CrewAI too): ``./run tests`` runs this folder in ``.venv-apart``
(``graphmem[apart]``), against the same real Neo4j. In an environment without them the
folder is not collected; where ``GRAPHMEM_APART`` is set, one missing is an error."""

from __future__ import annotations

import importlib.util
import os

import pytest

APART = ("strands", "crewai")  # the imports the test modules of this folder need
missing = [name for name in APART if importlib.util.find_spec(name) is None]
if missing and os.environ.get("GRAPHMEM_APART"):
    raise RuntimeError(f"GRAPHMEM_APART is set but {', '.join(missing)} is not installed")
collect_ignore_glob = ["test_*.py"] if missing else []
os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")  # tests send nothing anywhere
os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/apart/" in str(item.fspath):
            item.add_marker(pytest.mark.neo4j)
