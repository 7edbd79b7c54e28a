"""Task ``evidence_rerank``: read the best candidates of a search once and mark the ones that
belong to the answer (strategy ``graphmem-llm``).

A question that gathers (a list, a habit, a change over weeks) has its pieces in several
turns that do not repeat its words; a reader that sees them side by side can tell which of
them answer it. The marked ones go first; the order of the rest is the ranker's."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel

from graphmem.prompts import numbered
from graphmem.providers.llm_step import LLMStep

TASK = "evidence_rerank"

SYSTEM = (
    "You help a memory system answer a question from earlier conversations. You get the "
    "question and numbered messages, each with its day and speaker. Return the numbers of "
    "every message that holds part of the answer. When the question asks for several things "
    "(a list, what someone usually does, how something changed), mark every message that "
    "gives one of them, even when it does not repeat the question's words. Leave out "
    "messages that only share a topic with the question."
)


class RerankOutput(BaseModel):
    evidence: list[int]


STEP = LLMStep(TASK, RerankOutput)


def messages(question: str, items: Sequence[str]) -> list[dict[str, str]]:
    return numbered(SYSTEM, question, "Messages", items)
