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
earlier request is taken out first, so a run's history never holds two. A prompt of text and
an image is searched and stored by its text. ``store_run`` stores the run's user prompts and
text answers (tool calls and results are not memories), each once.
"""

from __future__ import annotations

import hashlib
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any

from pydantic_ai import Tool
from pydantic_ai.capabilities import ProcessHistory
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextContent,
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
    """Store a run's user prompts (their text; an image or a file beside it is not text to
    remember) and text answers (``result.new_messages()``) in the conversation; returns how
    many were new. Each message's id comes from its time and text, so storing a run twice,
    or a history holding earlier runs, stores nothing twice."""
    messages: list[dict[str, Any]] = []
    for message in result.new_messages():
        if isinstance(message, ModelRequest):
            for part in message.parts:
                if isinstance(part, UserPromptPart) and prompt_text(part).strip():
                    messages.append(_said("user", prompt_text(part), part.timestamp))
        elif isinstance(message, ModelResponse):
            text = "".join(p.content for p in message.parts if isinstance(p, TextPart))
            if text.strip():
                messages.append(_said("assistant", text, message.timestamp))
    if not messages:
        return 0
    report = await in_thread(agent_memory.add, messages)
    return len(report.added)


def prompt_text(part: UserPromptPart) -> str:
    """The text of a user prompt: its string, or the strings among its contents (images,
    audio and documents left out)."""
    if isinstance(part.content, str):
        return part.content
    return "\n".join(item if isinstance(item, str) else item.content for item in part.content
                     if isinstance(item, str | TextContent))


def _said(speaker: str, text: str, at: datetime | None) -> dict[str, Any]:
    when = at.isoformat() if at else ""
    ident = hashlib.sha256(f"{speaker}\n{when}\n{text}".encode()).hexdigest()[:24]
    return {"speaker": speaker, "text": text, "id": f"pa-{ident}"}


def _ours(message: ModelMessage) -> bool:
    return isinstance(message, ModelRequest) and bool(message.parts) and all(
        isinstance(p, SystemPromptPart) and p.content.startswith(HEADER) for p in message.parts)


def _latest_prompt(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if isinstance(message, ModelRequest):
            for part in reversed(message.parts):
                if isinstance(part, UserPromptPart) and prompt_text(part).strip():
                    return prompt_text(part)
    return ""
