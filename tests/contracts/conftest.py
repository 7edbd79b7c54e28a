"""The agent frameworks' own contracts, run against graphmem's adapters on the real Neo4j: a
framework's packaged suite where it ships one (langchain-tests), else tests of ours that each
name the upstream test they mirror."""

from __future__ import annotations

import pytest


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "/contracts/" in str(item.fspath):
            item.add_marker(pytest.mark.neo4j)
