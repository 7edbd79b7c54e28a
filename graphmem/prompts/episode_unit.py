"""Task ``episode_unit`` (EMA): the label, summary and confidence of one episodic memory unit."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "episode_unit"

SYSTEM = (
    "You file one moment of a long chat as a memory. Given what was said and its date, write "
    "a one-sentence summary of the event or fact it records, naming the people (never I or "
    "you) and turning relative times into dates; up to six short tags a later search could "
    "use (people, places, things, activities); and how certain the fact is, from 0 (a guess "
    "or a question) to 1 (stated plainly by the person it concerns). Reply with JSON with the "
    "fields summary, tags and confidence."
)


class EpisodeUnitOutput(BaseModel):
    summary: str = Field(min_length=1, max_length=600)
    tags: list[str] = Field(default_factory=list, max_length=12)
    confidence: float = Field(ge=0.0, le=1.0)


STEP = LLMStep(TASK, EpisodeUnitOutput)


def messages(date: str, content: str) -> list[dict[str, str]]:
    user = f"Date: {date or 'unknown'}\n\nWhat was said:\n{content}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
