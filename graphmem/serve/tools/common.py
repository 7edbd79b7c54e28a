"""What the MCP tool groups share."""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Callable, Mapping
from typing import Annotated, Any, TypeVar

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from graphmem.errors import GraphmemError
from graphmem.serve.access import Spaces, caller_id
from graphmem.telemetry import acting

Allowed = Callable[[], Spaces]  # the spaces the calling request may use
M = TypeVar("M", bound=BaseModel)
R = TypeVar("R")


def takes(model: type[M], *, leave: tuple[str, ...] = ()
          ) -> Callable[[Callable[..., R]], Callable[..., R]]:
    """A tool whose parameters are ``model``'s fields (name, type, bounds, default and
    description; ``leave``: the ones the tool declares itself, or not at all) followed by the
    function's own named parameters but ``body``, which receives the fields validated as one
    ``model``. The MCP server reads the signature made here, so the tool's schema and the
    REST body are one model's."""
    def make(func: Callable[..., R]) -> Callable[..., R]:
        signature = inspect.signature(func, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "body"]
        fields = [inspect.Parameter(
            name, inspect.Parameter.KEYWORD_ONLY,
            default=(inspect.Parameter.empty if field.is_required()
                     else field.get_default(call_default_factory=True)),
            annotation=Annotated[(field.annotation, *field.metadata,
                                  Field(description=field.description))])
            for name, field in model.model_fields.items() if name not in leave]
        names = {p.name for p in fields}

        @functools.wraps(func)
        def tool(**given: Any) -> R:
            body = model.model_validate({k: v for k, v in given.items() if k in names})
            return func(body=body, **{k: v for k, v in given.items() if k not in names})

        # keyword-only, so a parameter without a default may follow one with a default
        ordered = [*fields, *(p.replace(kind=p.KEYWORD_ONLY) for p in own)]
        tool.__signature__ = signature.replace(parameters=ordered)  # type: ignore[attr-defined]
        return tool
    return make


def guard(call: Callable[[], Any]) -> Any:
    """graphmem's own errors become tool errors the model can read; others propagate. What
    the call changes is recorded as the MCP surface's, by the request's token if any."""
    token = get_access_token()
    try:
        with acting("mcp", caller_id(token.token) if token is not None else None):
            return call()
    except GraphmemError as exc:
        raise ToolError(str(exc)) from exc


def tighten(server: MCPServer, annotations: Mapping[str, ToolAnnotations]) -> None:
    """Give every tool of ``server`` its ``annotations`` and check its arguments as JSON
    strictly: a value of the wrong JSON type (``"yes"`` for a boolean, ``"5"`` for a
    number) and a name the tool does not take are refused, and the schema says so
    (``additionalProperties: false``). The SDK's own leniency for clients that send a list
    or an object as its JSON text stays (it parses those before validating)."""
    for tool in server._tool_manager.list_tools():  # the SDK offers no public setter
        if tool.name not in annotations:
            raise KeyError(f"the MCP tool {tool.name!r} has no annotations")
        tool.annotations = annotations[tool.name]
        loose = tool.fn_metadata.arg_model
        strict = _strict_model(loose)
        tool.fn_metadata.arg_model = strict  # type: ignore[assignment]  # a subclass of it
        tool.parameters = strict.model_json_schema(by_alias=True)


def _strict_model(loose: type[BaseModel]) -> type[BaseModel]:
    class Strict(loose):  # type: ignore[valid-type, misc]
        model_config = ConfigDict(**{**loose.model_config, "extra": "forbid",
                                     "title": loose.__name__})

        @classmethod
        def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Any:
            # JSON values as JSON, strictly: dates still come as their ISO text
            return cls.model_validate_json(json.dumps(obj), strict=True)

    Strict.__name__ = Strict.__qualname__ = loose.__name__
    return Strict
