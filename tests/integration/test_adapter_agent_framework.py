"""Microsoft Agent Framework: graphmem as a context provider of a real ``Agent`` and graphmem's
tools in its function-calling loop, the model scripted (a chat client that plays steps); real
Neo4j. A forget sticks, and a run's messages are stored once."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from agent_framework import (
    Agent,
    AgentSession,
    BaseChatClient,
    ChatResponse,
    Content,
    FunctionInvocationLayer,
    Message,
)

from graphmem.client import Memory
from graphmem.ids import turn_parts
from graphmem.integrations.agent_framework import RECALLED, GraphmemContextProvider, tools

from helpers import memory_ids


class ScriptedClient(FunctionInvocationLayer, BaseChatClient):  # type: ignore[misc]
    """Plays ``steps``: a (name, args) pair calls a tool, a string replies; keeps what it saw."""

    def __init__(self, steps: list[Any]) -> None:
        super().__init__()
        self.steps = steps
        self.seen: list[list[Message]] = []

    def _inner_get_response(self, *, messages: Any, stream: bool, options: Any,
                            **kwargs: Any) -> Any:
        async def answer() -> ChatResponse:
            self.seen.append(list(messages))
            step = self.steps.pop(0)
            if isinstance(step, tuple):
                call = Content.from_function_call(f"call-{len(self.seen)}", step[0],
                                                  arguments=json.dumps(step[1]))
                return ChatResponse(messages=[Message(role="assistant", contents=[call])])
            return ChatResponse(messages=[Message(role="assistant", contents=[step],
                                                  message_id=f"reply-{len(self.seen)}")])
        return answer()


def texts(messages: list[Message]) -> str:
    return "\n".join(m.text or "" for m in messages)


def test_the_provider_recalls_across_sessions_and_stores_each_run(memory: Memory,
                                                                  space: str) -> None:
    recall = GraphmemContextProvider(memory, space, budget=300)

    async def go() -> None:
        first = Agent(client=ScriptedClient(["Noted: a red Bianchi."]), context_providers=[recall])
        await first.run("My bike is a red Bianchi road bike.",
                        session=AgentSession(session_id="chat-1"))
        await asyncio.to_thread(memory.flush)
        client = ScriptedClient(["A red Bianchi."])
        second = Agent(client=client, context_providers=[recall])
        answer = await second.run("Which bike do I ride?",
                                  session=AgentSession(session_id="chat-2"))
        assert answer.text == "A red Bianchi."
        seen = texts(client.seen[0])
        assert RECALLED in seen and "red Bianchi road bike" in seen  # before the model
        assert "<graphmem-context>" in seen

    asyncio.run(go())
    first = [(m.speaker, m.text) for m in memory.messages(space, "chat-1").messages]
    assert first == [("user", "My bike is a red Bianchi road bike."),
                     ("assistant", "Noted: a red Bianchi.")]
    second = [m.text for m in memory.messages(space, "chat-2").messages]
    assert second == ["Which bike do I ride?", "A red Bianchi."]  # the recall is not stored
    assert all(RECALLED not in t for t in second)


def test_the_tools_in_the_loop_and_a_forget_that_sticks(memory: Memory, space: str) -> None:
    recall = GraphmemContextProvider(memory, space)
    chat = recall.memory_of("tools")

    async def go() -> list[str]:
        remember = ScriptedClient([("remember", {"text": "The garage code is 4411."}), "Saved."])
        await Agent(client=remember, tools=tools(chat)).run("Remember the garage code 4411.")
        await asyncio.to_thread(memory.flush)
        search = ScriptedClient([("search_memory", {"query": "garage code"}), "4411."])
        await Agent(client=search, tools=tools(chat)).run("What is the garage code?")
        result = next(c for m in search.seen[1] for c in m.contents
                      if c.type == "function_result")
        found = str(result.result)
        assert "4411" in found
        ids = memory_ids(found)
        forget = ScriptedClient([("forget_memory", {"memory_ids": ids}), "Forgotten."])
        await Agent(client=forget, tools=tools(chat)).run("Forget the garage code.")
        done = next(c for m in forget.seen[1] for c in m.contents if c.type == "function_result")
        assert str(done.result) == f"forgot 1 of {len(ids)} memories"
        return ids

    forgotten = asyncio.run(go())
    assert chat.messages() == []
    assert not any("4411" in h.text for h in memory.search("garage code", space=space).hits)
    conversation, message = turn_parts(space, forgotten[0]) or ("", "")
    again = memory.add_messages(space, conversation, [
        {"speaker": "assistant", "text": "The garage code is 4411.", "id": message}])
    assert again.forgotten == [message] and chat.messages() == []  # the forget sticks
