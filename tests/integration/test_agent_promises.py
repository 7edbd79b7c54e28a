"""The two promises every agent surface keeps, held over all seven framework adapters and the
coding-agent hooks at once (the TypeScript client's own suite holds it to the same): a forget
sticks, however the surface sends its history afterwards, and nothing said is lost or stored
twice. Each surface is driven the way its framework drives it: turn after turn, the whole
history again where the framework sends it again (LangGraph's hooks, LangChain's history,
ADK's sessions, Pydantic AI's runs, a hook's transcript), only the new messages where it sends
those (LlamaIndex's flushes, AutoGen's memory, the Agents SDK's session, with the ids Chat
Completions models give every item)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from agent_framework import AgentSession, SessionContext
from agent_framework import Message as AfMessage
from autogen_core.memory import MemoryContent, MemoryMimeType
from google.adk.events import Event
from google.adk.sessions import Session
from google.genai import types
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from llama_index.core.llms import ChatMessage, MessageRole
from pydantic_ai.messages import ModelRequest, ModelResponse, TextPart, UserPromptPart

from graphmem.client import Memory
from graphmem.integrations.adk import GraphmemMemoryService
from graphmem.integrations.agent_framework import GraphmemContextProvider
from graphmem.integrations.autogen import GraphmemMemory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.hooks import Hook, LocalBackend
from graphmem.integrations.langchain import GraphmemChatMessageHistory
from graphmem.integrations.langgraph import context_hook
from graphmem.integrations.llamaindex import GraphmemMemoryBlock
from graphmem.integrations.openai_agents import GraphmemSession
from graphmem.integrations.pydantic_ai import store_run

from helpers import text_held

SECRET = "quokka7731"
SAID = [("user", "I am planning a trip to Lisbon in May."),
        ("assistant", "Lisbon in May is lovely. Shall I note the dates?"),
        ("user", f"Yes. Also my locker code at the gym is {SECRET}."),
        ("assistant", "Noted the trip; anything else?"),
        ("user", "Please forget that locker code, I changed it."),  # three more turns
        ("assistant", "Done. What else about the trip?"),
        ("user", "We will stay near Alfama for five nights.")]
FORGOTTEN = 2
START = datetime(2026, 5, 2, 10, 0, tzinfo=UTC)


@dataclass
class Driver:
    """Sends a conversation's history to one surface as its framework does."""

    memory: Memory
    space: str
    conversation: str
    tmp: Path
    sent: int = 0  # how many messages a surface that sends only new ones has sent
    state: dict[str, Any] = field(default_factory=dict)

    def agent(self) -> AgentMemory:
        return AgentMemory(self.memory, self.space, self.conversation)

    def turn(self, history: list[tuple[int, str, str]]) -> None:
        raise NotImplementedError

    def new(self, history: list[tuple[int, str, str]]) -> list[tuple[int, str, str]]:
        fresh, self.sent = history[self.sent:], len(history)
        return fresh


def lc(n: int, role: str, text: str) -> BaseMessage:
    return (HumanMessage if role == "user" else AIMessage)(content=text, id=f"lc-{n}")


