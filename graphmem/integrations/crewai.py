"""CrewAI: graphmem as a crew's or an agent's memory (``pip install graphmem[crewai]``, in an
environment without ``graphmem[server]``: CrewAI pins an older MCP than graphmem's servers
need).

    from crewai import Agent, Crew, Task
    from graphmem.integrations.crewai import GraphmemCrewMemory, tools

    chat = AgentMemory(Memory(), space="acme", conversation="research-crew")
    crew = Crew(agents=[...], tasks=[...], memory=GraphmemCrewMemory(agent_memory=chat))

CrewAI's unified ``Memory`` asks an LLM to infer each memory's scope, categories and
importance, and to plan a recall; this one does neither. Before a task, ``recall`` hands the
agent the hits of graphmem's search that fit the budget, best first (a match's record id is
its first memory id, ``record.metadata["memory_ids"]`` all of them). After a task, CrewAI
hands over its record of the task (the task, the agent, the result): ``extract_memories``
keeps it whole, with no model call, and ``remember_many`` stores it as a message said by the
agent's role, at once (CrewAI's own saves run in the background and can be lost when the
process ends). ``forget(record_ids=...)`` forgets by memory id; ``reset`` forgets the
conversation. Scopes, categories and privacy are not graphmem's: a crew's memory is its
space, one conversation a crew.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any, Literal

from crewai.memory import Memory
from crewai.memory.types import MemoryMatch, MemoryRecord
from crewai.tools import tool
from pydantic import ConfigDict, Field, PrivateAttr

from graphmem.errors import InputError
from graphmem.ids import turn_id
from graphmem.integrations.core import AGENT_SPEAKER, AgentMemory

OFFERS = {"search": "GraphmemCrewMemory.recall", "add_messages": "GraphmemCrewMemory.remember",
          "forget": "GraphmemCrewMemory.forget"}


class GraphmemCrewMemory(Memory):  # type: ignore[misc]  # crewai ships no type hints
    """One conversation of graphmem as CrewAI's memory (see the module)."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    agent_memory: AgentMemory = Field(exclude=True)
    _writes: int = PrivateAttr(default=0)

    def model_post_init(self, __context: Any) -> None:
        return None  # no LLM, embedder or LanceDB to make: graphmem is all of them

    def extract_memories(self, content: str) -> list[str]:
        """CrewAI's record of a task, kept whole (graphmem derives its own units)."""
        return [content] if content.strip() else []

    def remember(self, content: str, scope: str | None = None,
                 categories: list[str] | None = None, metadata: dict[str, Any] | None = None,
                 importance: float | None = None, source: str | None = None,
                 private: bool = False, agent_role: str | None = None,
                 root_scope: str | None = None) -> MemoryRecord | None:
        """One memory, stored before this returns; its record (id: its memory id)."""
        records = self.remember_many([content], agent_role=agent_role)
        return records[0] if records else None

    def remember_many(self, contents: list[str], scope: str | None = None,
                      categories: list[str] | None = None,
                      metadata: dict[str, Any] | None = None, importance: float | None = None,
                      source: str | None = None, private: bool = False,
                      agent_role: str | None = None,
                      root_scope: str | None = None) -> list[MemoryRecord]:
        """Memories said by ``agent_role`` (the agent's, when none), stored before this
        returns, each a message of the crew's conversation."""
        if self.read_only:
            return []
        speaker = (agent_role or "").strip() or AGENT_SPEAKER
        given = [{"speaker": speaker, "text": text, "id": f"crew-{uuid.uuid4().hex[:16]}"}
                 for text in contents if isinstance(text, str) and text.strip()]
        if not given:
            return []
        report = self.agent_memory.add(given)
        chat = self.agent_memory
        return [MemoryRecord(id=turn_id(chat.space, chat.conversation, m["id"]),
                             content=m["text"], source=speaker)
                for m in given if m["id"] in report.added]

    def recall(self, query: str, scope: str | None = None,
               categories: list[str] | None = None, limit: int = 10,
               depth: Literal["shallow", "deep"] = "deep", source: str | None = None,
               include_private: bool = False) -> list[MemoryMatch]:
        """The hits that fit the budget for ``query``, best first, at most ``limit``."""
        chat = self.agent_memory
        if not query or not query.strip() or not chat.memory.has_space(chat.space):
            return []
        return [MemoryMatch(record=MemoryRecord(
                    id=hit.source_turn_ids[0], content=hit.text,
                    metadata={"memory_ids": list(hit.source_turn_ids), "kind": hit.kind}),
                    score=max(0.0, min(1.0, hit.score)), match_reasons=["graphmem"])
                for hit in chat.fitted(chat.search(query), limit) if hit.source_turn_ids]

    def forget(self, scope: str | None = None, categories: list[str] | None = None,
               older_than: datetime | None = None, metadata_filter: dict[str, Any] | None = None,
               record_ids: list[str] | None = None) -> int:
        """Forget the memories ``record_ids`` names (memory ids); how many messages went."""
        if scope or categories or older_than or metadata_filter:
            raise InputError("graphmem forgets by record_ids (memory ids), or everything with "
                             "reset(); scopes, categories, ages and metadata are not its",
                             field="forget")
        return sum(r.turns for r in self.agent_memory.forget(record_ids or []))

    def reset(self, scope: str | None = None) -> None:
        """Forget the crew's whole conversation (a forget that sticks)."""
        self.agent_memory.clear()

    def reset_all(self) -> None:
        self.reset()

    def drain_writes(self) -> None:
        return None  # every write is stored before it returns

    def close(self) -> None:
        return None


def tools(agent_memory: AgentMemory) -> list[Any]:
    """graphmem's three tools (search_memory, remember, forget_memory) as CrewAI tools."""
    return [tool(fn.__name__)(fn) for fn in agent_memory.tools()]
