"""OpenAI Agents SDK: graphmem's Session and function tools in the SDK's own Runner loop, the
model scripted (a Model that plays steps); real Neo4j."""

from __future__ import annotations

import asyncio
import copy
import json
from typing import Any

import pytest
from agents import Agent, Runner, set_tracing_disabled
from agents.models.fake_id import FAKE_RESPONSES_ID

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.openai_agents import GraphmemSession, tools

from helpers import memory_ids
from scripted_agents import ScriptedModel

pytestmark = pytest.mark.neo4j


def said(item: dict[str, Any]) -> str:
    """A message item's text, given as a string or as output_text parts."""
    content = item["content"]
    return content if isinstance(content, str) else "".join(p["text"] for p in content)


class Recording(GraphmemSession):
    """The session, keeping a copy of every item the SDK gave it."""

    added: list[Any]

    async def add_items(self, items: list[Any]) -> None:
        self.added = [*getattr(self, "added", []), *copy.deepcopy(items)]
        await super().add_items(items)


def test_session_and_tools_in_the_runner(memory: Memory, space: str) -> None:
    set_tracing_disabled(True)
    first = AgentMemory(memory, space, "chat-1")
    second = AgentMemory(memory, space, "chat-2")

    async def go() -> None:
        session = Recording(first)
        agent = Agent(name="helper", model=ScriptedModel([
            ("remember", {"text": "The user's landlord is called Mr Okafor."}), "Noted."]),
            tools=tools(first))
        await Runner.run(agent, "My landlord is Mr Okafor.", session=session)
        items = await session.get_items()
        # what the SDK added comes back as it was added: the input first, the tool's memory
        # (stored during the run), the call, its output and the answer
        kinds = [i.get("type") for i in session.added]
        assert kinds[1:] == ["function_call", "function_call_output", "message"]
        remembered = {"role": "assistant", "content": "The user's landlord is called Mr Okafor."}
        assert items == [session.added[0], remembered, *session.added[1:]]
        assert items[-1]["content"][0]["text"] == "Noted."
        assert await session.get_items(limit=1) == [session.added[-1]]
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
        ids = memory_ids(str(output))

        # the history the session replays is the conversation's, in order
        replayed = await GraphmemSession(second).get_items()
        assert [i.get("type") for i in replayed] == [
            None, "function_call", "function_call_output", "message"]
        assert replayed[0] == {"role": "user", "content": "Who is my landlord?"}
        assert replayed[1]["name"] == "search_memory"
        popped = await GraphmemSession(second).pop_item()
        assert popped == replayed[-1]
        assert popped["content"][0]["text"] == "Mr Okafor."

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
    assert [said(i) for i in items] == ["Hi!", "Hello.", "I like tea.", "Noted: tea.",
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
    assert [said(i) for i in items] == ["Hi!", "Hello.", "I like tea.", "Noted: tea.",
                                        "And cake.", "Noted: cake."]


def test_a_tool_call_is_replayed_between_question_and_answer(memory: Memory,
                                                             space: str) -> None:
    """The next run's model sees the earlier run's call and output, in order and as added;
    the output's recalled context is not stored again, in its text or in its item."""
    set_tracing_disabled(True)
    chat = AgentMemory(memory, space, "chat")
    chat.add([{"speaker": "user", "text": "My sister Ada lives in Porto."}])

    async def go() -> ScriptedModel:
        session = Recording(chat)
        agent = Agent(name="helper", model=ScriptedModel([
            ("search_memory", {"query": "where does Ada live"}), "In Porto."]),
            tools=tools(chat))
        await Runner.run(agent, "Where does my sister live?", session=session)
        later = ScriptedModel(["You asked about Ada."])
        await Runner.run(Agent(name="helper", model=later), "What did I ask?", session=session)
        return later

    later = asyncio.run(go())
    seen = [i.get("type") or i.get("role") for i in later.inputs[0]]
    assert seen == ["user", "user", "function_call", "function_call_output", "message", "user"]
    call, output = later.inputs[0][2], later.inputs[0][3]
    assert call["name"] == "search_memory" and output["call_id"] == call["call_id"]
    assert "<graphmem-context>" not in json.dumps(output) and "Porto" not in json.dumps(output)
    stored = {m.speaker: m for m in chat.messages()}
    assert stored["tool"].payload == output
