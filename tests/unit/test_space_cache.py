"""The client's space cache under concurrent searches: one read per entry, and a failed read
is no entry."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from graphmem.retrieve.base import SpaceState
from graphmem.retrieve.space_cache import SpaceCache


def test_searches_missing_one_entry_at_once_read_it_once() -> None:
    cache: SpaceCache[list[int]] = SpaceCache(10)
    store = SimpleNamespace(settings=SimpleNamespace(neo4j_uri="bolt://x"), database="neo4j")
    state = SpaceState("s", 1, 10, 1, {}, "r1")
    loads: list[int] = []
    started = threading.Event()

    def load() -> list[int]:
        loads.append(1)
        started.set()
        time.sleep(0.2)  # a long read: every other search arrives meanwhile
        return [7]

    def failing() -> list[int]:
        raise RuntimeError("Neo4j went away")

    with ThreadPoolExecutor(8) as pool:
        first = pool.submit(cache.get, store, state, load)
        started.wait()
        rest = [pool.submit(cache.get, store, state, load) for _ in range(7)]
        assert [f.result() for f in [first, *rest]] == [[7]] * 8
    assert loads == [1]
    other = SpaceState("s", 1, 10, 1, {}, "r2")
    with pytest.raises(RuntimeError):
        cache.get(store, other, failing)  # type: ignore[arg-type]
    # a failed read is no entry: the next search reads again
    assert cache.get(store, other, load) == [7]  # type: ignore[arg-type]