class LangGraph(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # the whole state, each call
        context_hook(self.agent())({"messages": [lc(*m) for m in history]})


class LangChain(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:
        GraphmemChatMessageHistory(self.agent()).add_messages([lc(*m) for m in history])


class LlamaIndex(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:
        block = GraphmemMemoryBlock(agent_memory=self.agent())
        asyncio.run(block.aput([ChatMessage(role=MessageRole(role), content=text)
                                for _, role, text in self.new(history)]))


class AutoGen(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:
        memory = GraphmemMemory(self.agent())
        for _, role, text in self.new(history):
            asyncio.run(memory.add(MemoryContent(content=text, mime_type=MemoryMimeType.TEXT,
                                                 metadata={"speaker": role})))


class Adk(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # the whole session again
        service = GraphmemMemoryService(self.memory, space=lambda _app, _user: self.space)
        events = [Event(id=f"ev-{n}", author="user" if role == "user" else "helper",
                        invocation_id=f"inv-{n // 2}",
                        timestamp=(START + timedelta(minutes=n)).timestamp(),
                        content=types.Content(role="user" if role == "user" else "model",
                                              parts=[types.Part(text=text)]))
                  for n, role, text in history]
        asyncio.run(service.add_session_to_memory(Session(
            id=self.conversation, app_name="app", user_id="u", events=events)))


class OpenAIAgents(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # a Chat Completions model
        session = GraphmemSession(self.agent())
        asyncio.run(session.add_items([{"role": role, "content": text, "id": "__fake_id__"}
                                       for _, role, text in self.new(history)]))


class PydanticAI(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # a run over all of it
        said = [ModelRequest(parts=[UserPromptPart(content=text,
                                                   timestamp=START + timedelta(minutes=n))])
                if role == "user" else
                ModelResponse(parts=[TextPart(content=text)],
                              timestamp=START + timedelta(minutes=n))
                for n, role, text in history]
        asyncio.run(store_run(self.agent(), SimpleNamespace(new_messages=lambda: said)))


class AgentFramework(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # each run's new messages
        provider = GraphmemContextProvider(self.memory, self.space)
        run = SessionContext(session_id=self.conversation, input_messages=[
            AfMessage(role=role, contents=[text], message_id=f"af-{n}")
            for n, role, text in self.new(history)])
        asyncio.run(provider.after_run(agent=None, session=AgentSession(
            session_id=self.conversation), context=run, state={}))


class Hooks(Driver):
    def turn(self, history: list[tuple[int, str, str]]) -> None:  # the transcript so far
        path = self.tmp / "transcript.jsonl"
        path.write_text("".join(json.dumps({
            "type": role, "uuid": f"u-{n}", "sessionId": self.conversation,
            "timestamp": (START + timedelta(minutes=n)).isoformat(),
            "message": {"role": role, "content": text}}) + "\n"
            for n, role, text in history), encoding="utf-8")
        Hook(LocalBackend(self.memory, self.space)).capture(
            {"session_id": self.conversation, "transcript_path": str(path)})


DRIVERS: dict[str, Callable[..., Driver]] = {
    "langgraph": LangGraph, "langchain": LangChain, "llamaindex": LlamaIndex,
    "autogen": AutoGen, "adk": Adk, "openai_agents": OpenAIAgents,
    "pydantic_ai": PydanticAI, "agent_framework": AgentFramework, "hooks": Hooks}


@pytest.mark.parametrize("surface", list(DRIVERS))
def test_a_forget_sticks_and_nothing_is_lost_or_doubled(memory: Memory, space: str,
                                                        tmp_path: Path, surface: str) -> None:
    driver = DRIVERS[surface](memory, space, f"{surface}-chat", tmp_path)
    history = [(n, role, text) for n, (role, text) in enumerate(SAID)]
    for k in range(1, FORGOTTEN + 3):  # turn after turn, the secret among them
        driver.turn(history[:k])
    memory.flush()
    stored = memory.messages(space, driver.conversation, limit=100).messages
    assert [m.text for m in stored] == [text for _, text in SAID[:FORGOTTEN + 2]], surface
    [secret] = [m for m in stored if SECRET in m.text]
    memory.forget(space, driver.conversation, turns=[secret.id])

    for k in range(FORGOTTEN + 3, len(SAID) + 1):  # three more turns, the history sent again
        driver.turn(history[:k])
    memory.flush()
    stored = memory.messages(space, driver.conversation, limit=100).messages
    assert [m.text for m in stored] == [text for n, (_, text) in enumerate(SAID)
                                        if n != FORGOTTEN], surface
    assert text_held(memory.store, space, SECRET) == [], surface
    found = memory.search("What is my locker code at the gym?", space=space, budget=2000)
    assert SECRET not in found.context
