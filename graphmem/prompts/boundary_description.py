"""Task ``boundary_description`` (ES-Mem layered memory, level 1): a description of how the
conversation moves from one event to the next, used as a retrieval anchor."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "boundary_description"

SYSTEM = (
    "You write index entries for a memory of past conversations. Given a summary of the "
    "episode that ends, a summary of the one that begins and the turns on both sides of the "
    "change, describe the change itself in one to three sentences: what subject or activity "
    "was wrapping up, what took its place, who moved the conversation on and why if it is "
    "visible, and any names, places, dates or objects that mark the moment. Do not retell "
    "either episode. Reply with JSON only."
)


class BoundaryOutput(BaseModel):
    description: str = Field(min_length=1, max_length=1200)


STEP = LLMStep(TASK, BoundaryOutput)


def messages(ended: str, began: str, cut_turns: Sequence[str]) -> list[dict[str, str]]:
    user = (f"Episode that ends: {ended or '(start of the conversation)'}\n"
            f"Episode that begins: {began}\n\nTurns around the change:\n" + "\n".join(cut_turns))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
