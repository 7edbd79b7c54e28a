"""Task ``turn_topic`` (ES-Mem Stage 1): a short topic and keywords for one turn, carried
forward from the previous turn's so that the description of a topic evolves smoothly."""

from __future__ import annotations

from pydantic import BaseModel, Field

from graphmem.providers.llm_step import LLMStep

TASK = "turn_topic"

SYSTEM = (
    "You label the subject of one message in a chat. You see the message before it with the "
    "label it received, then the message to label. Give the topic in a few words (what the "
    "message is about, not who says it) and up to eight keywords: mostly nouns and noun "
    "phrases, a verb now and then, no pronouns, names of speakers, greetings or filler, no "
    "repeats, most important first. When the message only reacts to the one before (thanks, "
    "agreement, a short answer), keep that message's topic. Reply with JSON only."
)


class TopicOutput(BaseModel):
    topic: str = Field(max_length=120)
    keywords: list[str] = Field(default_factory=list, max_length=12)


STEP = LLMStep(TASK, TopicOutput)


def messages(previous_text: str, previous_label: str, text: str) -> list[dict[str, str]]:
    user = (f"Previous message: {previous_text or '(none: this opens the conversation)'}\n"
            f"Its label: {previous_label or '(none)'}\n\nMessage to label: {text}")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
