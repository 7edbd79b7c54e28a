"""Task ``judge``: decide whether a predicted answer means the same as the gold answer."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "judge"

SYSTEM = (
    "You grade answers to questions about past conversations. You get the question, the gold "
    "answer and a candidate answer. Mark the candidate CORRECT when it states the same fact "
    "as the gold answer, even if it is worded differently, longer, or gives a date in another "
    "format or at a different precision that still contains the gold date (for example "
    "'May 7th' for '7 May 2023'). Mark it WRONG when it contradicts the gold answer, misses "
    "its point, or says it does not know."
)


class JudgeOutput(BaseModel):
    reasoning: str = Field(default="", description="one short sentence")
    verdict: Literal["CORRECT", "WRONG"]


STEP = LLMStep(TASK, JudgeOutput)


def messages(question: str, gold: str, candidate: str) -> list[dict[str, str]]:
    user = f"Question: {question}\nGold answer: {gold}\nCandidate answer: {candidate}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
