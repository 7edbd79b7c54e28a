"""An MCP tool's parameters are its REST body's fields (``serve/tools/common.takes``): the
same names, types, bounds, defaults and descriptions, then the tool's own."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from pydantic import BaseModel

from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server
from graphmem.serve.schemas import AddIn, CorrectIn, ForgetIn, QuestionIn, SearchIn

CASES = [("search_memory", SearchIn, {"space"}), ("answer_question", QuestionIn, {"space"}),
         ("correct_message", CorrectIn, {"space"}),
         ("add_messages", AddIn, {"space", "conversation"}),
         ("forget_memory", ForgetIn, {"space", "conversation", "memory_ids"})]


@pytest.fixture(scope="module")
def tools() -> dict[str, dict[str, Any]]:
    server = build_server(None, Spaces.of(["s"]))  # type: ignore[arg-type]  # never called
    return {t.name: t.input_schema for t in asyncio.run(server.list_tools())}


@pytest.mark.parametrize(("tool", "model", "own"), CASES)
def test_a_tool_takes_its_body_models_fields(tools: dict[str, dict[str, Any]], tool: str,
                                             model: type[BaseModel], own: set[str]) -> None:
    schema = tools[tool]
    body = model.model_json_schema()
    fields = set(model.model_fields) - set(getattr(model, "routing", ()))
    assert set(schema["properties"]) == fields | own
    for name in fields:
        theirs, ours = schema["properties"][name], body["properties"][name]
        assert theirs.get("description") == ours.get("description") is not None, name
        assert theirs.get("default") == ours.get("default"), name
        assert (theirs.get("anyOf") or theirs.get("type")) == \
            (ours.get("anyOf") or ours.get("type")), name
    assert set(schema.get("required", [])) == set(body.get("required", [])) & fields


def test_a_strict_field_stays_strict_in_the_tool() -> None:
    """``budget`` is a whole number on both surfaces: 1000.0 or true is refused."""
    server = build_server(None, Spaces.of(["s"]))  # type: ignore[arg-type]  # never reached
    with pytest.raises(Exception, match="budget"):
        asyncio.run(server.call_tool("search_memory", {"question": "q", "budget": True}))
