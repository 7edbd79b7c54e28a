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
from datetime import datetime
from functools import partial
from pathlib import Path
from typing import Any, Literal, TypeVar

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.embedding_rows import BATCH
from graphmem.ingest.inputs.loaders import BadTurnPolicy, Format
from graphmem.ingest.live import Message
from graphmem.models import (
    Answer,
    ConversationRecord,
    CorrectReport,
    ForgetReport,
    IngestReport,
    LiveReport,
    MessagePage,
    ReembedReport,
    SearchResult,
    SpaceChange,
    SpaceFileReport,
    StoredConversation,
    StoredUnit,
)
from graphmem.providers.llm import LLM, TokenUsage

T = TypeVar("T")
CONCURRENCY = 4  # blocking calls in worker threads at once, by default


class AsyncMemory:
    """The async twin of :class:`~graphmem.client.Memory`: every public method of it, with the
    same parameters, awaited (``tests/integration/test_operations.py`` holds the two to one
    list, :mod:`graphmem.operations`)."""

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
        await asyncio.to_thread(self.memory.close)

    async def warm_up(self) -> float:
        return await self._call(self.memory.warm_up)

    async def ensure_schema(self) -> None:
        await self._call(self.memory.ensure_schema)

    async def flush(self, timeout: float | None = None) -> bool:
        return await self._call(self.memory.flush, timeout)

    async def llm_usage(self) -> dict[str, TokenUsage]:
        return self.memory.llm_usage()

    # ---------------------------------------------------------------- remember
    async def ingest(self, source: str | Path | Sequence[ConversationRecord], *, space: str,
                     format: Format | Literal["auto"] = "auto",
                     skip_invalid: bool = False, bad_turns: BadTurnPolicy = "error",
                     layers: str | Sequence[str] | None = None,
                     workers: int | None = None) -> IngestReport:
        return await self._call(self.memory.ingest, source, space=space, format=format,
                                skip_invalid=skip_invalid, bad_turns=bad_turns, layers=layers,
                                workers=workers)

    async def ingest_spaces(self, records: Mapping[str, Sequence[ConversationRecord]], *,
                            layers: str | Sequence[str] | None = None,
                            workers: int | None = None,
                            stored: Callable[[str, IngestReport], None] | None = None
                            ) -> dict[str, IngestReport]:
        return await self._call(self.memory.ingest_spaces, records, layers=layers,
                                workers=workers, stored=stored)

    async def add_layers(self, space: str, layers: str | Sequence[str]) -> IngestReport:
        return await self._call(self.memory.add_layers, space, layers)

    async def add_messages(self, space: str, conversation: str,
                           messages: Sequence[Message | Mapping[str, Any]], *,
                           session: str | None = None,
                           layers: str | Sequence[str] | None = None) -> LiveReport:
        return await self._call(self.memory.add_messages, space, conversation, messages,
                                session=session, layers=layers)

    async def refresh(self, space: str, conversation: str | None = None
                      ) -> dict[str, list[str]]:
        return await self._call(self.memory.refresh, space, conversation)

    # ---------------------------------------------------------------- recall
    async def search(self, question: str, *, space: str, strategy: str | None = None,
                     budget: int | None = None, max_tokens: int | None = None,
                     **overrides: Any) -> SearchResult:
        return await self._call(self.memory.search, question, space=space, strategy=strategy,
                                budget=budget, max_tokens=max_tokens, **overrides)

    async def answer(self, question: str, *, space: str, strategy: str | None = None,
                     budget: int | None = None, today: str | None = None,
                     max_tokens: int | None = None) -> Answer:
        return await self._call(self.memory.answer, question, space=space, strategy=strategy,
                                budget=budget, today=today, max_tokens=max_tokens)

    # ---------------------------------------------------------------- what is stored
    async def spaces(self) -> list[dict[str, Any]]:
        return await self._call(self.memory.spaces)

    async def has_space(self, space: str) -> bool:
        return await self._call(self.memory.has_space, space)

    async def conversations(self, space: str) -> list[StoredConversation]:
        return await self._call(self.memory.conversations, space)

    async def messages(self, space: str, conversation: str, *, since: datetime | None = None,
                       limit: int = 100, newest_first: bool = False,
                       cursor: int | None = None) -> MessagePage:
        return await self._call(self.memory.messages, space, conversation, since=since,
                                limit=limit, newest_first=newest_first, cursor=cursor)

    async def unit(self, space: str, id: str) -> StoredUnit | None:
        return await self._call(self.memory.unit, space, id)

    async def history(self, space: str, limit: int = 100) -> list[SpaceChange]:
        return await self._call(self.memory.history, space, limit)

    # ---------------------------------------------------------------- change and remove
    async def forget(self, space: str, conversation: str, *,
                     sessions: Sequence[str] | None = None, turns: Sequence[str] | None = None,
                     whole_conversation: bool = False,
                     reuse_ids: bool = False) -> ForgetReport:
        return await self._call(self.memory.forget, space, conversation, sessions=sessions,
                                turns=turns, whole_conversation=whole_conversation,
                                reuse_ids=reuse_ids)

    async def correct(self, space: str, turn_id: str, text: str, *,
                      keep_old: bool = True) -> CorrectReport:
        return await self._call(self.memory.correct, space, turn_id, text, keep_old=keep_old)

    async def delete_space(self, space: str) -> bool:
        return await self._call(self.memory.delete_space, space)

    async def export_space(self, space: str, path: str | Path) -> SpaceFileReport:
        return await self._call(self.memory.export_space, space, path)

    async def import_space(self, path: str | Path, *, replace: bool = False
                           ) -> SpaceFileReport:
        return await self._call(self.memory.import_space, path, replace=replace)

    async def reembed(self, spaces: str | Sequence[str] | None = None, *, batch: int = BATCH,
                      after_batch: Callable[[int], object] | None = None) -> ReembedReport:
        return await self._call(self.memory.reembed, spaces, batch=batch,
                                after_batch=after_batch)
