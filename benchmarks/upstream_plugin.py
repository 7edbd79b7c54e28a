"""A pytest plugin for ``benchmarks/upstream_suites.py``: in the frameworks' own test
modules, the reference store a test constructs (LangGraph's ``InMemoryStore`` and
``SqliteStore``, the Agents SDK's ``SQLiteSession``) is replaced, at each test's setup, by
graphmem's adapter on the configured Neo4j; nothing else of the upstream tests is changed.
Every space a test made is deleted after it."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest

from graphmem import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.langgraph import GraphmemStore
from graphmem.integrations.openai_agents import GraphmemSession

_memory: Memory | None = None
_before: set[str] = set()
_space = "upstream-agents"


def memory() -> Memory:
    global _memory
    if _memory is None:
        _memory = Memory()
    return _memory


class UpstreamStore(GraphmemStore):
    """``InMemoryStore(**options)``: graphmem's store; its embedding options are graphmem's."""

    def __init__(self, **options: Any) -> None:
        super().__init__(memory())


class UpstreamSqliteStore:
    """``SqliteStore.from_conn_string(...)`` as checkpoint-sqlite's tests open it: graphmem's
    store (``setup()`` has nothing to do: the schema is graphmem's)."""

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn: str, **options: Any) -> Iterator[GraphmemStore]:
        store = UpstreamStore()
        store.setup = lambda: None  # type: ignore[attr-defined]
        yield store


def upstream_session(session_id: str, db_path: Any = ":memory:", **options: Any) -> Any:
    """``SQLiteSession(session_id, db_path, session_settings=...)``: graphmem's session, one
    conversation per session id in the test's own space (the database path is not used; its
``close()``, which SQLiteSession has for its file and the Session protocol does not, does
nothing)."""
    session = GraphmemSession(AgentMemory(memory(), _space, session_id),
                              session_settings=options.get("session_settings"))
    session.close = lambda: None  # type: ignore[attr-defined]  # SQLite's file, not a contract
    return session


@pytest.hookimpl(tryfirst=True)  # before the test's own fixtures open a store
def pytest_runtest_setup(item: pytest.Item) -> None:
    global _before, _space
    module = getattr(item, "module", None)
    if module is None:
        return
    _before = {s["space"] for s in memory().spaces()}
    _space = f"upstream-agents-{uuid.uuid4().hex[:8]}"
    if hasattr(module, "InMemoryStore"):
        module.InMemoryStore = UpstreamStore
    if hasattr(module, "SqliteStore"):
        module.SqliteStore = UpstreamSqliteStore
    if hasattr(module, "SQLiteSession"):
        module.SQLiteSession = upstream_session


def pytest_runtest_teardown(item: pytest.Item) -> None:
    for made in {s["space"] for s in memory().spaces()} - _before:
        memory().delete_space(made)
