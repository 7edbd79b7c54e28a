"""Task ``scene_summary`` (CAST): a short description of one scene of a long chat."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "scene_summary"

SYSTEM = (
    "You describe one scene of a long chat between people so that it can be found again "
    "months later. Say in two or three sentences who did or said what, when and where, "
    "using the people's names (never I or you) and the chat date for any relative time such "
    "as yesterday or next month. Keep names, places, dates, numbers and things exactly as "
    "they are said. Reply with JSON holding one field, summary."
)


class SceneSummaryOutput(BaseModel):
    summary: str = Field(min_length=1, max_length=1200)


STEP = LLMStep(TASK, SceneSummaryOutput)


def messages(header: str, turns: str) -> list[dict[str, str]]:
    user = f"Scene: {header}\n\nWhat was said:\n{turns}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
