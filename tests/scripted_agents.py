"""The OpenAI Agents SDK's model, scripted: what its adapter tests and its contract tests drive
the SDK's own Runner with."""

from __future__ import annotations

import json
from typing import Any

from agents import Model, ModelResponse, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)


class ScriptedModel(Model):
    """Plays ``steps``: a (name, args) pair calls a tool, a string replies."""

    def __init__(self, steps: list[Any], ids: str | None = None) -> None:
        self.steps = steps
        self.inputs: list[Any] = []
        self.ids = ids  # every output item's id, as Chat Completions models give them

    async def get_response(self, system_instructions: Any, input: Any, *args: Any,
                           **kwargs: Any) -> ModelResponse:
        self.inputs.append(input)
        step = self.steps.pop(0)
        if isinstance(step, tuple):
            out: Any = ResponseFunctionToolCall(type="function_call", name=step[0],
                                                arguments=json.dumps(step[1]),
                                                call_id=f"c{len(self.inputs)}")
        else:
            out = ResponseOutputMessage(
                id=self.ids or f"msg-{len(self.inputs)}-{abs(hash(step))}", type="message",
                role="assistant", status="completed",
                content=[ResponseOutputText(type="output_text", text=step, annotations=[])])
        return ModelResponse(output=[out], usage=Usage(), response_id=None)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError
