"""Google ADK: graphmem as the memory service of an ADK ``Runner``
(``pip install graphmem[adk]``).

    from google.adk.runners import Runner
    from google.adk.tools import load_memory
    from graphmem.integrations.adk import GraphmemMemoryService

    runner = Runner(app_name="helper", agent=LlmAgent(..., tools=[load_memory]),
                    session_service=sessions, memory_service=GraphmemMemoryService(Memory()))

**The mapping**: an app's user is a space, ``"{app_name}/{user_id}"``, each part's ``/`` and
``%`` percent-encoded first, so no app and user pair reads another's (``space=`` takes a
function of the two to choose another rule), and an ADK session is a conversation of it, keyed
by the session's id. Each event with text becomes a message whose id is the event's id, said by
the event's author at the event's time, so adding a session again (ADK does, as it grows) or
adding its latest events stores only what is new; function calls and their results are not
memories. ``search_memory`` returns the hits graphmem packs within the budget, one
``MemoryEntry`` each, whose ``id`` names the stored messages behind it: ``delete_memory`` with
that id forgets them everywhere.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from google.adk.events.event import Event
from google.adk.memory.base_memory_service import BaseMemoryService, SearchMemoryResponse
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.sessions.session import Session
from google.genai import types

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory, in_thread, joined
from graphmem.models import Hit

OFFERS = {"add_messages": "GraphmemMemoryService.add_events_to_memory",
          "search": "GraphmemMemoryService.search_memory",
          "forget": "GraphmemMemoryService.delete_memory"}
_JOIN = "|"  # between the Turn ids of one entry's id (percent-encoding never leaves a '|')
MEMORIES = "adk-memories"  # the conversation add_memory writes to


def default_space(app_name: str, user_id: str) -> str:
    """The space of an app's user: the two told apart for good (``joined``)."""
    return joined((app_name, user_id))


class GraphmemMemoryService(BaseMemoryService):
    """ADK's memory service on graphmem (see the module for the mapping)."""

    def __init__(self, memory: Memory, *, budget: int | None = None,
                 strategy: str | None = None,
                 space: Callable[[str, str], str] = default_space) -> None:
        self.memory = memory
        self.budget = budget
        self.strategy = strategy
        self.space = space

    def agent_memory(self, app_name: str, user_id: str,
                     conversation: str = "adk") -> AgentMemory:
        return AgentMemory(self.memory, self.space(app_name, user_id), conversation,
                           budget=self.budget, strategy=self.strategy)

    async def add_session_to_memory(self, session: Session) -> None:
        await self.add_events_to_memory(app_name=session.app_name, user_id=session.user_id,
                                        events=session.events, session_id=session.id)

    async def add_events_to_memory(self, *, app_name: str, user_id: str,
                                   events: Sequence[Event], session_id: str | None = None,
                                   custom_metadata: Mapping[str, object] | None = None) -> None:
        messages = [m for m in (_message(e) for e in events) if m is not None]
        if messages:
            target = self.agent_memory(app_name, user_id, session_id or "adk")
            await in_thread(target.add, messages)

    async def add_memory(self, *, app_name: str, user_id: str,
                         memories: Sequence[MemoryEntry],
                         custom_metadata: Mapping[str, object] | None = None) -> None:
        """Store explicit memories as messages of the user's conversation ``adk-memories``
        (``custom_metadata["conversation"]`` names another): an entry's id is its message
        id (an entry without one is stored each time it is given), its author the speaker,
        its time when it was said."""
        conversation = str((custom_metadata or {}).get("conversation") or MEMORIES)
        messages = [m for m in (_memory(e) for e in memories) if m is not None]
        if messages:
            target = self.agent_memory(app_name, user_id, conversation)
            await in_thread(target.add, messages)

    async def search_memory(self, *, app_name: str, user_id: str,
                            query: str) -> SearchMemoryResponse:
        agent = self.agent_memory(app_name, user_id)
        if not query.strip() or not await in_thread(self.memory.has_space, agent.space):
            return SearchMemoryResponse()
        result = await in_thread(agent.search, query)
        return SearchMemoryResponse(memories=[_entry(hit) for hit in agent.fitted(result)])

    async def delete_memory(self, *, app_name: str, user_id: str,
                            memory_id: str | None = None) -> None:
        if not memory_id:
            return
        agent = self.agent_memory(app_name, user_id)
        await in_thread(agent.forget, memory_id.split(_JOIN))


def _message(event: Event) -> dict[str, Any] | None:
    parts = event.content.parts if event.content and event.content.parts else []
    text = "\n".join(p.text for p in parts if p.text and not p.thought).strip()
    if not text:
        return None
    return {"speaker": event.author or "user", "text": text, "id": event.id or None,
            "at": datetime.fromtimestamp(event.timestamp, UTC)}


def _memory(entry: MemoryEntry) -> dict[str, Any] | None:
    parts = entry.content.parts or []
    text = "\n".join(p.text for p in parts if p.text and not p.thought).strip()
    if not text:
        return None
    message: dict[str, Any] = {"speaker": entry.author or "user", "text": text,
                               "id": entry.id or None}
    if entry.timestamp:
        with contextlib.suppress(ValueError):  # free text, for the model only: not kept
            message["at"] = datetime.fromisoformat(entry.timestamp)
    return message


def _entry(hit: Hit) -> MemoryEntry:
    role = "user" if (hit.speaker or "user") == "user" else "model"
    return MemoryEntry(
        content=types.Content(role=role, parts=[types.Part(text=_said(hit))]),
        id=_JOIN.join(hit.source_turn_ids), author=hit.speaker,
        timestamp=hit.started_at.isoformat() if hit.started_at else None,
        custom_metadata={"kind": hit.kind, "score": hit.score, "source_ids": hit.source_ids,
                         "date": hit.date_text})


def _said(hit: Hit) -> str:
    """A hit's text without what the entry carries beside it: ADK shows an entry as its
    time, then ``author: text``, so the date header and the speaker's name that the packed
    context puts before a turn would be said twice (``user: user: ...``)."""
    text = hit.text
    first, _, rest = text.partition("\n")
    if rest and first.startswith("[") and first.endswith("]"):
        text = rest
    if hit.speaker and text.startswith(f"{hit.speaker}: "):
        text = text[len(hit.speaker) + 2:]
    return text
