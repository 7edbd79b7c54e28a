"""What a client keeps of a space between searches, and when it reads it again.

An entry is keyed by where the space lives and its shape: its numbers of turns and sessions and
which layers its sessions lack. Any ingest, live message, layer added or removed changes one of
them, so a search after a change reads the space again, keeping from the space's latest entry
(:meth:`SpaceCache.latest`) what did not change; deleting or restoring a space drops its
entries (:func:`forget_space`). The least recently used entries leave first once the
entries' total weight passes the cache's capacity.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from graphmem.retrieve.base import SpaceState
    from graphmem.store import GraphStore

T = TypeVar("T")
_CACHES: list[SpaceCache[Any]] = []


def _where(store: GraphStore, space: str) -> tuple[Any, ...]:
    return (store.settings.neo4j_uri, store.database, space)


def shape_key(store: GraphStore, state: SpaceState) -> tuple[Any, ...]:
    return (*_where(store, state.space), state.turns, state.sessions,
            tuple(sorted(state.missing.items())))


class SpaceCache(Generic[T]):
    """Entries by space shape (plus an ``extra`` part of the key), at most ``capacity`` in
    weight (each entry weighs ``weigh(entry)``; 1 by default)."""

    def __init__(self, capacity: int, weigh: Callable[[T], int] = lambda _: 1) -> None:
        self.capacity = capacity
        self._weigh = weigh
        self._items: OrderedDict[tuple[Any, ...], tuple[T, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        _CACHES.append(self)

    def get(self, store: GraphStore, state: SpaceState, load: Callable[[], T],
            extra: tuple[Any, ...] = ()) -> T:
        key = (*shape_key(store, state), *extra)
        with self._lock:
            found = self._items.get(key)
            if found is not None:
                self._items.move_to_end(key)
                return found[0]
        value = load()  # outside the lock: two first searches may both read; one is kept
        weight = self._weigh(value)
        with self._lock:
            if key not in self._items:
                self._items[key] = (value, weight)
                self._weight += weight
            while self._weight > self.capacity and len(self._items) > 1:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped
        return value

    def latest(self, store: GraphStore, space: str, extra: tuple[Any, ...] = ()) -> T | None:
        """The most recently used entry of ``space`` whatever its shape (with the same
        ``extra``), for a reader that refreshes what changed instead of reading it all."""
        where = _where(store, space)
        with self._lock:
            for key in reversed(self._items):
                if key[:3] == where and key[len(key) - len(extra):] == extra:
                    return self._items[key][0]
        return None

    def forget(self, space: str) -> None:
        with self._lock:
            for key in [key for key in self._items if key[2] == space]:
                self._weight -= self._items.pop(key)[1]

    def __len__(self) -> int:
        return len(self._items)


def forget_space(space: str) -> None:
    """Drop every cached part of ``space`` (it was deleted or restored from a file)."""
    for cache in _CACHES:
        cache.forget(space)
