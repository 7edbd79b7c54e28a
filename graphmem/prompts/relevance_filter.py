"""Task ``relevance_filter``: keep the candidate memories that may help answer a question.

The filter leans towards recall: a later step ranks, so a doubtful candidate is kept."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from graphmem.prompts import numbered
from graphmem.providers.llm_step import LLMStep

TASK = "relevance_filter"

SYSTEM = (
    "You help a memory system answer a question. You get the question and numbered candidate "
    "items from earlier conversations. Return the numbers of every item that could help "
    "answer it, directly or as a piece of a longer chain of reasoning (who, what, when, "
    "where). When unsure, keep the item: dropping a useful item costs more than keeping a "
    "useless one. Drop only items that are clearly about something else."
)


class FilterOutput(BaseModel):
    keep: list[int]


STEP = LLMStep(TASK, FilterOutput)


def messages(question: str, items: Sequence[str]) -> list[dict[str, str]]:
    return numbered(SYSTEM, question, "Candidates", items)
