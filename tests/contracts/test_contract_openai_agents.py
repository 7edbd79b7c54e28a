"""The OpenAI Agents SDK's Session contract, as its own tests hold SQLiteSession to it
(openai/openai-agents-python tests/memory/test_session.py and test_session_limit.py, each test
below naming the ones it mirrors), run against graphmem's session on the real Neo4j, in the
SDK's own Runner with a scripted model."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner, set_tracing_disabled
from agents.memory import SessionSettings

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.openai_agents import GraphmemSession

from scripted_agents import ScriptedModel


def contents(items: list[Any]) -> list[str]:
    """The text of each message item, given as a string or as output_text parts."""
    return [c if isinstance(c := i.get("content"), str) else "".join(p["text"] for p in c)
            for i in items]


def test_items_added_come_back_and_clear_empties(memory: Memory, space: str) -> None:
    """test_sqlite_session_memory_direct; test_sqlite_session_get_items_with_limit;
    test_session_limit_negative_returns_empty."""
    session = GraphmemSession(AgentMemory(memory, space, "direct"))

    async def go() -> None:
        said = [("user", "Message 1"), ("assistant", "Response 1"), ("user", "Message 2"),
                ("assistant", "Response 2"), ("user", "Message 3"), ("assistant", "Response 3")]
        await session.add_items([{"role": r, "content": c} for r, c in said])
        everything = await session.get_items()
        assert [(i["role"], i["content"]) for i in everything] == said
        assert contents(await session.get_items(limit=2)) == ["Message 3", "Response 3"]
        assert contents(await session.get_items(limit=4))[0] == "Message 2"
        assert len(await session.get_items(limit=10)) == 6
        assert await session.get_items(limit=0) == []
        assert await session.get_items(limit=-1) == []
        await session.clear_session()
        assert await session.get_items() == []
        # any item comes back as it was added (the upstream suite compares whole items)
        items = [{"role": "user", "content": "Weather in Paris?"},
                 {"type": "function_call", "name": "weather", "arguments": '{"city": "Paris"}',
                  "call_id": "call_1", "id": "fc_1"},
                 {"type": "function_call_output", "call_id": "call_1", "output": "Sunny."},
                 {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed",
                  "content": [{"type": "output_text", "text": "Sunny.", "annotations": []}]}]
        await session.add_items(items)
        assert await session.get_items() == items
        assert await session.pop_item() == items[-1]

    asyncio.run(go())


def test_pop_takes_the_latest_of_its_own_session(memory: Memory, space: str) -> None:
    """test_sqlite_session_memory_pop_item; test_session_memory_pop_different_sessions."""
    one = GraphmemSession(AgentMemory(memory, space, "s1"))
    two = GraphmemSession(AgentMemory(memory, space, "s2"))

    async def go() -> None:
        assert await one.pop_item() is None
        await one.add_items([{"role": "user", "content": "Session 1 message"}])
        await two.add_items([{"role": "user", "content": "Hello"},
                             {"role": "assistant", "content": "Hi there!"},
                             {"role": "user", "content": "How are you?"}])
        popped = await two.pop_item()
        assert popped == {"role": "user", "content": "How are you?"}
        assert contents(await two.get_items()) == ["Hello", "Hi there!"]
        assert (await two.pop_item() or {}).get("role") == "assistant"
        assert (await two.pop_item() or {}).get("content") == "Hello"
        assert await two.pop_item() is None and await two.get_items() == []
        assert contents(await one.get_items()) == ["Session 1 message"]

    asyncio.run(go())


def test_the_runner_reads_history_through_the_session(memory: Memory, space: str) -> None:
    """test_session_memory_basic_functionality_parametrized (run);
    test_session_memory_different_sessions_parametrized; test_session_limit_parameter;
    test_session_limit_zero."""
    set_tracing_disabled(True)
    cats = GraphmemSession(AgentMemory(memory, space, "cats"))
    dogs = GraphmemSession(AgentMemory(memory, space, "dogs"))

    async def turn(session: GraphmemSession, asked: str, reply: str,
                   limit: int | None = None) -> list[Any]:
        model = ScriptedModel([reply])
        config = RunConfig(session_settings=SessionSettings(limit=limit)) if limit is not None \
            else None
        kwargs: dict[str, Any] = {"session": session}
        if config is not None:
            kwargs["run_config"] = config
        result = await Runner.run(Agent(name="test", model=model), asked, **kwargs)
        assert result.final_output == reply
        return list(model.inputs[-1])

    async def go() -> None:
        await turn(cats, "I like cats", "Noted: cats.")
        await turn(dogs, "I like dogs", "Noted: dogs.")
        seen = await turn(cats, "What did I say I like?", "Cats.")
        assert contents(seen) == ["I like cats", "Noted: cats.", "What did I say I like?"]
        limited = await turn(cats, "Message 4", "Reply 4", limit=2)
        assert contents(limited) == ["What did I say I like?", "Cats.", "Message 4"]
        alone = await turn(cats, "Message 5", "Reply 5", limit=0)
        assert contents(alone) == ["Message 5"]
        assert "dogs" not in " ".join(contents(await cats.get_items()))

    asyncio.run(go())


def test_session_settings_as_the_sdk_gives_them(memory: Memory, space: str) -> None:
    """test_session_settings_default; test_session_settings_constructor_normalizes_dictionary;
    test_session_settings_rejects_unknown_dictionary_fields;
    test_get_items_uses_session_settings_limit."""
    chat = AgentMemory(memory, space, "settings")
    assert GraphmemSession(chat).session_settings == SessionSettings()
    given = GraphmemSession(chat, session_settings={"limit": 0})
    assert isinstance(given.session_settings, SessionSettings)
    assert given.session_settings.limit == 0
    assert given.session_settings.resolve({"limit": 4}).limit == 4
    with pytest.raises(TypeError, match="limitt"):
        GraphmemSession(chat, session_settings={"limitt": 1})
    session = GraphmemSession(chat, session_settings=SessionSettings(limit=3))

    async def go() -> None:
        await session.add_items([{"role": "user", "content": f"Message {i}"} for i in range(5)])
        assert contents(await session.get_items()) == ["Message 2", "Message 3", "Message 4"]
        assert len(await session.get_items(limit=5)) == 5  # an explicit limit wins

    asyncio.run(go())
