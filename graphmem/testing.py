"""Test doubles for code built on graphmem: an in-process scripted LLM.

``ScriptedLLM`` answers each task from its own queue of scripted replies and records every
call, so a layer's or a strategy's LLM path and its fallback can be tested without a server:

    llm = ScriptedLLM({"turn_topic": [{"topic": "pets", "keywords": ["dog"]}, "not JSON"]})
    ...                                  # the second call's reply is unusable: LLMError
    assert llm.calls_for("turn_topic")[0].messages[-1]["content"].startswith("Reply with")

A reply is a dict (validated against the task's output model), a string (parsed as the
model's JSON text would be), an exception (raised as the client would raise after its
attempts), or a callable that receives the messages and returns one of those. A task whose
queue is empty fails like an unreachable model.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from graphmem.providers.llm import (
    InvalidOutput,
    LLMError,
    Message,
    TokenUsage,
    one_by_one,
    parse_json_object,
    schema_instruction,
)

M = TypeVar("M", bound=BaseModel)
Reply = Any  # dict | str | Exception | Callable[[list[Message]], Any]


@dataclass(frozen=True)
class Call:
    task: str
    messages: list[Message]
    output: str


class ScriptedLLM:
    """Implements :class:`graphmem.providers.llm.LLM` from scripted replies, per task."""

    def __init__(self, replies: Mapping[str, Sequence[Reply]] | None = None, *,
                 model: str = "scripted") -> None:
        self._queues: dict[str, list[Reply]] = {k: list(v) for k, v in (replies or {}).items()}
        self._model = model
        self._usage: dict[str, TokenUsage] = {}
        self._lock = threading.Lock()
        self.calls: list[Call] = []

    @property
    def model(self) -> str:
        return self._model

    def script(self, task: str, *replies: Reply) -> None:
        """Queue more replies for ``task``."""
        with self._lock:
            self._queues.setdefault(task, []).extend(replies)

    def calls_for(self, task: str) -> list[Call]:
        return [call for call in self.calls if call.task == task]

    def usage(self) -> dict[str, TokenUsage]:
        with self._lock:
            return {task: TokenUsage(**asdict(u)) for task, u in self._usage.items()}

    def record_fallback(self, task: str) -> None:
        self._count(task, "fallbacks")

    def _count(self, task: str, field: str) -> None:
        with self._lock:
            usage = self._usage.setdefault(task, TokenUsage())
            setattr(usage, field, getattr(usage, field) + 1)

    def structured(self, task: str, messages: list[Message], output: type[M]) -> M:
        # the same instruction the real client appends, so prompts can be checked whole
        sent = [*messages, {"role": "system", "content": schema_instruction(output)}]
        with self._lock:
            self.calls.append(Call(task, sent, output.__name__))
            queue = self._queues.get(task, [])
            reply: Reply = queue.pop(0) if queue else LLMError(task, "no scripted reply left")
        self._count(task, "calls")
        if callable(reply) and not isinstance(reply, type):
            reply = reply(sent)
        try:
            if isinstance(reply, Exception):
                raise reply
            data = parse_json_object(reply) if isinstance(reply, str) else reply
            return output.model_validate(data)
        except LLMError:
            self._count(task, "failures")
            raise
        except (InvalidOutput, ValidationError) as exc:
            self._count(task, "failures")
            raise LLMError(task, f"{type(exc).__name__}: {exc}") from exc

    def structured_batch(self, task: str, requests: Sequence[list[Message]],
                         output: type[M]) -> list[M | LLMError]:
        return one_by_one(self, task, requests, output)

