"""Task ``memory_segments`` (MMS): four kinds of long-term memory from one round of dialogue.

The round is what to analyse; the round before it is given only to make it understandable."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "memory_segments"

SYSTEM = (
    "You turn one exchange from a long chat into memories that will be searched months later. "
    "Work only on the exchange; the earlier message is there to help you understand it. Use "
    "the speakers' names, never I or you, and give dates counted from the chat date instead "
    "of words like yesterday or next week. Reply with JSON holding four lists:\n"
    "- keywords: up to ten short words or phrases that identify the exchange: people, "
    "places, things, activities, dates;\n"
    "- perspectives: two to five questions someone could later ask that the exchange "
    "answers, each from a different angle (what a person likes, how they feel, what they "
    "plan, who they are close to, what they do habitually, what happened when);\n"
    "- episodic: what happened or will happen, each as one sentence saying who, what, when "
    "and where;\n"
    "- semantic: lasting facts the exchange states about people or the world, each as one "
    "short sentence.\n"
    "A list may be empty when the exchange has nothing of that kind."
)


class SegmentsOutput(BaseModel):
    keywords: list[str] = Field(default_factory=list, max_length=16)
    perspectives: list[str] = Field(default_factory=list, max_length=8)
    episodic: list[str] = Field(default_factory=list, max_length=8)
    semantic: list[str] = Field(default_factory=list, max_length=8)


STEP = LLMStep(TASK, SegmentsOutput)


def messages(day: str, previous: str, exchange: str) -> list[dict[str, str]]:
    user = (f"Chat date: {day or 'unknown'}\n"
            f"Earlier message: {previous or '(none: the exchange opens the chat)'}\n\n"
            f"Exchange:\n{exchange}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
