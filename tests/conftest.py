"""Shared fixtures. Integration tests run against the real local Neo4j + GDS server, which the
test session starts when it is not running yet (it is left running for the next session;
`graphmem neo4j stop` or `.ci/run` stops it)."""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore

# hooks run by tests load their models themselves unless a test asks for the local server
# (tests/integration/test_hook_local.py): a server per test's space would outlive the test
os.environ.setdefault("GRAPHMEM_HOOK_LOCAL", "0")


@pytest.fixture(scope="session")
def settings() -> Settings:
    return Settings()


@pytest.fixture(scope="session")
def neo4j_server(settings: Settings) -> object:
    from graphmem.neo4j_server.local import LocalNeo4j

    return LocalNeo4j(settings).start()


@pytest.fixture(scope="session")
def store(settings: Settings, neo4j_server: object) -> Iterator[GraphStore]:
    with GraphStore(settings) as graph:
        graph.apply_schema()
        yield graph


@pytest.fixture(scope="session")
def embedder(settings: Settings) -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder.from_settings(settings)


@pytest.fixture()
def space(store: GraphStore) -> Iterator[str]:
    """A fresh space for one test, removed afterwards."""
    name = f"test-{uuid.uuid4().hex[:12]}"
    yield name
    store.run_autocommit("admin/delete_space", space=name)


@pytest.fixture()
def memory(settings: Settings, store: GraphStore,
           embedder: SentenceTransformerEmbedder) -> Iterator[Memory]:
    # shares the session's driver: Memory.close() is not called so the driver stays open, but
    # its background derivation of live messages is finished and stopped
    memory = Memory(settings, store=store, embedder=embedder)
    yield memory
    memory.live.close()


@pytest.fixture()
def one_statement_at_a_time() -> Iterator[None]:
    """For tests of one Cypher file at a time: its writes run outside GraphStore.change, the
    door graphmem's own write paths must take (``tests/integration/test_space_door.py``)."""
    from graphmem.store import statement_by_statement

    with statement_by_statement():
        yield
