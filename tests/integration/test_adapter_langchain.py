"""LangChain: the retriever and graphmem's tools in a real LangChain agent (``create_agent``),
and the chat history over live messages; on the real Neo4j, the model scripted."""

from __future__ import annotations

import asyncio

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import create_retriever_tool

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.langchain import (
    GraphmemChatMessageHistory,
    GraphmemRetriever,
    tools,
)
from graphmem.retrieve.packing import count_tokens

from scripted import ScriptedChatModel, call, say

pytestmark = pytest.mark.neo4j


def test_chat_history_is_the_conversation(memory: Memory, space: str) -> None:
    history = GraphmemChatMessageHistory.of(memory, space, "chat-1")
    assert history.messages == []
    history.add_messages([HumanMessage("I adopted a greyhound called Pepper.", id="m1"),
                          AIMessage("Lovely name!", id="m2"),
                          AIMessage("", tool_calls=[{"name": "t", "args": {}, "id": "c"}])])
    history.add_messages([HumanMessage("I adopted a greyhound called Pepper.", id="m1")])
    got = history.messages
    assert [(type(m).__name__, m.content, m.id) for m in got] == [
        ("HumanMessage", "I adopted a greyhound called Pepper.", "m1"),
        ("AIMessage", "Lovely name!", "m2")]
    assert [m.id for m in asyncio.run(history.aget_messages())] == ["m1", "m2"]
    history.clear()
    assert history.messages == [] and memory.conversations(space) == []


def test_retriever_documents_carry_their_sources(memory: Memory, space: str) -> None:
    GraphmemChatMessageHistory.of(memory, space, "chat-1").add_messages([
        HumanMessage("My grandmother taught me to bake rye bread.", id="a"),
        HumanMessage("The office moved to the fourth floor.", id="b")])
    memory.flush()
    retriever = GraphmemRetriever.of(memory, space, budget=40)
    docs = retriever.invoke("Who taught me baking?")
    assert docs and "rye bread" in docs[0].page_content
    meta = docs[0].metadata
    assert meta["source_ids"] == ["a"] and meta["space"] == space
    assert meta["source_turn_ids"] and meta["started_at"]
    assert sum(count_tokens(d.page_content) for d in docs) <= 40
    assert [d.id for d in asyncio.run(retriever.ainvoke("Who taught me baking?"))] == \
        [d.id for d in docs]
    assert GraphmemRetriever.of(memory, "test-nothing-here").invoke("anything") == []


def test_agent_remembers_finds_and_forgets(memory: Memory, space: str) -> None:
    agent_memory = AgentMemory(memory, space, "agent")
    retriever_tool = create_retriever_tool(GraphmemRetriever(agent_memory=agent_memory),
                                           "recall", "Search what the user told you before.")
    agent_tools = [*tools(agent_memory), retriever_tool]

    model = ScriptedChatModel(steps=[call("remember", {"text": "The user's bike is a red "
                                                       "Bianchi road bike."}), say("Saved.")])
    create_agent(model, agent_tools).invoke({"messages": [HumanMessage("My bike is red.")]})
    memory.flush()

    model = ScriptedChatModel(steps=[call("search_memory", {"query": "what bike",
                                                            "max_tokens": 50}),
                                     call("recall", {"query": "bike colour"}, "call-2"),
                                     say("A red Bianchi.")])
    out = create_agent(model, agent_tools).invoke(
        {"messages": [HumanMessage("Which bike do I ride?")]})
    searched, recalled = [m for m in out["messages"] if isinstance(m, ToolMessage)]
    assert "Bianchi" in str(searched.content) and "Bianchi" in str(recalled.content)
    ids = str(searched.content).rsplit("memory ids: ", 1)[1].split(", ")

    model = ScriptedChatModel(steps=[call("forget_memory", {"memory_ids": ids}),
                                     say("Forgotten.")])
    out = create_agent(model, agent_tools).invoke(
        {"messages": [HumanMessage("Forget my bike.")]})
    assert "forgot 1 of 1" in str(next(m for m in out["messages"]
                                       if isinstance(m, ToolMessage)).content)
    assert agent_memory.messages() == []
    assert not any("Bianchi" in h.text for h in memory.search("bike", space=space).hits)
