"""Google ADK: graphmem as the memory service of a real ADK Runner whose agent recalls with
ADK's own load_memory tool, the model scripted (a BaseLlm that plays steps); real Neo4j."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator
from typing import Any

import pytest
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.runners import Runner
from google.adk.sessions import InMemorySessionService
from google.adk.tools import load_memory
from google.genai import types
from pydantic import PrivateAttr

from graphmem.client import Memory
from graphmem.integrations.adk import GraphmemMemoryService
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
        await service.delete_memory(app_name=APP, user_id="ana", memory_id=entry.id)
        after = await service.search_memory(app_name=APP, user_id="ana", query="tea")
        assert not any("My favourite tea" in str(m.content) for m in after.memories)
        assert [m.text for m in memory.messages(space, first.id).messages] == \
            ["Genmaicha, noted."]

    try:
        asyncio.run(go())
    finally:
        store.run_autocommit("admin/delete_space", space=space)
