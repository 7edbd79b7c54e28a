"""Pydantic AI: graphmem's tools and recall processor in a real Agent run, the model scripted
(Pydantic AI's FunctionModel); real Neo4j."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic_ai import Agent
from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
)
from pydantic_ai.models.function import AgentInfo, FunctionModel

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.pydantic_ai import HEADER, recall, store_run, tools
from graphmem.retrieve.packing import count_tokens

from helpers import memory_ids

pytestmark = pytest.mark.neo4j


def scripted(steps: list[Any], seen: list[list[ModelMessage]]) -> FunctionModel:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        seen.append(list(messages))
        step = steps.pop(0)
        if isinstance(step, tuple):
            return ModelResponse(parts=[ToolCallPart(tool_name=step[0], args=step[1])])
        return ModelResponse(parts=[TextPart(step)])
    return FunctionModel(respond)


def _contexts(messages: list[ModelMessage]) -> list[str]:
    return [p.content for m in messages if isinstance(m, ModelRequest) for p in m.parts
            if isinstance(p, SystemPromptPart) and p.content.startswith(HEADER)]


def test_agent_recalls_stores_and_forgets(memory: Memory, space: str) -> None:
    chat = AgentMemory(memory, space, "chat", budget=60)
    seen: list[list[ModelMessage]] = []

    async def go() -> None:
        agent = Agent(scripted(["Sounds delicious."], seen), tools=tools(chat),
                      capabilities=[recall(chat)])
        result = await agent.run("I'm learning to cook Persian fesenjan this winter.")
        assert _contexts(seen[0]) == []  # nothing stored yet
        assert await store_run(chat, result) == 2
        await asyncio.to_thread(memory.flush)

        agent = Agent(scripted([("search_memory", {"query": "cooking"}), "Fesenjan."], seen),
                      tools=tools(chat), capabilities=[recall(chat)])
        result = await agent.run("What dish am I learning?")
        first, second = seen[1], seen[2]
        [context] = _contexts(first)
        assert "fesenjan" in context and count_tokens(context[len(HEADER):]) <= 60
        assert len(_contexts(second)) == 1  # the earlier request's context was replaced
        returned = [p.content for m in second if isinstance(m, ModelRequest) for p in m.parts
                    if isinstance(p, ToolReturnPart)]
        assert returned and "fesenjan" in str(returned[0])
        ids = memory_ids(str(returned[0]))

        agent = Agent(scripted([("forget_memory", {"memory_ids": ids}), "Done."], seen),
                      tools=tools(chat))
        await agent.run("Forget what I cook.")

    asyncio.run(go())
    assert not any("fesenjan" in m.text for m in chat.messages())
