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
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.live import LiveReport, Message
from graphmem.ingest.writer import IngestReport
from graphmem.models import Answer, ConversationRecord, SearchResult

T = TypeVar("T")


class AsyncMemory:
    """The async twin of :class:`~graphmem.client.Memory`, with the same methods awaited."""

    def __init__(self, settings: Settings | None = None, *, memory: Memory | None = None,
                 concurrency: int = 4, **memory_options: Any) -> None:
        self.memory = memory or Memory(settings, **memory_options)
        self._slots = asyncio.Semaphore(concurrency)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _call(self, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
        async with self._slots:
            return await asyncio.to_thread(partial(func, *args, **kwargs))

    async def close(self) -> None:
        await asyncio.to_thread(self.memory.close)

    async def warm_up(self) -> float:
        return await self._call(self.memory.warm_up)

    async def ingest(self, source: str | Path | Sequence[ConversationRecord], *, space: str,
                     **options: Any) -> IngestReport:
        return await self._call(self.memory.ingest, source, space=space, **options)

    async def add_messages(self, space: str, conversation: str,
                           messages: Sequence[Message | Mapping[str, Any]], *,
                           session: str | None = None) -> LiveReport:
        return await self._call(self.memory.add_messages, space, conversation, messages,
                                session=session)

    async def refresh(self, space: str, conversation: str | None = None
                      ) -> dict[str, list[str]]:
        return await self._call(self.memory.refresh, space, conversation)

    async def search(self, question: str, *, space: str, strategy: str | None = None,
                     budget: int | None = None, **overrides: Any) -> SearchResult:
        return await self._call(self.memory.search, question, space=space, strategy=strategy,
                                budget=budget, **overrides)

    async def answer(self, question: str, *, space: str, strategy: str | None = None,
                     budget: int | None = None, today: str | None = None) -> Answer:
        return await self._call(self.memory.answer, question, space=space, strategy=strategy,
                                budget=budget, today=today)

    async def spaces(self) -> list[dict[str, Any]]:
        return await self._call(self.memory.spaces)

    async def has_space(self, space: str) -> bool:
        return await self._call(self.memory.has_space, space)

    async def delete_space(self, space: str) -> bool:
        return await self._call(self.memory.delete_space, space)
