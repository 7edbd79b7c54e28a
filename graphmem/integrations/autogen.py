"""AutoGen (autogen-core): graphmem as an agent's ``Memory``, and graphmem's tools as AutoGen
function tools (``pip install graphmem[autogen]``).

    from autogen_agentchat.agents import AssistantAgent
    from graphmem.integrations.autogen import GraphmemMemory

    memory = GraphmemMemory.of(Memory(), space="alice", conversation="chat-1", budget=800)
    agent = AssistantAgent("helper", model_client=client, memory=[memory])

Before each model call ``update_context`` searches for the latest user message and adds the
packed context as one system message (nothing when there is nothing to recall). ``add``
stores a text memory as a message of the conversation (``metadata``: ``id`` makes it
idempotent, ``speaker`` says who said it, default ``user``); ``query`` returns the hits that
fit the budget; ``clear`` forgets the conversation. ``close`` leaves the graphmem client open:
whoever made it closes it. JSON memories are stored as their JSON text.

It is an AutoGen component: ``dump_component()`` (an agent's or a team's, AutoGen Studio's)
writes its space, conversation, budget, strategy and Neo4j address, never a password;
``load_component`` makes it again with a client of its own, its settings from the
environment (``GRAPHMEM_*``).
"""

from __future__ import annotations

import json
from typing import Any, Self

from autogen_core import CancellationToken, Component
from autogen_core.memory import (
    Memory,
    MemoryContent,
    MemoryMimeType,
    MemoryQueryResult,
    UpdateContextResult,
)
from autogen_core.model_context import ChatCompletionContext
from autogen_core.models import SystemMessage, UserMessage
from autogen_core.tools import FunctionTool
from pydantic import BaseModel

from graphmem.client import Memory as GraphmemClient
from graphmem.config import Settings
from graphmem.errors import InputError
from graphmem.integrations.core import AgentMemory, in_thread
from graphmem.markers import mark

OFFERS = {"search": "GraphmemMemory.query", "add_messages": "GraphmemMemory.add",
          "forget": "GraphmemMemory.clear"}
_TEXT = (MemoryMimeType.TEXT, MemoryMimeType.MARKDOWN, MemoryMimeType.TEXT.value,
         MemoryMimeType.MARKDOWN.value)
_JSON = (MemoryMimeType.JSON, MemoryMimeType.JSON.value)


class GraphmemMemoryConfig(BaseModel):
    """What ``dump_component`` keeps of a :class:`GraphmemMemory`: where its memories are,
    not the credentials to reach them (those stay in the environment)."""

    space: str
    conversation: str
    budget: int | None = None
    strategy: str | None = None
    neo4j_uri: str | None = None  # None: GRAPHMEM_NEO4J_URI's


class GraphmemMemory(Memory, Component[GraphmemMemoryConfig]):
    """graphmem behind AutoGen's ``Memory`` protocol (see the module)."""

    component_type = "memory"
    component_provider_override = "graphmem.integrations.autogen.GraphmemMemory"
    component_config_schema = GraphmemMemoryConfig

    def __init__(self, agent_memory: AgentMemory) -> None:
        self.agent_memory = agent_memory

    def _to_config(self) -> GraphmemMemoryConfig:
        agent = self.agent_memory
        return GraphmemMemoryConfig(space=agent.space, conversation=agent.conversation,
                                    budget=agent.budget, strategy=agent.strategy,
                                    neo4j_uri=agent.memory.settings.neo4j_uri)

    @classmethod
    def _from_config(cls, config: GraphmemMemoryConfig) -> Self:
        settings = Settings() if config.neo4j_uri is None else Settings(
            neo4j_uri=config.neo4j_uri)
        return cls(AgentMemory(GraphmemClient(settings), config.space, config.conversation,
                               budget=config.budget, strategy=config.strategy))

    @classmethod
    def of(cls, memory: GraphmemClient, space: str, conversation: str,
           **options: Any) -> GraphmemMemory:
        return cls(AgentMemory(memory, space, conversation, **options))

    async def update_context(self, model_context: ChatCompletionContext) -> UpdateContextResult:
        messages = await model_context.get_messages()
        query = next((m.content for m in reversed(messages)
                      if isinstance(m, UserMessage) and isinstance(m.content, str)), "")
        if not query.strip():
            return UpdateContextResult(memories=MemoryQueryResult(results=[]))
        found = await self.query(query)
        context = mark("\n\n".join(str(r.content) for r in found.results))
        if context:
            await model_context.add_message(SystemMessage(
                content=f"What you remember from earlier conversations:\n{context}"))
        return UpdateContextResult(memories=found)

    async def query(self, query: str | MemoryContent = "",
                    cancellation_token: CancellationToken | None = None,
                    **kwargs: Any) -> MemoryQueryResult:
        text = query if isinstance(query, str) else str(query.content)
        agent = self.agent_memory
        if not text.strip() or not await in_thread(agent.memory.has_space, agent.space):
            return MemoryQueryResult(results=[])
        result = await in_thread(agent.search, text, budget=kwargs.get("budget"))
        by_id = {hit.id: hit for hit in result.hits}
        return MemoryQueryResult(results=[MemoryContent(
            content=by_id[i].text, mime_type=MemoryMimeType.TEXT, metadata={
                "id": i, "kind": by_id[i].kind, "score": by_id[i].score,
                "source_turn_ids": by_id[i].source_turn_ids,
                "source_ids": by_id[i].source_ids, "date": by_id[i].date_text})
            for i in result.included if i in by_id])

    async def add(self, content: MemoryContent,
                  cancellation_token: CancellationToken | None = None) -> None:
        text = content.content
        if content.mime_type in _JSON and not isinstance(text, str):
            text = json.dumps(text, ensure_ascii=False)
        elif content.mime_type not in _TEXT + _JSON or not isinstance(text, str):
            raise InputError(f"graphmem stores text and JSON memories; got "
                             f"{content.mime_type}", field="content")
        meta = content.metadata or {}
        await in_thread(self.agent_memory.add, [{
            "speaker": str(meta.get("speaker", "user")), "text": text, "id": meta.get("id")}])

    async def clear(self) -> None:
        await in_thread(self.agent_memory.clear)

    async def close(self) -> None:
        return None


def tools(agent_memory: AgentMemory) -> list[FunctionTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as AutoGen tools."""
    return [FunctionTool(fn, description=fn.__doc__ or fn.__name__)
            for fn in agent_memory.tools()]
