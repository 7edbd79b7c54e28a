"""AutoGen: graphmem as the memory of a real AssistantAgent and graphmem's tools in its loop,
the model replayed (autogen-ext's ReplayChatCompletionClient); real Neo4j."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from autogen_agentchat.agents import AssistantAgent
from autogen_agentchat.messages import MemoryQueryEvent, ToolCallExecutionEvent
from autogen_core import FunctionCall
from autogen_core.memory import MemoryContent, MemoryMimeType
from autogen_core.model_context import UnboundedChatCompletionContext
from autogen_core.models import CreateResult, RequestUsage, SystemMessage, UserMessage
from autogen_ext.models.replay import ReplayChatCompletionClient

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.integrations.autogen import GraphmemMemory, tools
from graphmem.integrations.core import AgentMemory
from graphmem.retrieve.packing import count_tokens

from helpers import memory_ids

pytestmark = pytest.mark.neo4j
INFO: Any = {"vision": False, "function_calling": True, "json_output": False,
             "family": "unknown", "structured_output": False}


def calls(name: str, args: dict[str, Any]) -> CreateResult:
    return CreateResult(finish_reason="function_calls", usage=RequestUsage(
        prompt_tokens=0, completion_tokens=0), cached=False,
        content=[FunctionCall(id="c1", name=name, arguments=json.dumps(args))])


def client(*replies: str | CreateResult) -> ReplayChatCompletionClient:
    return ReplayChatCompletionClient(list(replies), model_info=INFO)


def test_memory_protocol(memory: Memory, space: str) -> None:
    mem = GraphmemMemory.of(memory, space, "chat", budget=50)

    async def go() -> None:
        await mem.add(MemoryContent(content="Our wedding anniversary is on 3 October.",
                                    mime_type=MemoryMimeType.TEXT, metadata={"id": "w1"}))
        await mem.add(MemoryContent(content="Our wedding anniversary is on 3 October.",
                                    mime_type=MemoryMimeType.TEXT, metadata={"id": "w1"}))
        with pytest.raises(InputError):
            await mem.add(MemoryContent(content=b"\x00", mime_type=MemoryMimeType.BINARY))
        await asyncio.to_thread(memory.flush)
        found = await mem.query("When is the anniversary?")
        assert found.results and "3 October" in str(found.results[0].content)
        assert found.results[0].metadata and found.results[0].metadata["source_ids"] == ["w1"]
        context = UnboundedChatCompletionContext()
        await context.add_message(UserMessage(content="When is our anniversary?", source="u"))
        await mem.update_context(context)
        system = [m for m in await context.get_messages() if isinstance(m, SystemMessage)]
        assert len(system) == 1 and "3 October" in system[0].content
        assert count_tokens(system[0].content.split("\n", 1)[1]) <= 50
        await mem.clear()
        assert (await mem.query("anniversary")).results == []
        await mem.close()

    asyncio.run(go())
    assert [c.conversation for c in memory.conversations(space)] == []


def test_assistant_agent_loop(memory: Memory, space: str) -> None:
    agent_memory = AgentMemory(memory, space, "chat", budget=80)

    async def go() -> None:
        agent = AssistantAgent("helper", model_client=client(
            calls("remember", {"text": "The user is training for the Berlin marathon."}),
            "Good luck!"), tools=tools(agent_memory), reflect_on_tool_use=True)
        await agent.run(task="I'm training for the Berlin marathon.")
        await asyncio.to_thread(memory.flush)

        # a new agent with graphmem as its memory: the fact comes back before the model
        agent = AssistantAgent("helper", model_client=client(
            calls("search_memory", {"query": "marathon"}), "Berlin."),
            tools=tools(agent_memory), memory=[GraphmemMemory(agent_memory)],
            reflect_on_tool_use=True)
        result = await agent.run(task="Which race am I training for?")
        recalled = [e for e in result.messages if isinstance(e, MemoryQueryEvent)]
        assert recalled and "Berlin marathon" in str(recalled[0].content[0].content)
        [executed] = [e for e in result.messages if isinstance(e, ToolCallExecutionEvent)]
        output = executed.content[0].content
        assert "Berlin marathon" in output
        ids = memory_ids(output)

        agent = AssistantAgent("helper", model_client=client(
            calls("forget_memory", {"memory_ids": ids}), "Forgotten."),
            tools=tools(agent_memory), reflect_on_tool_use=True)
        await agent.run(task="Forget about the race.")

    asyncio.run(go())
    assert agent_memory.messages() == []


def test_an_agent_carrying_graphmem_is_dumped_and_loaded(memory: Memory, space: str) -> None:
    """Team serialisation (AutoGen Studio): the agent's component holds graphmem's memory by
    its space and conversation, no password, and loads into a memory that reads the same
    conversation; JSON memories are stored as their JSON text (autogen-core's test_memory)."""
    mem = GraphmemMemory.of(memory, space, "chat", budget=60)
    asyncio.run(mem.add(MemoryContent(content={"allergy": "peanuts", "since": 2019},
                                      mime_type=MemoryMimeType.JSON, metadata={"id": "j1"})))
    agent = AssistantAgent("helper", model_client=client("Hi."), memory=[mem])
    dumped = agent.dump_component()
    text = dumped.model_dump_json()
    assert space in text and memory.settings.neo4j_password.get_secret_value() not in text
    loaded = AssistantAgent.load_component(dumped)
    [again] = loaded._memory or []
    assert isinstance(again, GraphmemMemory) and again.agent_memory.space == space
    assert again.agent_memory.budget == 60 and again.agent_memory.conversation == "chat"
    try:
        [stored] = again.agent_memory.messages()
        assert json.loads(stored.text) == {"allergy": "peanuts", "since": 2019}
    finally:
        again.agent_memory.memory.close()
