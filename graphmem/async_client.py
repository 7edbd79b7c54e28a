"""``AsyncMemory``: the client for asyncio code (agent frameworks, async web servers).

    from graphmem import AsyncMemory
    async with AsyncMemory() as memory:
        await memory.add_messages("alice", "chat", [{"role": "user", "content": "Hi!"}])
        result = await memory.search("What did Alice say?", space="alice")

Each call runs the synchronous :class:`~graphmem.client.Memory` in a worker thread, at most
``concurrency`` at once, so the event loop is never blocked. Most of a call's time goes to
embedding, parsing and ranking on the CPU, which an async database driver would not take off
the loop; the threads let that work overlap with other requests' waits on Neo4j, and the sync
client stays the one implementation of every operation.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from functools import partial, wraps
from typing import Any, Concatenate, ParamSpec, TypeVar

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.llm import LLM, TokenUsage

T = TypeVar("T")
P = ParamSpec("P")
CONCURRENCY = 4  # blocking calls in worker threads at once, by default


def awaited(method: Callable[Concatenate[Memory, P], T]
            ) -> Callable[Concatenate[AsyncMemory, P], Coroutine[Any, Any, T]]:
    """``Memory``'s ``method`` as a coroutine of :class:`AsyncMemory`: the same name,
    parameters, defaults and documentation (its signature is the method's own), run in a
    worker thread. The twin is made from the method, never written out again, so a parameter
    added to ``Memory`` is on ``AsyncMemory`` with no other edit."""
    name = method.__name__

    @wraps(method)
    async def twin(self: AsyncMemory, /, *args: P.args, **kwargs: P.kwargs) -> T:
        return await self._call(getattr(self.memory, name), *args, **kwargs)

    twin.__qualname__ = f"AsyncMemory.{name}"
    return twin


class AsyncMemory:
    """The async twin of :class:`~graphmem.client.Memory`: every operation of
    :mod:`graphmem.operations`, with the same parameters, awaited
    (``tests/integration/test_operations.py`` holds the two to that list)."""

    def __init__(self, settings: Settings | None = None, *, memory: Memory | None = None,
                 concurrency: int = CONCURRENCY, **memory_options: Any) -> None:
        self.memory = memory or Memory(settings, **memory_options)
        self._slots = asyncio.Semaphore(concurrency)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        async with self._slots:
            return await asyncio.to_thread(partial(func, *args, **kwargs))

    # ---------------------------------------------------------------- the client itself
    @property
    def llm(self) -> LLM | None:
        return self.memory.llm

    async def close(self) -> None:
        await asyncio.to_thread(self.memory.close)  # never waits for a slot

    async def llm_usage(self) -> dict[str, TokenUsage]:
        return self.memory.llm_usage()  # counters in memory: nothing blocks

    warm_up = awaited(Memory.warm_up)
    ensure_schema = awaited(Memory.ensure_schema)
    flush = awaited(Memory.flush)

    # ---------------------------------------------------------------- remember
    ingest = awaited(Memory.ingest)
    ingest_spaces = awaited(Memory.ingest_spaces)
    add_layers = awaited(Memory.add_layers)
    add_messages = awaited(Memory.add_messages)
    refresh = awaited(Memory.refresh)

    # ---------------------------------------------------------------- recall
    search = awaited(Memory.search)
    answer = awaited(Memory.answer)

    # ---------------------------------------------------------------- what is stored
    spaces = awaited(Memory.spaces)
    has_space = awaited(Memory.has_space)
    conversations = awaited(Memory.conversations)
    messages = awaited(Memory.messages)
    unit = awaited(Memory.unit)
    history = awaited(Memory.history)

    # ---------------------------------------------------------------- change and remove
    forget = awaited(Memory.forget)
    correct = awaited(Memory.correct)
    delete_space = awaited(Memory.delete_space)
    export_space = awaited(Memory.export_space)
    import_space = awaited(Memory.import_space)
    reembed = awaited(Memory.reembed)
