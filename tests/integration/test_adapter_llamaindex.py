"""LlamaIndex: graphmem's block in LlamaIndex's Memory and graphmem's tools in a real
FunctionAgent loop, the model scripted (LlamaIndex's MockFunctionCallingLLM); real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory as LlamaMemory

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.llamaindex import GraphmemMemoryBlock, tools
from graphmem.markers import CLOSE, OPEN
from graphmem.retrieve.packing import count_tokens

from helpers import memory_ids

pytestmark = pytest.mark.neo4j
Reply = Callable[[Sequence[ChatMessage]], ChatMessage]


def scripted(steps: list[Reply], seen: list[list[ChatMessage]]) -> MockFunctionCallingLLM:
    def respond(messages: Sequence[ChatMessage], **_: Any) -> ChatMessage:
        seen.append(list(messages))
        return steps.pop(0)(messages)
    return MockFunctionCallingLLM(response_generator=respond)


def call(name: str, args: dict[str, Any]) -> Reply:
    return lambda _m: ChatMessage(role=MessageRole.ASSISTANT, blocks=[
        ToolCallBlock(tool_call_id="c1", tool_name=name, tool_kwargs=args)])


def say(text: str) -> Reply:
    return lambda _m: ChatMessage(role=MessageRole.ASSISTANT, content=text)


def run(agent: FunctionAgent, text: str, **options: Any) -> Any:
    """One run of the agent's workflow in its own event loop."""
    async def go() -> Any:
        return await agent.run(text, **options)
    return asyncio.run(go())


def test_block_stores_gets_and_repacks(memory: Memory, space: str) -> None:
    block = GraphmemMemoryBlock.of(memory, space, "chat", budget=80)
    asyncio.run(block.aput([
        ChatMessage(role=MessageRole.USER, content="I play the cello in a quartet on Sundays."),
        ChatMessage(role=MessageRole.ASSISTANT, content="That sounds wonderful."),
        ChatMessage(role=MessageRole.USER, content="My sister Lena teaches maths in Porto."),
        ChatMessage(role=MessageRole.TOOL, content="tool output, not a memory")]))
    memory.flush()
    assert [m.speaker for m in AgentMemory(memory, space, "chat").messages()] == \
        ["user", "assistant", "user"]
    asked = [ChatMessage(role=MessageRole.USER, content="Which instrument do I play?")]
    context = asyncio.run(block.aget(asked))
    assert "cello" in context and "Lena" in context and count_tokens(context) <= 80
    assert context.startswith(OPEN) and context.endswith(CLOSE)
    smaller = asyncio.run(block.atruncate(context, 8))
    # re-packed, not cut: the evidence stays whole, the rest makes room
    assert smaller is not None and count_tokens(smaller) <= count_tokens(context) - 8
    assert "cello" in smaller and "Lena" not in smaller and smaller.endswith(CLOSE)
    assert asyncio.run(block.atruncate(context, 10_000)) is None


def test_agent_remembers_in_one_run_and_recalls_in_the_next(memory: Memory,
                                                            space: str) -> None:
    agent_memory = AgentMemory(memory, space, "chat")
    seen: list[list[ChatMessage]] = []
    llm = scripted([call("remember", {"text": "The user's daughter Ines turns six in May."}),
                    say("I'll remember.")], seen)
    agent = FunctionAgent(tools=tools(agent_memory), llm=llm)
    reply = run(agent, "Ines turns six in May!")
    assert "remember" in str(reply)
    memory.flush()

    # the next run: a fresh LlamaIndex Memory whose graphmem block recalls the fact
    block = GraphmemMemoryBlock(agent_memory=agent_memory, budget=60)
    short_term = LlamaMemory.from_defaults(session_id="run-2", memory_blocks=[block])
    llm = scripted([call("search_memory", {"query": "Ines birthday"}), say("In May.")], seen)
    agent = FunctionAgent(tools=tools(agent_memory), llm=llm)
    run(agent, "When is my daughter's birthday?", memory=short_term)
    first_call = " ".join(m.content or "" for m in seen[2])
    assert "Ines turns six in May" in first_call
    tool_result = " ".join(m.content or "" for m in seen[3] if m.role == MessageRole.TOOL)
    assert "Ines" in tool_result and "memory ids:" in tool_result

    ids = memory_ids(tool_result)
    llm = scripted([call("forget_memory", {"memory_ids": ids}), say("Done.")], seen)
    run(FunctionAgent(tools=tools(agent_memory), llm=llm), "Forget it.")
    assert agent_memory.messages() == []
