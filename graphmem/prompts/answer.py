"""Task ``answer``: reply to a question from retrieved memory only."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "answer"

SYSTEM = (
    "You are the memory of a conversational assistant. Below are excerpts from earlier "
    "conversations, each with the day it happened and who spoke. Answer the question using "
    "only these excerpts. Give the shortest answer that is complete: a name, a date, a short "
    "phrase. Turn relative times ('last week', 'yesterday') into dates by counting from the "
    "day of the excerpt that mentions them. If the excerpts do not contain the answer, say "
    "that you do not know."
)


class AnswerOutput(BaseModel):
    answer: str = Field(description="the short answer")


STEP = LLMStep(TASK, AnswerOutput)


def messages(question: str, context: str, today: str | None = None) -> list[dict[str, str]]:
    when = f"Today is {today}.\n" if today else ""
    user = f"Memory excerpts:\n{context or '(none)'}\n\n{when}Question: {question}"
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
