"""Scripted models for the agent frameworks' own loops: each answers from a list of steps
and records what it was given, so a test drives a real agent without a network or an LLM."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import PrivateAttr

Step = Callable[[list[BaseMessage]], AIMessage]


def call(name: str, args: dict[str, Any], ident: str = "call-1") -> Step:
    """A step that calls the tool ``name`` with ``args``."""
    return lambda _seen: AIMessage(content="", tool_calls=[
        {"name": name, "args": args, "id": ident, "type": "tool_call"}])


def say(text: str) -> Step:
    return lambda _seen: AIMessage(content=text)


class ScriptedChatModel(BaseChatModel):
    """A LangChain chat model that plays ``steps`` in order (tools bound are ignored)."""

    steps: list[Any]
    _seen: list[list[BaseMessage]] = PrivateAttr(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    @property
    def seen(self) -> list[list[BaseMessage]]:
        """The messages of each call, in order."""
        return self._seen

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: Any = None, **kwargs: Any) -> ChatResult:
        self._seen.append(list(messages))
        if not self.steps:
            raise AssertionError("the scripted model ran out of steps")
        message = self.steps.pop(0)(list(messages))
        return ChatResult(generations=[ChatGeneration(message=message)])
