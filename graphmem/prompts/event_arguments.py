"""Task ``event_arguments``: the event type and the arguments of each statement of a session."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "event_arguments"

SYSTEM = (
    "For each numbered statement, name the kind of event it describes in two or three words "
    "(for example 'travel', 'adoption', 'job change') and list its arguments: the people, "
    "places, organisations, objects, activities, times and amounts it involves, each with "
    "the role it plays (agent, patient, place, time, topic, ...). Write arguments as short "
    "noun phrases in their plain, canonical form."
)


class RoleArgument(BaseModel):
    role: str
    argument: str = Field(min_length=1)


class StatementArguments(BaseModel):
    index: int
    event_type: str = ""
    arguments: list[RoleArgument] = Field(default_factory=list)


class ArgumentExtraction(BaseModel):
    statements: list[StatementArguments]


STEP = LLMStep(TASK, ArgumentExtraction)


def messages(statements: Sequence[str]) -> list[dict[str, str]]:
    listed = "\n".join(f"[{i}] {text}" for i, text in enumerate(statements))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": listed}]
