"""OpenAI Agents SDK: a ``Session`` over graphmem's live messages and graphmem's tools as
function tools (``pip install graphmem[openai-agents]``).

    from agents import Agent, Runner
    from graphmem.integrations.openai_agents import GraphmemSession, tools

    chat = AgentMemory(Memory(), space="alice", conversation="chat-1")
    agent = Agent(name="helper", tools=tools(chat))
    await Runner.run(agent, "Where did I say I'd travel?", session=GraphmemSession(chat))

The session is the conversation: its ``session_id`` is the conversation key, ``get_items``
returns the stored messages as ``{"role", "content"}`` input items (the speaker ``assistant``
keeps its role, every other speaker is ``user``), ``add_items`` stores the user and assistant
messages among the items (system and developer instructions, tool calls and their outputs are
not memories, so they are not kept), ``pop_item`` forgets the latest message and
``clear_session`` the whole conversation. What one session stores, the tools find from any
other of the same space.

An item's message id is its own id joined to a digest of its role and text, so the same item
added again changes nothing, while a reply that reuses an earlier item's id (the SDK's scripted
models, and any model that numbers its items per run) is a message of its own; models that give
no real ids (Chat Completions and LiteLLM models mark every item ``__fake_id__``) and an id seen
twice in one call leave the message without one, so every reply is stored.
"""

from __future__ import annotations

import hashlib
from typing import Any

from agents import FunctionTool, function_tool
from agents.memory import SessionABC
from agents.memory.session_settings import SessionSettings
from agents.models.fake_id import FAKE_RESPONSES_ID

from graphmem.integrations.core import AgentMemory, in_thread
from graphmem.models import StoredMessage

OFFERS = {"messages": "GraphmemSession.get_items", "add_messages": "GraphmemSession.add_items",
          "forget": "GraphmemSession.pop_item", "search": "tools"}
_ROLES = ("user", "assistant")  # what is a memory; system and developer prompts are not


class GraphmemSession(SessionABC):
    """One conversation of graphmem as an Agents SDK session (see the module)."""

    def __init__(self, agent_memory: AgentMemory,
                 session_settings: SessionSettings | None = None) -> None:
        self.agent_memory = agent_memory
        self.session_id = agent_memory.conversation
        self.session_settings = session_settings

    async def get_items(self, limit: int | None = None) -> list[Any]:
        stored = await in_thread(self.agent_memory.messages, limit)
        return [item(m) for m in stored]

    async def add_items(self, items: list[Any]) -> None:
        messages = [m for m in (_message(i) for i in items) if m is not None]
        seen: set[str] = set()
        for message in messages:  # an id that names no one item is no id
            if message["id"] in seen or message["id"] == FAKE_RESPONSES_ID:
                message["id"] = None
            elif isinstance(message["id"], str):
                seen.add(message["id"])
                said = f"{message['speaker']}\n{message['text']}".encode("utf-8", "surrogatepass")
                message["id"] += f"~{hashlib.sha256(said).hexdigest()[:12]}"
        if messages:
            await in_thread(self.agent_memory.add, messages)

    async def pop_item(self) -> Any | None:
        popped = await in_thread(self.agent_memory.pop)
        return None if popped is None else item(popped)

    async def clear_session(self) -> None:
        await in_thread(self.agent_memory.clear)


def item(stored: StoredMessage) -> dict[str, Any]:
    """A stored message as a Responses input item."""
    role = "assistant" if stored.speaker.lower() == "assistant" else "user"
    return {"role": role, "content": stored.text}


def _message(given: Any) -> dict[str, Any] | None:
    raw = given if isinstance(given, dict) else getattr(given, "model_dump", lambda: {})()
    role = raw.get("role")
    if role not in _ROLES or raw.get("type", "message") != "message":
        return None
    content = raw.get("content")
    if isinstance(content, list):
        content = "\n".join(str(part.get("text", "")) for part in content
                            if isinstance(part, dict) and part.get("text"))
    if not isinstance(content, str) or not content.strip():
        return None
    ident = raw.get("id")
    return {"speaker": role, "text": content, "id": ident if isinstance(ident, str) else None}


def tools(agent_memory: AgentMemory) -> list[FunctionTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as function tools."""
    return [function_tool(fn) for fn in agent_memory.tools()]
