"""Pydantic AI: graphmem's tools, a history processor that hands the model the recalled
context, and a helper that stores a run's exchange (``pip install graphmem[pydantic-ai]``).

    from pydantic_ai import Agent
    from graphmem.integrations.pydantic_ai import recall, store_run, tools

    chat = AgentMemory(Memory(), space="alice", conversation="chat-1", budget=800)
    agent = Agent(model, tools=tools(chat), capabilities=[recall(chat)])
    result = await agent.run("Where did I say I'd travel?")
    await store_run(chat, result)

Before each model request the processor searches for the latest user prompt and puts the
packed context first, as a system prompt part marked by its first line; the context of an
earlier request is taken out first, so a run's history never holds two. ``store_run`` stores
the run's user prompts and text answers (tool calls and results are not memories).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic_ai import Tool
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    UserPromptPart,
)

from graphmem.integrations.core import AgentMemory, in_thread

OFFERS = {"search": "recall", "add_messages": "store_run"}
HEADER = "What you remember from earlier conversations:\n"
Processor = Callable[[list[ModelMessage]], Awaitable[list[ModelMessage]]]


def tools(agent_memory: AgentMemory) -> list[Tool[Any]]:
    """graphmem's three tools (search_memory, remember, forget_memory) as Pydantic AI tools."""
    return [Tool(fn, takes_ctx=False) for fn in agent_memory.tools()]


def recall_processor(agent_memory: AgentMemory, budget: int | None = None) -> Processor:
    """The history processor (see the module); ``recall`` wraps it as a capability."""
    async def process(messages: list[ModelMessage]) -> list[ModelMessage]:
        kept = [m for m in messages if not _ours(m)]
        query = _latest_prompt(kept)
        if not query:
            return kept
        context = await in_thread(agent_memory.context, query, budget=budget)
        if not context:
            return kept
        return [ModelRequest(parts=[SystemPromptPart(content=HEADER + context)]), *kept]
    return process


def recall(agent_memory: AgentMemory, budget: int | None = None) -> ProcessHistory[Any]:
    """The processor as the capability an ``Agent(capabilities=[...])`` takes."""
    return ProcessHistory(recall_processor(agent_memory, budget))


async def store_run(agent_memory: AgentMemory, result: Any) -> int:
    """Store a run's user prompts and text answers (``result.new_messages()``) in the
    conversation; returns how many were stored. Call it once per run."""
    messages: list[dict[str, str]] = []
    for message in result.new_messages():
        if isinstance(message, ModelRequest):
            messages += [{"speaker": "user", "text": p.content} for p in message.parts
                         if isinstance(p, UserPromptPart) and isinstance(p.content, str)
                         and p.content.strip()]
        elif isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                messages.append({"speaker": "assistant", "text": text})
    if messages:
        await in_thread(agent_memory.add, messages)
    return len(messages)


def _ours(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and bool(message.parts) and all(
        isinstance(p, SystemPromptPart) and p.content.startswith(HEADER) for p in message.parts)


def _latest_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart) and isinstance(part.content, str):
                    return part.content
    return ""
