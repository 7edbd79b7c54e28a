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

    async def search_memory(self, *, app_name: str, user_id: str,
                            query: str) -> SearchMemoryResponse:
        agent = self.agent_memory(app_name, user_id)
        if not query.strip() or not await in_thread(self.memory.has_space, agent.space):
            return SearchMemoryResponse()
        result = await in_thread(agent.search, query)
        by_id = {hit.id: hit for hit in result.hits}
        return SearchMemoryResponse(memories=[_entry(by_id[i]) for i in result.included
                                              if i in by_id])

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


def _entry(hit: Hit) -> MemoryEntry:
    role = "user" if (hit.speaker or "user") == "user" else "model"
    return MemoryEntry(
        content=types.Content(role=role, parts=[types.Part(text=hit.text)]),
        id=_JOIN.join(hit.source_turn_ids), author=hit.speaker,
        timestamp=hit.started_at.isoformat() if hit.started_at else None,
        custom_metadata={"kind": hit.kind, "score": hit.score, "source_ids": hit.source_ids,
                         "date": hit.date_text})
