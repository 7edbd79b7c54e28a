"""OpenAI Agents SDK: graphmem's Session and function tools in the SDK's own Runner loop, the
model scripted (a Model that plays steps); real Neo4j."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.models.fake_id import FAKE_RESPONSES_ID

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.openai_agents import GraphmemSession, tools

from scripted_agents import ScriptedModel

pytestmark = pytest.mark.neo4j


def test_session_and_tools_in_the_runner(memory: Memory, space: str) -> None:
    set_tracing_disabled(True)
    first = AgentMemory(memory, space, "chat-1")
    second = AgentMemory(memory, space, "chat-2")

    async def go() -> None:
        session = GraphmemSession(first)
        agent = Agent(name="helper", model=ScriptedModel([
            ("remember", {"text": "The user's landlord is called Mr Okafor."}), "Noted."]),
            tools=tools(first))
        await Runner.run(agent, "My landlord is Mr Okafor.", session=session)
        items = await session.get_items()
        # the SDK stores the input first, the tool's memory joins during the run, the answer
        assert items == [{"role": "user", "content": "My landlord is Mr Okafor."},
                         {"role": "assistant",
                          "content": "The user's landlord is called Mr Okafor."},
                         {"role": "assistant", "content": "Noted."}]
        assert await session.get_items(limit=1) == [{"role": "assistant", "content": "Noted."}]
        await asyncio.to_thread(memory.flush)

        # another session of the same space: the session starts empty, the tools recall
        model = ScriptedModel([("search_memory", {"query": "landlord name"}), "Mr Okafor."])
        agent = Agent(name="helper", model=model, tools=tools(second))
        result = await Runner.run(agent, "Who is my landlord?", session=GraphmemSession(second))
        assert result.final_output == "Mr Okafor."
        assert model.inputs[0] == [{"role": "user", "content": "Who is my landlord?"}]
        output = next(i for i in model.inputs[1] if isinstance(i, dict)
                      and i.get("type") == "function_call_output")["output"]
        assert "Okafor" in str(output)
        ids = str(output).rsplit("memory ids: ", 1)[1].split(", ")

        # the history the session replays is the conversation's, in order
        assert [i["content"] for i in await GraphmemSession(second).get_items()] == \
            ["Who is my landlord?", "Mr Okafor."]
        popped = await GraphmemSession(second).pop_item()
        assert popped == {"role": "assistant", "content": "Mr Okafor."}

        agent = Agent(name="helper", model=ScriptedModel([
            ("forget_memory", {"memory_ids": ids}), "Done."]), tools=tools(second))
        await Runner.run(agent, "Forget my landlord.")
        await session.clear_session()
        assert await session.get_items() == []

    asyncio.run(go())
    # forgotten everywhere: no conversation of the space says it any more
    assert not memory.has_space(space) or not any(
        "Okafor" in h.text for h in memory.search("landlord Okafor", space=space).hits)


def test_every_reply_is_kept_when_the_model_gives_no_ids(memory: Memory, space: str) -> None:
    """Chat Completions and LiteLLM models mark every item with one placeholder id."""
    set_tracing_disabled(True)
    chat = AgentMemory(memory, space, "chat")
    system = "You are helpful. The admin key is sk-test-123."

    async def go() -> list[Any]:
        session = GraphmemSession(chat)
        for asked, reply in [("Hi!", "Hello."), ("I like tea.", "Noted: tea."),
                             ("And cake.", "Noted: cake.")]:
            agent = Agent(name="helper", instructions=system,
                          model=ScriptedModel([reply], ids=FAKE_RESPONSES_ID))
            await Runner.run(agent, asked, session=session)
        await session.add_items([{"role": "system", "content": system},
                                 {"role": "developer", "content": system}])
        return await session.get_items()

    items = asyncio.run(go())
    assert [i["content"] for i in items] == ["Hi!", "Hello.", "I like tea.", "Noted: tea.",
                                             "And cake.", "Noted: cake."]
    assert all("sk-test" not in m.text for m in chat.messages())  # instructions are no memory


def test_replies_that_reuse_an_item_id_are_each_kept(memory: Memory, space: str) -> None:
    """The SDK's own scripted models, and models that number items per run, give the replies
    of later runs the ids of earlier ones: each reply is still a message of its own, and the
    same items added again change nothing."""
    set_tracing_disabled(True)
    chat = AgentMemory(memory, space, "chat")

    async def go() -> list[Any]:
        session = GraphmemSession(chat)
        for asked, reply in [("Hi!", "Hello."), ("I like tea.", "Noted: tea."),
                             ("And cake.", "Noted: cake.")]:
            agent = Agent(name="helper", model=ScriptedModel([reply], ids="msg-1"))
            await Runner.run(agent, asked, session=session)
        again = {"id": "msg-1", "type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": "Noted: cake."}]}
        await session.add_items([again])  # the last reply once more: nothing new
        return await session.get_items()

    items = asyncio.run(go())
    assert [i["content"] for i in items] == ["Hi!", "Hello.", "I like tea.", "Noted: tea.",
                                             "And cake.", "Noted: cake."]
