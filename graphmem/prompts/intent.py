"""Task ``intent`` (ES-Mem Stage 2): how the turns after a candidate cut relate to those before
it, as the most and the least fitting of four intent labels with confidences.

Two labels signal a new event (a new topic, related or not) and two a continuation (more
detail, or a reply). p_eb averages the shift-probability implied by both labels."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from graphmem.providers.llm_step import LLMStep

TASK = "intent"

Intent = Literal["topic_introduction", "topic_shift", "detail_elaboration", "direct_response"]
SHIFT_INTENTS = frozenset({"topic_introduction", "topic_shift"})

SYSTEM = (
    "You judge where one episode of a conversation ends and the next begins. You get the "
    "turns BEFORE a possible cut and the turns AFTER it. Classify what the AFTER turns do, "
    "using these labels:\n"
    "- topic_introduction: they bring up a new subject that is still connected to what came "
    "before;\n"
    "- topic_shift: they leave the earlier subject for an unrelated one;\n"
    "- detail_elaboration: they go deeper into the same subject (follow-up questions, more "
    "facts, examples) without opening anything new;\n"
    "- direct_response: they simply answer, acknowledge or agree with what was said before.\n"
    "Return two different labels: first the one that fits best, then the one that fits "
    "worst, each with a confidence between 0 and 1 (the first higher than the second). "
    "Reply with JSON only."
)


class LabelScore(BaseModel):
    label: Intent
    confidence: float = Field(ge=0.0, le=1.0)

    @field_validator("label", mode="before")
    @classmethod
    def _normalise(cls, value: object) -> object:
        return value.strip().lower().replace(" ", "_").replace("-", "_") \
            if isinstance(value, str) else value


class IntentOutput(BaseModel):
    labels: list[LabelScore] = Field(min_length=2, max_length=2)

    @field_validator("labels")
    @classmethod
    def _two_different(cls, labels: list[LabelScore]) -> list[LabelScore]:
        if labels[0].label == labels[1].label:
            raise ValueError("the best and the worst label must differ")
        return labels

    def p_eb(self) -> float:
        """Mean over both labels of the probability of a shift that each implies."""
        def shift(item: LabelScore) -> float:
            return item.confidence if item.label in SHIFT_INTENTS else 1.0 - item.confidence
        return (shift(self.labels[0]) + shift(self.labels[1])) / 2


STEP = LLMStep(TASK, IntentOutput)


def messages(before: Sequence[str], after: Sequence[str]) -> list[dict[str, str]]:
    user = ("BEFORE the cut:\n" + "\n".join(before) + "\n\nAFTER the cut:\n" + "\n".join(after))
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]
