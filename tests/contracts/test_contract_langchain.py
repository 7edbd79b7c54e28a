"""LangChain's own contract suites (the ``langchain-tests`` package, as it ships) run against
graphmem's retriever and its three tools, on the real Neo4j: every standard test of each
class runs, none is overridden or skipped (the package checks that itself)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from langchain_core.messages import HumanMessage
from langchain_core.tools import BaseTool
from langchain_tests.integration_tests import RetrieversIntegrationTests, ToolsIntegrationTests
from langchain_tests.unit_tests import ToolsUnitTests

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.langchain import (
    GraphmemChatMessageHistory,
    GraphmemRetriever,
    tools,
)

pytestmark = pytest.mark.neo4j

FACTS = ["I adopted a greyhound called Pepper.", "Pepper sleeps on the green sofa.",
         "My sister Ines walks Pepper on Sundays.", "Pepper was born in Seville.",
         "The vet says Pepper weighs 28 kilos."]


def filled(memory: Memory, space: str) -> AgentMemory:
    agent = AgentMemory(memory, space, "chat")
    GraphmemChatMessageHistory(agent).add_messages(
        [HumanMessage(text, id=f"f{n}") for n, text in enumerate(FACTS)])
    memory.flush()
    return agent


class TestRetrieverContract(RetrieversIntegrationTests):
    @pytest.fixture(autouse=True)
    def _space(self, memory: Memory, space: str) -> None:
        self.agent = filled(memory, space)

    @property
    def retriever_constructor(self) -> type[GraphmemRetriever]:
        return GraphmemRetriever

    @property
    def retriever_constructor_params(self) -> dict[str, Any]:
        return {"agent_memory": self.agent}

    @property
    def retriever_query_example(self) -> str:
        return "What do I know about Pepper the dog?"


SEARCH: dict[str, Any] = {"query": "Where was Pepper born?", "max_tokens": 200}
REMEMBER: dict[str, Any] = {"text": "The user prefers window seats."}


class _ToolSetup:
    which = 0  # search_memory, remember, forget_memory
    example: ClassVar[dict[str, Any]] = SEARCH

    @pytest.fixture(autouse=True)
    def _space(self, memory: Memory, space: str) -> None:
        self.agent = filled(memory, space)

    @property
    def tool_constructor(self) -> BaseTool:
        return tools(self.agent)[self.which]

    @property
    def tool_constructor_params(self) -> dict[str, Any]:
        return {}

    @property
    def tool_invoke_params_example(self) -> dict[str, Any]:
        if self.which == 2:  # a real memory id to forget
            return {"memory_ids": [self.agent.remember("The garage code is 4411.")]}
        return self.example


class TestSearchToolUnit(_ToolSetup, ToolsUnitTests):
    example = SEARCH


class TestSearchToolContract(_ToolSetup, ToolsIntegrationTests):
    example = SEARCH


class TestRememberToolUnit(_ToolSetup, ToolsUnitTests):
    which, example = 1, REMEMBER


class TestRememberToolContract(_ToolSetup, ToolsIntegrationTests):
    which, example = 1, REMEMBER


class TestForgetToolUnit(_ToolSetup, ToolsUnitTests):
    which = 2


class TestForgetToolContract(_ToolSetup, ToolsIntegrationTests):
    which = 2
