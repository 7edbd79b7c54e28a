"""CrewAI: graphmem as a crew's memory, in the Crew's own loop with a scripted LLM (a BaseLLM
that answers the steps it is given, in CrewAI's ReAct text); real Neo4j. What one crew's task
produced is recalled into another crew's task prompt; a forget by a recalled record's id, made
by the agent's tool, sticks; nothing is stored twice."""

from __future__ import annotations

import json
from typing import Any

from crewai import Agent, Crew, Task
from crewai.llms.base_llm import BaseLLM
from pydantic import Field

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.integrations.crewai import GraphmemCrewMemory, tools


class ScriptedLLM(BaseLLM):
    """Answers ``steps`` in order: a (tool, input) pair acts, a string is the final answer;
    keeps every prompt."""

    steps: list[Any] = Field(default_factory=list)
    prompts: list[str] = Field(default_factory=list)

    def call(self, messages: Any, tools: Any = None, callbacks: Any = None,
             available_functions: Any = None, from_task: Any = None, from_agent: Any = None,
             response_model: Any = None) -> str:
        self.prompts.append(json.dumps(messages, default=str))
        step = self.steps.pop(0)
        if isinstance(step, tuple):
            return (f"Thought: I use a tool.\nAction: {step[0]}\n"
                    f"Action Input: {json.dumps(step[1])}")
        return f"Thought: I now know the final answer\nFinal Answer: {step}"

    def supports_function_calling(self) -> bool:
        return False


def crew_of(chat: AgentMemory, task: str, steps: list[Any]) -> tuple[Crew, ScriptedLLM]:
    llm = ScriptedLLM(model="scripted", steps=list(steps), prompts=[])
    agent = Agent(role="concierge", goal="help the guest", backstory="a hotel's concierge",
                  llm=llm, tools=tools(chat), allow_delegation=False, max_iter=4)
    work = Task(description=task, expected_output="a short answer", agent=agent)
    return Crew(agents=[agent], tasks=[work],
                memory=GraphmemCrewMemory(agent_memory=chat)), llm


def test_a_task_recalled_by_another_crew_and_a_forget_that_sticks(memory: Memory,
                                                                 space: str) -> None:
    first = AgentMemory(memory, space, "crew-1")
    crew, _ = crew_of(first, "Note the guest's allergy: she is allergic to hazelnuts.",
                      ["The guest Ines is allergic to hazelnuts."])
    crew.kickoff()
    stored = first.messages()
    assert len(stored) == 1 and stored[0].speaker == "concierge"
    assert "allergic to hazelnuts" in stored[0].text
    memory.flush()

    second = AgentMemory(memory, space, "crew-2")
    crew, llm = crew_of(second, "Which food must the kitchen avoid for Ines?",
                        ["Hazelnuts."])
    assert "Hazelnuts." in str(crew.kickoff())
    assert "allergic to hazelnuts" in llm.prompts[0]  # recalled into the task's prompt
    found = GraphmemCrewMemory(agent_memory=second).recall("Ines allergy", limit=3)
    told = next(m.record.metadata["memory_ids"] for m in found
                if "The guest Ines is allergic" in m.record.content)

    crew, _ = crew_of(second, "Forget what you know of Ines's allergy.",
                      [("forget_memory", {"memory_ids": told}), "Forgotten."])
    crew.kickoff()
    assert not any("allergic to hazelnuts" in m.record.content for m in
                   GraphmemCrewMemory(agent_memory=second).recall("Ines allergy", limit=5))
    assert first.messages() == []  # the message is gone from the crew that stored it
    assert len(second.messages()) == 2  # the two later tasks, each once


def test_what_graphmem_does_not_model_is_refused_and_reset_forgets(memory: Memory,
                                                                   space: str) -> None:
    chat = AgentMemory(memory, space, "crew")
    crew_memory = GraphmemCrewMemory(agent_memory=chat)
    [record] = crew_memory.remember_many(["The spa opens at 7."], agent_role="concierge")
    assert crew_memory.extract_memories("x") == ["x"] and crew_memory.extract_memories(" ") == []
    try:
        crew_memory.forget(scope="/guests")
        raise AssertionError("a scope is not graphmem's")
    except Exception as refused:
        assert "record_ids" in str(refused)
    assert crew_memory.forget(record_ids=[record.id]) == 1
    crew_memory.remember("The pool opens at 8.")
    crew_memory.reset()
    assert chat.messages() == []
