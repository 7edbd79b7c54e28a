"""The limits REST's schema declares are the ones the server enforces: a request at each one
is served, and one past it is refused with a 400 naming the field (graphmem's own check, not a
schema validator's); real Neo4j, the app in process."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from graphmem.client import Memory
from graphmem.serve.access import Spaces
from graphmem.serve.rest import build_app

pytestmark = pytest.mark.neo4j
TOKEN = "limits-token-0123456789"


def schema_of(spec: dict[str, Any], model: str, field: str) -> dict[str, Any]:
    found: dict[str, Any] = spec["components"]["schemas"][model]["properties"][field]
    return found


def test_declared_limits_are_the_enforced_ones(memory: Memory, space: str) -> None:
    app = build_app(memory, {TOKEN: Spaces.of([space])}, 10_000_000)
    client = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})
    spec = client.get("/openapi.json").json()
    add = f"/v1/spaces/{space}/conversations/chat/messages"

    def refused(response: Any, field: str) -> None:
        assert response.status_code == 400, response.text
        assert field in response.json()["error"]["field"], response.text

    longest = schema_of(spec, "MessageIn", "speaker")["maxLength"]
    assert schema_of(spec, "MessageIn", "speaker")["minLength"] == 1
    ok = client.post(add, json={"messages": [{"speaker": "s" * longest, "text": "hi"}]})
    assert ok.status_code == 200, ok.text
    refused(client.post(add, json={"messages": [{"speaker": "s" * (longest + 1),
                                                 "text": "hi"}]}), "speaker")
    key = schema_of(spec, "MessageIn", "id")["maxLength"]
    assert client.post(add, json={"messages": [{"speaker": "a", "text": "x",
                                                "id": "i" * key}]}).status_code == 200
    refused(client.post(add, json={"messages": [{"speaker": "a", "text": "x",
                                                 "id": "i" * (key + 1)}]}), "id")
    assert schema_of(spec, "AddIn", "messages")["minItems"] == 1
    refused(client.post(add, json={"messages": []}), "messages")

    search = f"/v1/spaces/{space}/search"
    assert schema_of(spec, "QuestionIn", "budget")["minimum"] == 1
    assert client.post(search, json={"question": "hi", "budget": 1}).status_code == 200
    refused(client.post(search, json={"question": "hi", "budget": 0}), "budget")
    assert schema_of(spec, "QuestionIn", "question")["minLength"] == 1
    refused(client.post(search, json={"question": ""}), "question")

    page = f"/v1/spaces/{space}/conversations/chat/messages"
    [limit] = [p["schema"] for p in spec["paths"][
        "/v1/spaces/{space}/conversations/{conversation}/messages"]["get"]["parameters"]
        if p["name"] == "limit"]
    for edge in (limit["minimum"], limit["maximum"]):
        assert client.get(page, params={"limit": edge}).status_code == 200
    for past in (limit["minimum"] - 1, limit["maximum"] + 1):
        refused(client.get(page, params={"limit": past}), "limit")


def test_the_schema_states_this_servers_text_limit(memory: Memory, space: str) -> None:
    """GRAPHMEM_MAX_TURN_CHARS is a setting: the schema a server gives states its own value,
    and a text at it is stored while one past it is refused, naming the field."""
    small = Memory(settings=memory.settings.model_copy(update={"max_turn_chars": 40}),
                   store=memory.store, embedder=memory.embedder)
    app = build_app(small, {TOKEN: Spaces.of([space])}, 10_000_000)
    client = TestClient(app, headers={"Authorization": f"Bearer {TOKEN}"})
    spec = client.get("/openapi.json").json()
    for model, field in (("MessageIn", "text"), ("MessageIn", "content"),
                         ("SearchIn", "question"), ("CorrectIn", "text")):
        assert schema_of(spec, model, field)["maxLength"] == 40, (model, field)
    add = f"/v1/spaces/{space}/conversations/chat/messages"
    assert client.post(add, json={"messages": [{"speaker": "a", "text": "x" * 40}]}
                       ).status_code == 200
    past = client.post(add, json={"messages": [{"speaker": "a", "text": "x" * 41}]})
    assert past.status_code == 400 and past.json()["error"]["field"] == "messages[0].text"
    asked = client.post(f"/v1/spaces/{space}/search", json={"question": "q" * 41})
    assert asked.status_code == 400 and asked.json()["error"]["field"] == "question"
