"""Task ``episode_update`` (EMA): which earlier memories a new memory makes out of date."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "episode_update"

SYSTEM = (
    "You keep a person's memories current. You get one new memory and a numbered list of "
    "earlier memories of the same person. An earlier memory is replaced when the new one "
    "changes the fact it records: a plan called off or moved, a different job, home, "
    "favourite or number of something. Memories that only talk about the same subject are "
    "not replaced. Reply with JSON holding one field, replaced: the numbers of the replaced "
    "earlier memories (an empty list when none is)."
)


class EpisodeUpdateOutput(BaseModel):
    replaced: list[int] = Field(default_factory=list, max_length=20)


STEP = LLMStep(TASK, EpisodeUpdateOutput)


def messages(new: str, earlier: list[str]) -> list[dict[str, str]]:
    listed = "\n".join(f"{n}. {text}" for n, text in enumerate(earlier, start=1))
    user = f"New memory:\n{new}\n\nEarlier memories:\n{listed}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
