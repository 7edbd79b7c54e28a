"""Strands Agents: graphmem's MemoryStore under Strands' own MemoryManager, in the Agent's loop
with a scripted model (a Model that streams the steps it is given); real Neo4j. A fact told in
one conversation is folded into another's model input and found by the manager's tool; a
forget by the ids an entry names sticks; a retried batch is stored once, the same words in the
next run again."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator
from typing import Any

from strands import Agent
from strands.memory import AddMessagesContext, MemoryManager
from strands.models import Model

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.strands import GraphmemMemoryStore


class ScriptedModel(Model):
    """Plays ``steps``: a (name, input) pair calls a tool, a string replies; keeps each
    call's messages."""

    def __init__(self, steps: list[Any]) -> None:
        self.steps = list(steps)
        self.seen: list[list[dict[str, Any]]] = []

    def update_config(self, **model_config: Any) -> None:
        return None

    def get_config(self) -> Any:
        return {}

    async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        raise NotImplementedError
        yield  # an async generator, as the interface declares

    async def stream(self, messages: Any, tool_specs: Any = None, system_prompt: Any = None,
                     **kwargs: Any) -> AsyncGenerator[Any, None]:
        self.seen.append(json.loads(json.dumps(messages, default=str)))
        step = self.steps.pop(0)
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(step, tuple):
            name, given = step
            yield {"contentBlockStart": {"start": {"toolUse": {
                "name": name, "toolUseId": f"t{len(self.seen)}"}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": json.dumps(given)}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
            return
        yield {"contentBlockStart": {"start": {}}}
        yield {"contentBlockDelta": {"delta": {"text": step}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "end_turn"}}


def agent_with(store: GraphmemMemoryStore, steps: list[Any]) -> tuple[Agent, ScriptedModel,
                                                                       MemoryManager]:
    model = ScriptedModel(steps)
    manager = MemoryManager(stores=[store])
    return Agent(model=model, plugins=[manager], tools=store.get_tools(),
                 callback_handler=None), model, manager


def test_recall_in_another_conversation_and_a_forget_that_sticks(memory: Memory,
                                                                 space: str) -> None:
    first = GraphmemMemoryStore(AgentMemory(memory, space, "chat-1"))
    second = GraphmemMemoryStore(AgentMemory(memory, space, "chat-2"))

    async def go() -> None:
        teller, _, told_to = agent_with(first, ["Noted.", "Hello again."])
        await teller.invoke_async("My landlord is called Mr Okafor.")
        await told_to.flush()  # the manager stores a run's messages in the background
        assert [(m.speaker, m.text) for m in first.agent_memory.messages()] == [
            ("user", "My landlord is called Mr Okafor."), ("assistant", "Noted.")]
        await asyncio.to_thread(memory.flush)

        agent, model, manager = agent_with(second, [
            ("search_memory", {"query": "landlord name"}), "Mr Okafor."])
        result = await agent.invoke_async("Who is my landlord?")
        assert "Mr Okafor." in str(result)
        # the recalled memory was folded into the model's input, for that call only
        assert "Okafor" in json.dumps(model.seen[0])
        assert "Okafor" not in json.dumps(agent.messages[0])
        found = json.dumps(model.seen[1][-1])  # the tool's result: the entries and their ids
        assert "Okafor" in found and "memory_ids" in found
        await manager.flush()
        entries = await second.search("landlord")
        told = next(e.metadata["memory_ids"] for e in entries
                    if "called Mr Okafor" in e.content and e.metadata)

        agent, _, manager = agent_with(second, [("forget_memory", {"memory_ids": told}),
                                                "Done."])
        await agent.invoke_async("Forget my landlord's name.")
        await manager.flush()
        assert all("called Mr Okafor" not in e.content for e in await second.search("landlord"))
        # the first agent still holds the fact in its own history: its next run stores only
        # what is new, so the forgotten message stays forgotten
        await teller.invoke_async("Hi!")
        await told_to.flush()
        assert [m.text for m in first.agent_memory.messages()] == ["Noted.", "Hi!",
                                                                   "Hello again."]

    asyncio.run(go())


def test_a_retried_batch_is_stored_once_and_the_next_run_again(memory: Memory,
                                                               space: str) -> None:
    store = GraphmemMemoryStore(AgentMemory(memory, space, "chat"))
    batch = [{"role": "user", "content": [{"text": "ok"}]},
             {"role": "assistant", "content": [{"text": "Fine."}, {"text": "Really."}]}]

    async def go() -> list[tuple[str, str]]:
        await store.add_messages(batch, AddMessagesContext(sequence_numbers=[0, 1]))
        await store.add_messages(batch, AddMessagesContext(sequence_numbers=[0, 1]))  # retry
        await store.add_messages(batch[:1], AddMessagesContext(sequence_numbers=[0]))  # run 2
        await store.add_messages([{"role": "user", "content": [{"image": {}}]}],
                                 AddMessagesContext(sequence_numbers=[1]))  # no text: none
        return [(m.speaker, m.text) for m in store.agent_memory.messages()]

    assert asyncio.run(go()) == [("user", "ok"), ("assistant", "Fine.\nReally."), ("user", "ok")]
