"""Task ``edu_extraction``: rewrite one session as short, self-contained event statements."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "edu_extraction"

SYSTEM = (
    "You turn a conversation session into memory entries. Write every event, fact, plan, "
    "opinion or preference that was said as one short statement that makes sense on its own, "
    "months later, to someone who never saw the conversation:\n"
    "- use the speakers' names instead of I, you, we;\n"
    "- write full names of things instead of 'it', 'that place', abbreviations;\n"
    "- turn relative times ('yesterday', 'last week', 'next month') into dates counted from "
    "the session date, and keep the relative phrase too;\n"
    "- one statement may combine several turns about the same event; list the numbers of "
    "the turns it comes from;\n"
    "- leave out greetings and small talk that carry no information;\n"
    "- when an assistant turn is a long structured answer (a list of suggestions, steps, or "
    "options), do not split it: output one entry with kind 'chunk' whose text is a two or "
    "three sentence summary naming the request it answers, what it covers, and the main "
    "names in it."
)

EXAMPLE_SESSION = (
    "Session date: 14 February 2024\nSpeakers: Priya, Tom\n"
    "[0] Priya: I finally got my driving licence yesterday!\n"
    "[1] Tom: Congrats! First car trip?\n"
    "[2] Priya: My mum and I will drive to Brighton on Saturday."
)
EXAMPLE_ANSWER = (
    '{"edus": ['
    '{"text": "Priya got her driving licence on 13 February 2024 (yesterday).", '
    '"source_turns": [0], "kind": "edu"}, '
    '{"text": "Priya plans to drive to Brighton with her mother on Saturday 17 February 2024.", '
    '"source_turns": [1, 2], "kind": "edu"}]}'
)


class ExtractedEDU(BaseModel):
    text: str = Field(min_length=3, description="the self-contained statement")
    source_turns: list[int] = Field(min_length=1, description="numbers of its source turns")
    kind: Literal["edu", "chunk"] = "edu"


class EDUExtraction(BaseModel):
    edus: list[ExtractedEDU]


STEP = LLMStep(TASK, EDUExtraction)


def render_session(started_at: datetime | None, speakers: Sequence[str],
                   turns: Sequence[tuple[str, str]]) -> str:
    day = f"{started_at.day} {started_at:%B %Y}" if started_at else "unknown"
    lines = [f"Session date: {day}", f"Speakers: {', '.join(speakers)}"]
    lines += [f"[{i}] {speaker}: {text}" for i, (speaker, text) in enumerate(turns)]
    return "\n".join(lines)


def messages(session_text: str) -> list[dict[str, str]]:
    return [{"role": "system", "content": SYSTEM},
            {"role": "user", "content": EXAMPLE_SESSION},
            {"role": "assistant", "content": EXAMPLE_ANSWER},
            {"role": "user", "content": session_text}]
