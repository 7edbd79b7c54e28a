"""OpenAI Agents SDK: a ``Session`` over graphmem's live messages and graphmem's tools as
function tools (``pip install graphmem[openai-agents]``).

    from agents import Agent, Runner
    from graphmem.integrations.openai_agents import GraphmemSession, tools

    chat = AgentMemory(Memory(), space="alice", conversation="chat-1")
    agent = Agent(name="helper", tools=tools(chat))
    await Runner.run(agent, "Where did I say I'd travel?", session=GraphmemSession(chat))

The session is the conversation: its ``session_id`` is the conversation key. ``add_items``
stores every item as a message, the item itself as its payload, so ``get_items`` gives back
each item as it was added (ids, types, ``output_text`` parts). A ``message`` item is said by its
role (``user`` or ``assistant``); a tool call by ``assistant`` and its output by ``tool``, each
with a short text of its own (``[called get_weather {"city": "Paris"}]``, the output's text),
so what a tool returned is a memory too and a tool-using agent's next turn sees the call
between question and answer. Recalled context is taken out of an item, its payload included,
as from every message. System and developer instructions are not memories and are not kept.
``pop_item`` forgets the latest message and ``clear_session`` the whole conversation. What one
session stores, the tools find from any other of the same space.

An item's message id is its own id (a tool output's: its ``call_id``) joined to a digest of
its speaker and text, so the same item added again changes nothing, while a reply that
reuses an earlier item's id (the SDK's scripted models, and any model that numbers its items
per run) is a message of its own; models that give no real ids (Chat Completions and LiteLLM
models mark every item ``__fake_id__``) and an id seen twice in one call leave the message
without one, so every reply is stored. A message stored without a payload (by another
surface, or corrected since) comes back as ``{"role", "content"}``.
"""

from __future__ import annotations

import hashlib
from typing import Any

from agents import FunctionTool, function_tool
from agents.memory import SessionABC
from agents.memory.session_settings import (
    SessionSettings,
    coerce_session_settings,
    resolve_session_limit,
)
from agents.models.fake_id import FAKE_RESPONSES_ID

from graphmem.integrations.core import AgentMemory, in_thread
from graphmem.markers import strip_text
from graphmem.models import StoredMessage

OFFERS = {"messages": "GraphmemSession.get_items", "add_messages": "GraphmemSession.add_items",
          "forget": "GraphmemSession.pop_item", "search": "tools"}
_ROLES = ("user", "assistant")  # what is a memory; system and developer prompts are not
SHOWN_CHARS = 4_000  # of a tool item's text (its payload keeps the whole item)


class GraphmemSession(SessionABC):
    """One conversation of graphmem as an Agents SDK session (see the module)."""

    def __init__(self, agent_memory: AgentMemory,
                 session_settings: SessionSettings | dict[str, Any] | None = None) -> None:
        self.agent_memory = agent_memory
        self.session_id = agent_memory.conversation
        # as the SDK's own sessions: a dict is checked and made settings, none is the default
        self.session_settings = SessionSettings() if session_settings is None \
            else coerce_session_settings(session_settings)

    async def get_items(self, limit: int | None = None) -> list[Any]:
        """The latest ``limit`` items, oldest first; without one, the settings' limit."""
        stored = await in_thread(self.agent_memory.messages,
                                 resolve_session_limit(limit, self.session_settings))
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


def item(stored: StoredMessage) -> Any:
    """A stored message as the item it was added as (a Responses input item otherwise)."""
    if stored.payload is not None:
        return stored.payload
    role = "assistant" if stored.speaker.lower() == "assistant" else "user"
    return {"role": role, "content": stored.text}


def _message(given: Any) -> dict[str, Any] | None:
    """The message an item is stored as (None: not a memory), the item as its payload."""
    raw = given if isinstance(given, dict) else _dumped(given)
    kind = raw.get("type", "message" if "role" in raw else None)
    if kind == "message":
        speaker, text = raw.get("role"), _text(raw.get("content"))
        if speaker not in _ROLES:
            return None
    else:
        speaker, text = _said(raw, kind)
    text = strip_text(text)[0][:SHOWN_CHARS].strip() if kind != "message" else text
    if not text.strip():
        if kind == "message":
            return None
        text = f"[{kind}]"
    ident = raw.get("id") if isinstance(raw.get("id"), str) else raw.get("call_id")
    return {"speaker": speaker, "text": text, "payload": raw,
            "id": ident if isinstance(ident, str) else None}


def _said(raw: dict[str, Any], kind: Any) -> tuple[str, str]:
    """Who a non-message item is said by, and its text: a call's name and arguments, a
    tool output's text, a reasoning summary; else the item's type."""
    if kind == "function_call":
        return "assistant", f"[called {raw.get('name')} {raw.get('arguments', '')}]"
    if isinstance(kind, str) and kind.endswith("_output"):
        return "tool", _text(raw.get("output"))
    if kind == "reasoning":
        return "assistant", _text(raw.get("summary"))
    return "assistant", f"[{kind}]"


def _text(content: Any) -> str:
    """The text of a content value: a string, or the text of its parts joined."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(part.get("text") or part.get("refusal")) for part in content
                         if isinstance(part, dict) and (part.get("text") or part.get("refusal")))
    return ""


def _dumped(given: Any) -> dict[str, Any]:
    dump = getattr(given, "model_dump", None)
    return dump(mode="json", exclude_unset=True) if callable(dump) else {}


def tools(agent_memory: AgentMemory) -> list[FunctionTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as function tools."""
    return [function_tool(fn) for fn in agent_memory.tools()]
