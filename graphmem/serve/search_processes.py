"""Searches in processes of their own, for ``graphmem serve`` (``GRAPHMEM_SEARCH_PROCESSES``).

A search is mostly Python (ranking, packing) and holds the interpreter's lock while it runs.
In the process that also adds and forgets, every round trip of an add to Neo4j must take that
lock back from the searches running beside it, so under many searches an add waits on them
even though it never waits on their data. Here the searches run in other processes, each a
:class:`multiprocessing.managers.BaseManager` server holding its own :class:`Memory` (its
models loaded before the server answers), and the operating system shares the cores between
the two kinds of work, as it does between graphmem and Neo4j.

Nothing is lost by it: a search reads the space from Neo4j, keyed by the space's revision that
every change writes, so a message is found as soon as its add returns and a forgotten one is
not served from a cache, whichever process wrote it. Each request thread of the server has
its own connection to a search process (the manager's proxies keep one per thread), and the
search process answers each connection on a thread of its own, so searches still overlap.

A search process that ended (killed, out of memory) is started again, and the search that
found it gone is asked once more (a search changes nothing). A search process ends with the
server that started it, even when that one is killed.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import threading
from multiprocessing.connection import wait
from multiprocessing.managers import BaseManager, BaseProxy
from typing import Any

from graphmem.config import Settings
from graphmem.models import SearchResult
from graphmem.telemetry import incoming_context, outgoing_context

log = logging.getLogger("graphmem.serve")

# what a manager's connection raises when its process is gone
_GONE = (EOFError, ConnectionError, FileNotFoundError)


def default_count() -> int:
    """Half the cores this process may run on, at least one and at most four: the other half
    serves the writes and Neo4j. (A container's CPU quota is not seen here; set
    ``GRAPHMEM_SEARCH_PROCESSES`` there.)"""
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return max(1, min(4, (cores or 2) // 2))


class _Searcher:
    """The object a search process serves: one ``Memory``, its models loaded."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings

    def start(self) -> None:
        """Load the models and reach Neo4j (a method, not the constructor: a method's error
        reaches the server as itself, a constructor's only as text)."""
        from graphmem.client import Memory

        self.memory = Memory(self.settings)
        self.memory.warm_up()

    def search(self, space: str, arguments: dict[str, Any],
               trace: dict[str, str]) -> SearchResult:
        with incoming_context(trace):  # its spans continue the request's trace
            return self.memory.search(space=space, **arguments)

    def pid(self) -> int:
        return os.getpid()


class _Manager(BaseManager):
    pass


_Manager.register("Searcher", _Searcher, exposed=("start", "search", "pid"))


def _end_with_parent() -> None:
    """In a search process: end as soon as the server that started it ends."""
    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        wait([parent.sentinel])
        os._exit(0)

    threading.Thread(target=watch, name="graphmem-parent-watch", daemon=True).start()


class _Slot:
    """One search process and the proxy of its searcher."""

    def __init__(self, settings: Settings) -> None:
        self.manager = _Manager(ctx=multiprocessing.get_context("spawn"))
        self.manager.start(_end_with_parent)
        try:  # its models load here: Neo4j unreachable, a model missing is raised here
            self.searcher: BaseProxy = self.manager.Searcher(  # type: ignore[attr-defined]
                settings)
            self.searcher.start()
        except BaseException:
            self.close()
            raise
        self.running = 0  # searches in flight

    def alive(self) -> bool:
        """Whether the process still runs; its connections close a moment before it is gone,
        so a process found ending is given a second to end."""
        process = getattr(self.manager, "_process", None)
        if process is None:
            return False
        process.join(timeout=1.0)
        return bool(process.is_alive())

    def close(self) -> None:
        try:
            self.manager.shutdown()
        except Exception:  # already gone: nothing to stop
            log.debug("a search process was already gone", exc_info=True)


class SearchProcesses:
    """``count`` search processes; :meth:`search` takes the arguments of
    :meth:`graphmem.client.Memory.search` and gives its result (or raises its error)."""

    def __init__(self, settings: Settings, count: int) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._slots: list[_Slot] = []
        try:
            for _ in range(count):
                self._slots.append(_Slot(settings))
        except BaseException:
            self.close()
            raise

    def pids(self) -> list[int]:
        """The search processes' ids (for the operator, and the tests)."""
        return [int(slot.searcher.pid()) for slot in self._slots]  # type: ignore[attr-defined]

    def search(self, question: str, *, space: str, **arguments: Any) -> SearchResult:
        with self._lock:
            slot = min(self._slots, key=lambda s: s.running)
            slot.running += 1
        try:
            try:
                return self._ask(slot, space, {"question": question, **arguments})
            except _GONE:
                if slot.alive():
                    raise
            log.warning("a search process ended; starting another and asking it again")
            return self._ask(self._replace(slot), space, {"question": question, **arguments})
        finally:
            with self._lock:
                slot.running -= 1

    def _ask(self, slot: _Slot, space: str, arguments: dict[str, Any]) -> SearchResult:
        result: SearchResult = slot.searcher.search(  # type: ignore[attr-defined]
            space, arguments, outgoing_context())
        return result

    def _replace(self, gone: _Slot) -> _Slot:
        with self._lock:
            if gone not in self._slots:  # another request thread replaced it already
                return min(self._slots, key=lambda s: s.running)
        fresh = _Slot(self._settings)  # outside the lock: the models take seconds to load
        with self._lock:
            if gone in self._slots:
                self._slots[self._slots.index(gone)] = fresh
                gone.close()
                return fresh
        fresh.close()  # another thread's replacement won
        return min(self._slots, key=lambda s: s.running)

    def close(self) -> None:
        for slot in self._slots:
            slot.close()
        self._slots = []

    def __enter__(self) -> SearchProcesses:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
