"""Task ``mentions``: the entities and concepts a question refers to."""

from __future__ import annotations

from pydantic import BaseModel

from graphmem.providers.llm_step import LLMStep

TASK = "mentions"

SYSTEM = (
    "List the things the question refers to: people, places, organisations, objects, "
    "events, activities and concepts, including vague ones such as 'my pet' or 'that trip'. "
    "Give each as a short noun phrase, without articles."
)


class MentionsOutput(BaseModel):
    mentions: list[str]


STEP = LLMStep(TASK, MentionsOutput)


def messages(question: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": question}]
