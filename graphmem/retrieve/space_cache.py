"""What a client keeps of a space between searches, and when it reads it again.

An entry is keyed by where the space lives and its **revision**: a random value that every
transaction changing the space writes on its ``Space`` node (``ingest/lock_space``) and that
:func:`~graphmem.retrieve.base.space_state` reads in the round trip every search makes anyway.
Any change (an ingest that fixes one word, a live message, a derived layer, a layer added, a
restore, a delete and a new ingest with the same counts, in this process or any other) gives
a new revision, so the next search reads the space again, keeping from the space's latest
entry (:meth:`SpaceCache.latest`) only what is provably unchanged (the readers compare texts
and embedding hashes). The least recently used entries leave first once the entries' total
weight passes the cache's capacity. Searches that miss one entry at once (concurrent calls
right after a write) read it once: the first reads, the others wait for it.

The caches belong to one client (:class:`SpaceCaches`, held by a ``Memory``): two clients in
one process keep their own, with their own capacities.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

if TYPE_CHECKING:
    from graphmem.store import GraphStore

T = TypeVar("T")


class SpaceState(Protocol):
    """What a cache needs of :class:`graphmem.retrieve.base.SpaceState`."""

    @property
    def space(self) -> str: ...

    @property
    def revision(self) -> str | None: ...

    @property
    def epoch(self) -> str | None: ...

    @property
    def appended(self) -> int: ...


def only_appended(epoch: str | None, appended: int, state: SpaceState) -> bool:
    """Whether a part of the space read in ``epoch`` after ``appended`` appended turns differs
    from the space's ``state`` by appended turns alone (``ingest/note_appends``): then a reader
    reads only those, else the part whole."""
    return epoch is not None and epoch == state.epoch and state.appended >= appended


def _where(store: GraphStore, space: str) -> tuple[Any, ...]:
    return (store.settings.neo4j_uri, store.database, space)


def revision_key(store: GraphStore, state: SpaceState) -> tuple[Any, ...]:
    return (*_where(store, state.space), state.revision)


def _one(_: object) -> int:
    return 1


class SpaceCache(Generic[T]):
    """Entries by space revision (plus an ``extra`` part of the key), at most ``capacity`` in
    weight (each entry weighs ``weigh(entry)``; 1 by default)."""

    def __init__(self, capacity: int, weigh: Callable[[T], int] = _one) -> None:
        self.capacity = capacity
        self._weigh = weigh
        self._items: OrderedDict[tuple[Any, ...], tuple[T, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()
        self._loading: dict[tuple[Any, ...], threading.Event] = {}  # keys being read now

    def get(self, store: GraphStore, state: SpaceState, load: Callable[[], T],
            extra: tuple[Any, ...] = ()) -> T:
        key = (*revision_key(store, state), *extra)
        while True:  # one reader loads an entry; the others ask for it wait for that one
            with self._lock:
                found = self._items.get(key)
                if found is not None:
                    self._items.move_to_end(key)
                    return found[0]
                loading = self._loading.get(key)
                if loading is None:
                    loading = self._loading[key] = threading.Event()
                    break
            loading.wait()  # then the entry is there, unless its load failed: load it then
        try:
            value = load()
            self._keep(key, value)
        finally:
            with self._lock:
                self._loading.pop(key).set()
        return value

    def _keep(self, key: tuple[Any, ...], value: T) -> None:
        weight = self._weigh(value)
        with self._lock:
            if key not in self._items:
                # an older revision of the space is never served again: let it go at once
                for old in [k for k in self._items
                            if k[:3] == key[:3] and k[4:] == key[4:] and k != key]:
                    self._weight -= self._items.pop(old)[1]
                self._items[key] = (value, weight)
                self._weight += weight
            while self._weight > self.capacity and len(self._items) > 1:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped

    def latest(self, store: GraphStore, space: str, extra: tuple[Any, ...] = ()) -> T | None:
        """The most recently used entry of ``space`` whatever its revision (with the same
        ``extra``), for a reader that refreshes what changed instead of reading it all."""
        where = _where(store, space)
        with self._lock:
            for key in reversed(self._items):
                if key[:3] == where and key[4:] == extra:
                    return self._items[key][0]
        return None

    def forget(self, space: str) -> None:
        with self._lock:
            for key in [key for key in self._items if key[2] == space]:
                self._weight -= self._items.pop(key)[1]

    def __len__(self) -> int:
        return len(self._items)


class SpaceCaches:
    """One client's caches of its spaces, one :class:`SpaceCache` per part (the turn table,
    the statements, the vectors), each made by the first reader that asks for it with the
    capacity and weight that reader gives."""

    def __init__(self) -> None:
        self._parts: dict[str, SpaceCache[Any]] = {}
        self._lock = threading.Lock()

    def part(self, name: str, capacity: int,
             weigh: Callable[[Any], int] = _one) -> SpaceCache[Any]:
        with self._lock:
            cache = self._parts.get(name)
            if cache is None:
                cache = self._parts[name] = SpaceCache(capacity, weigh)
            cache.capacity = capacity  # a setting read at every search
            return cache

    def forget(self, space: str) -> None:
        """Drop every cached part of ``space`` (it was deleted or restored): memory back at
        once, though its revision would keep the entries from being served anyway."""
        with self._lock:
            parts = list(self._parts.values())
        for cache in parts:
            cache.forget(space)

    def __len__(self) -> int:
        return sum(len(cache) for cache in self._parts.values())
