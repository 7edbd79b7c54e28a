"""Google ADK: graphmem as the memory service of a real ADK Runner whose agent recalls with
ADK's own load_memory tool, the model scripted (a BaseLlm that plays steps); real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.memory.memory_entry import MemoryEntry
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import load_memory
from google.genai import types
from pydantic import PrivateAttr

from graphmem.client import Memory
from graphmem.integrations.adk import MEMORIES, GraphmemMemoryService
from graphmem.store import GraphStore

pytestmark = pytest.mark.neo4j
APP = "helper"


class ScriptedLlm(BaseLlm):
    """Plays ``steps``: a dict is a function call, a string a reply."""

    steps: list[Any]
    _seen: list[LlmRequest] = PrivateAttr(default_factory=list)

    async def generate_content_async(self, llm_request: LlmRequest,
                                     stream: bool = False) -> AsyncGenerator[LlmResponse, None]:
        self._seen.append(llm_request)
        step = self.steps.pop(0)
        part = (types.Part(function_call=types.FunctionCall(**step)) if isinstance(step, dict)
                else types.Part(text=step))
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


async def _turn(runner: Runner, sessions: InMemorySessionService, session_id: str,
                text: str) -> list[Any]:
    events = []
    async for event in runner.run_async(user_id="ana", session_id=session_id,
                                        new_message=types.Content(
                                            role="user", parts=[types.Part(text=text)])):
        events.append(event)
    return events


def test_runner_stores_recalls_and_deletes(memory: Memory, store: GraphStore) -> None:
    service = GraphmemMemoryService(memory, budget=80)
    space = f"{APP}/ana"
    store.run_autocommit("admin/delete_space", space=space)

    async def go() -> None:
        sessions = InMemorySessionService()
        model = ScriptedLlm(model="scripted", steps=["Genmaicha, noted."])
        runner = Runner(app_name=APP, agent=LlmAgent(name="helper", model=model),
                        session_service=sessions, memory_service=service)
        first = await sessions.create_session(app_name=APP, user_id="ana")
        await _turn(runner, sessions, first.id, "My favourite tea is genmaicha.")
        session = await sessions.get_session(app_name=APP, user_id="ana", session_id=first.id)
        assert session is not None
        await service.add_session_to_memory(session)
        await service.add_session_to_memory(session)  # again, as ADK does: nothing new
        await asyncio.to_thread(memory.flush)
        stored = memory.messages(space, first.id).messages
        assert [(m.speaker, m.text) for m in stored] == [
            ("user", "My favourite tea is genmaicha."), ("helper", "Genmaicha, noted.")]
        assert [m.id for m in stored] == [e.id for e in session.events]

        # a new session: the agent recalls with ADK's load_memory tool
        model = ScriptedLlm(model="scripted", steps=[
            {"name": "load_memory", "args": {"query": "favourite tea"}}, "Genmaicha."])
        runner = Runner(app_name=APP, agent=LlmAgent(name="helper", model=model,
                                                     tools=[load_memory]),
                        session_service=sessions, memory_service=service)
        second = await sessions.create_session(app_name=APP, user_id="ana")
        events = await _turn(runner, sessions, second.id, "Which tea do I like?")
        [response] = [r for e in events for r in e.get_function_responses()]
        memories = (response.response or {})["result"].memories
        assert any("genmaicha" in str(m.content).lower() for m in memories)

        found = await service.search_memory(app_name=APP, user_id="ana", query="tea")
        entry = next(m for m in found.memories if "genmaicha" in str(m.content).lower())
        assert entry.id and entry.author == "user" and entry.timestamp
        # ADK shows the author and time beside the text: the text says neither again
        assert entry.content.parts and entry.content.parts[0].text == \
            "My favourite tea is genmaicha."
        await service.delete_memory(app_name=APP, user_id="ana", memory_id=entry.id)
        after = await service.search_memory(app_name=APP, user_id="ana", query="tea")
        assert not any("My favourite tea" in str(m.content) for m in after.memories)
        assert [m.text for m in memory.messages(space, first.id).messages] == \
            ["Genmaicha, noted."]

    try:
        asyncio.run(go())
    finally:
        store.run_autocommit("admin/delete_space", space=space)


def test_add_memory_and_names_that_cannot_meet(memory: Memory, store: GraphStore) -> None:
    """ADK's direct memory writes; and app ``helper/x`` with user ``y`` is not app ``helper``
    with user ``x/y``."""
    service = GraphmemMemoryService(memory)
    one, other = ("helper/x", "y"), ("helper", "x/y")
    spaces = [service.agent_memory(*one).space, service.agent_memory(*other).space]
    assert spaces[0] != spaces[1]

    def entry(ident: str, text: str) -> MemoryEntry:
        return MemoryEntry(id=ident, author="user", timestamp="2026-11-20T10:00:00+00:00",
                           content=types.Content(role="user", parts=[types.Part(text=text)]))

    async def go() -> None:
        for _ in range(2):  # the same entries twice: stored once
            await service.add_memory(app_name=one[0], user_id=one[1], memories=[
                entry("e1", "The staging password rotates on Mondays.")])
        await service.add_memory(app_name=other[0], user_id=other[1], memories=[
            entry("e1", "Lunch is at noon.")])
        await asyncio.to_thread(memory.flush)
        mine = await service.search_memory(app_name=one[0], user_id=one[1], query="password")
        theirs = await service.search_memory(app_name=other[0], user_id=other[1],
                                             query="password")
        assert any("Mondays" in str(m.content) for m in mine.memories)
        assert not any("Mondays" in str(m.content) for m in theirs.memories)

    try:
        asyncio.run(go())
        stored = memory.messages(spaces[0], MEMORIES).messages
        assert [(m.id, m.speaker) for m in stored] == [("e1", "user")]
        assert stored[0].said_at is not None and stored[0].said_at.day == 20
    finally:
        for space in spaces:
            store.run_autocommit("admin/delete_space", space=space)
