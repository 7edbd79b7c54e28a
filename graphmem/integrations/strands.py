"""Strands Agents: graphmem as a ``MemoryStore`` of Strands' ``MemoryManager``
(``pip install graphmem[strands]``, in an environment without ``graphmem[server]``: Strands
pins an older MCP than graphmem's servers need).

    from strands import Agent
    from strands.memory import MemoryManager
    from graphmem.integrations.strands import GraphmemMemoryStore

    chat = AgentMemory(Memory(), space="alice", conversation="chat-1")
    store = GraphmemMemoryStore(chat)
    agent = Agent(plugins=[MemoryManager(stores=[store])], tools=store.get_tools())

The manager folds what ``search`` finds into each user turn (for that call only) and offers
it as its ``search_memory`` tool; after every invocation it hands the run's messages to
``add_messages``, which stores them as they were said (no model call: graphmem derives its
own units), and its ``add_memory`` tool, when enabled, stores a fact through ``add``. The
store's own tool is ``forget_memory``, by the ids each entry's ``metadata["memory_ids"]``
names.

A message's id is made of the store's own key, the run it came in (the manager numbers a run's
messages from 0 again) and its number there, so a batch the manager retries is stored once,
and the same words said in another run are a message of their own.
"""

from __future__ import annotations

import hashlib
import uuid
from typing import Any

from strands import tool
from strands.memory import AddMessagesContext, ExtractionConfig, InvocationTrigger
from strands.memory.types import MemoryEntry, MemoryStore, Metadata, SearchOptions
from strands.types.content import Message

from graphmem.integrations.core import AgentMemory, in_thread

OFFERS = {"add_messages": "GraphmemMemoryStore.add_messages",
          "search": "GraphmemMemoryStore.search", "forget": "GraphmemMemoryStore.get_tools"}
DEFAULT_RESULTS = 8  # entries a search returns when neither the call nor the store says


class GraphmemMemoryStore(MemoryStore):
    """One conversation of graphmem as a Strands memory store (see the module)."""

    def __init__(self, agent_memory: AgentMemory, *, name: str = "graphmem",
                 description: str | None = "long-term memory of earlier conversations",
                 max_search_results: int | None = None, writable: bool = True) -> None:
        self.agent_memory = agent_memory
        self.name = name
        self.description = description
        self.max_search_results = max_search_results
        self.writable = writable
        # every invocation's messages are stored when it ends: none wait in the process
        self.extraction = ExtractionConfig(trigger=InvocationTrigger()) if writable else None
        self._key = uuid.uuid4().hex[:12]
        self._run = 0
        self._last: list[tuple[int, str]] = []  # the last batch, to tell a retry from a run

    async def search(self, query: str, options: SearchOptions | None = None) -> list[MemoryEntry]:
        """The best hits for ``query`` that fit the agent's budget, best first, each with the
        memory ids of its messages and its score."""
        limit = (options or {}).get("max_search_results") or self.max_search_results \
            or DEFAULT_RESULTS
        memory = self.agent_memory
        if not query or not query.strip() or not await in_thread(memory.memory.has_space,
                                                                 memory.space):
            return []
        result = await in_thread(memory.search, query)
        return [MemoryEntry(content=hit.text, metadata={
            "memory_ids": list(hit.source_turn_ids), "score": hit.score, "kind": hit.kind})
            for hit in memory.fitted(result, limit)]

    async def add(self, content: str, metadata: Metadata | None = None) -> Any:
        """One fact, said by the agent; its memory id."""
        return await in_thread(self.agent_memory.remember, content)

    async def add_messages(self, messages: list[Message],
                           context: AddMessagesContext | None = None) -> Any:
        """The run's messages, their text as said (tool traffic is left out by the manager's
        filter), each once however often the manager retries the batch."""
        numbers = (context.sequence_numbers if context else None) or []
        said = [(m.get("role", "user"), _text(m)) for m in messages]
        batch = [(n, f"{role}\n{text}") for n, (role, text) in zip(numbers, said, strict=False)]
        if batch and batch != self._last and self._last and batch[0][0] <= self._last[-1][0]:
            self._run += 1  # numbered from 0 again: the next run, not a retry
        self._last = batch or self._last
        given = []
        for i, (role, text) in enumerate(said):
            if not text.strip():
                continue
            ident = None
            if i < len(numbers):
                digest = hashlib.sha256(batch[i][1].encode("utf-8", "surrogatepass")).hexdigest()
                ident = f"strands~{self._key}.{self._run}.{numbers[i]}~{digest[:12]}"
            given.append({"speaker": role, "text": text, "id": ident})
        if given:
            await in_thread(self.agent_memory.add, given)
        return len(given)

    def get_tools(self) -> list[Any]:
        """``forget_memory``, by the memory ids a search's entries name."""
        forget = self.agent_memory.forget_tool()
        return [tool(forget)]


def _text(message: Message) -> str:
    """A message's text blocks, joined."""
    return "\n".join(str(block["text"]) for block in message.get("content", [])
                     if isinstance(block, dict) and block.get("text"))
