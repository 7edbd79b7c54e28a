"""Every framework adapter's write path stores a prompt that carries graphmem's recalled
context without that context, and a message of recalled context only not at all."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
from autogen_core.memory import MemoryContent, MemoryMimeType
from google.adk.events import Event
from google.genai import types
from langchain_core.messages import HumanMessage
from llama_index.core.llms import ChatMessage, MessageRole
from pydantic_ai.messages import ModelRequest, UserPromptPart

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.integrations.adk import GraphmemMemoryService
from graphmem.integrations.autogen import GraphmemMemory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.langchain import GraphmemChatMessageHistory
from graphmem.integrations.langgraph import GraphmemStore, context_hook
from graphmem.integrations.llamaindex import GraphmemMemoryBlock
from graphmem.integrations.openai_agents import GraphmemSession
from graphmem.integrations.pydantic_ai import store_run
from graphmem.markers import mark

RECALLED = mark("[1 May 2025]\nuser: The red bike is in the garden shed.")
ASKED = "Where did I leave the red bike?"
PROMPT = f"{RECALLED}\n{ASKED}"


def texts(memory: Memory, space: str, conversation: str) -> list[str]:
    memory.flush()
    if not memory.has_space(space):
        return []
    return [m.text for m in memory.messages(space, conversation, limit=100).messages]


def test_langgraph_store_and_hook(memory: Memory, space: str) -> None:
    store = GraphmemStore(memory)
    store.put((space,), "k1", {"content": f"note: {ASKED} {RECALLED}"})
    with pytest.raises(InputError, match="only recalled context"):  # said, not silent
        store.put((space,), "k2", {"content": RECALLED})
    item = store.get((space,), "k1")
    assert item is not None and item.value == {"content": f"note: {ASKED}"}
    assert store.get((space,), "k2") is None  # nothing to keep: nothing stored
    hook = context_hook(AgentMemory(memory, space, "graph"))
    hook({"messages": [HumanMessage(PROMPT, id="h1"), HumanMessage(RECALLED, id="h2")]})
    assert texts(memory, space, "graph") == [ASKED]


def test_langchain_history(memory: Memory, space: str) -> None:
    history = GraphmemChatMessageHistory.of(memory, space, "chain")
    history.add_messages([HumanMessage(PROMPT, id="c1"), HumanMessage(RECALLED, id="c2")])
    memory.flush()
    assert [m.content for m in history.messages] == [ASKED]


def test_llamaindex_block(memory: Memory, space: str) -> None:
    block = GraphmemMemoryBlock.of(memory, space, "llama")
    asyncio.run(block.aput([ChatMessage(role=MessageRole.USER, content=PROMPT),
                            ChatMessage(role=MessageRole.USER, content=RECALLED)]))
    assert texts(memory, space, "llama") == [ASKED]


def test_autogen_memory(memory: Memory, space: str) -> None:
    mem = GraphmemMemory.of(memory, space, "autogen")

    async def go() -> None:
        await mem.add(MemoryContent(content=PROMPT, mime_type=MemoryMimeType.TEXT))
        await mem.add(MemoryContent(content=RECALLED, mime_type=MemoryMimeType.TEXT))
    asyncio.run(go())
    assert texts(memory, space, "autogen") == [ASKED]


def test_adk_memory_service(memory: Memory, space: str) -> None:
    service = GraphmemMemoryService(memory, space=lambda _app, _user: space)

    def event(ident: str, text: str) -> Event:
        return Event(id=ident, author="user", invocation_id="i1", content=types.Content(
            role="user", parts=[types.Part(text=text)]))
    asyncio.run(service.add_events_to_memory(app_name="app", user_id="u", session_id="adk",
                                             events=[event("e1", PROMPT),
                                                     event("e2", RECALLED)]))
    assert texts(memory, space, "adk") == [ASKED]


def test_openai_agents_session(memory: Memory, space: str) -> None:
    session = GraphmemSession(AgentMemory(memory, space, "openai"))
    asyncio.run(session.add_items([{"role": "user", "content": PROMPT},
                                   {"role": "user", "content": RECALLED}]))
    assert texts(memory, space, "openai") == [ASKED]


def test_pydantic_ai_store_run(memory: Memory, space: str) -> None:
    run: Any = SimpleNamespace(new_messages=lambda: [
        ModelRequest(parts=[UserPromptPart(content=PROMPT)]),
        ModelRequest(parts=[UserPromptPart(content=RECALLED)])])
    asyncio.run(store_run(AgentMemory(memory, space, "pydantic"), run))
    assert texts(memory, space, "pydantic") == [ASKED]
