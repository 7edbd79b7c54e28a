"""One way to run an LLM step: ask, validate, fall back to the LLM-free path, count.

Every LLM task of graphmem has an LLM-free path. A step asks the model (the client validates
the reply against the task's output model and retries within its limits), lets the caller
check what the reply means (``accept``: a ``ValueError`` there rejects it too), and when
anything fails runs the caller's ``fallback``, counts one fallback for the task and notes why.
Without a model the fallback runs at once and nothing is counted.

    TOPIC = LLMStep("turn_topic", TopicOutput)          # in the task's prompt module
    topic = TOPIC.run(llm, lambda: messages(...), accept=to_topic, fallback=rule_topic,
                      notes=report.fallbacks, where=f"turn {i}")
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Generic, TypeVar

from pydantic import BaseModel

from graphmem.providers.llm import LLM, LLMError, Message

M = TypeVar("M", bound=BaseModel)
T = TypeVar("T")
Messages = list[Message]


@dataclass(frozen=True)
class LLMStep(Generic[M]):
    """One LLM task: its name (for counts and caching) and the model its reply must fit."""

    task: str
    output: type[M]

    def run(self, llm: LLM | None, messages: Messages | Callable[[], Messages], *,
            accept: Callable[[M], T], fallback: Callable[[], T],
            notes: list[str] | None = None, where: str = "") -> T:
        """The accepted reply, or the fallback's result when there is no model or its reply
        is unusable (then counted, and the reason appended to ``notes``)."""
        if llm is None:
            return fallback()
        try:
            reply = llm.structured(self.task, messages() if callable(messages) else messages,
                                   self.output)
            return accept(reply)
        except (LLMError, ValueError) as exc:
            self._fell_back(llm, exc, notes, where)
            return fallback()

    def run_batch(self, llm: LLM, requests: Sequence[Messages], *, accept: Callable[[M], T],
                  notes: list[str] | None = None,
                  where: Callable[[int], str] | None = None) -> list[T | None]:
        """Several requests of this task; an unusable item comes back as None (counted and
        noted) for the caller to fill with its LLM-free result."""
        out: list[T | None] = []
        for i, reply in enumerate(llm.structured_batch(self.task, requests, self.output)):
            try:
                if isinstance(reply, LLMError):
                    raise reply
                out.append(accept(reply))
            except (LLMError, ValueError) as exc:
                self._fell_back(llm, exc, notes, where(i) if where else f"item {i}")
                out.append(None)
        return out

    def _fell_back(self, llm: LLM, exc: Exception, notes: list[str] | None, where: str) -> None:
        llm.record_fallback(self.task)
        if notes is not None:
            notes.append(f"{where}: {exc}" if where else str(exc))


def keep(reply: M) -> M:
    """``accept`` for steps whose reply is used as it is."""
    return reply
