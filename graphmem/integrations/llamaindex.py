"""LlamaIndex: graphmem as a memory block of LlamaIndex's ``Memory``, and graphmem's tools as
LlamaIndex tools (``pip install graphmem[llamaindex]``).

    from llama_index.core.memory import Memory as LlamaMemory
    from graphmem.integrations.llamaindex import GraphmemMemoryBlock

    block = GraphmemMemoryBlock.of(Memory(), space="alice", conversation="chat-1", budget=800)
    memory = LlamaMemory.from_defaults(session_id="chat-1", memory_blocks=[block])

The block stores the messages LlamaIndex flushes out of its short-term memory (user and
assistant texts; tool calls and results are not memories) and, for each model call, gives the
context graphmem packs for the latest user message. When LlamaIndex asks the block to shrink,
it searches again with a smaller budget instead of cutting the text, so what is left is still
the best evidence that fits.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory.memory import BaseMemoryBlock
from llama_index.core.tools import FunctionTool
from pydantic import ConfigDict, Field, PrivateAttr

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory, in_thread
from graphmem.retrieve.packing import count_tokens

OFFERS = {"search": "GraphmemMemoryBlock.aget", "add_messages": "GraphmemMemoryBlock.aput"}
# what is a memory: what the user and the assistant said (system prompts are instructions,
# and may hold keys; tool calls and results are not memories)
_SPEAKER = {MessageRole.USER: "user", MessageRole.ASSISTANT: "assistant"}


class GraphmemMemoryBlock(BaseMemoryBlock[str]):
    """Long-term memory from graphmem as one block of a LlamaIndex ``Memory``."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    name: str = "graphmem"
    description: str | None = "What was said in earlier conversations, as graphmem finds it."
    priority: int = 1  # may be shrunk (re-packed), unlike priority 0
    agent_memory: AgentMemory
    budget: int | None = Field(default=None, description="tokens; None: the memory's own")
    _query: str = PrivateAttr(default="")

    @classmethod
    def of(cls, memory: Memory, space: str, conversation: str, *, budget: int | None = None,
           **options: Any) -> GraphmemMemoryBlock:
        return cls(agent_memory=AgentMemory(memory, space, conversation, **options),
                   budget=budget)

    async def _aget(self, messages: list[ChatMessage] | None = None,
                    **block_kwargs: Any) -> str:
        query = next((_text(m) for m in reversed(messages or [])
                      if m.role == MessageRole.USER and _text(m).strip()), "")
        self._query = query
        if not query:
            return ""
        budget = block_kwargs.get("budget", self.budget)
        return await in_thread(self.agent_memory.context, query, budget=budget)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        stored = [{"speaker": _SPEAKER[m.role], "text": _text(m), "id": _id(m)}
                  for m in messages if m.role in _SPEAKER and _text(m).strip()]
        if stored:
            await in_thread(self.agent_memory.add, stored)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Search again for the last query within what is left of the budget."""
        left = count_tokens(content) - tokens_to_truncate
        if left <= 0 or not self._query:
            return None
        return await in_thread(self.agent_memory.context, self._query, budget=left) or None


def _text(message: ChatMessage) -> str:
    return message.content or ""


def _id(message: ChatMessage) -> str | None:
    given = message.additional_kwargs.get("id")
    return str(given) if given else None


def tools(agent_memory: AgentMemory) -> list[FunctionTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as LlamaIndex tools."""
    return [FunctionTool.from_defaults(fn=fn) for fn in agent_memory.tools()]
