"""The hooks' REST client (``integrations/hook_rest.py``, and the local server's socket client
built on it) is written by hand: every request it makes must be one the REST app declares.
Each request of a capture, a prompt and a session start is recorded and held against the
OpenAPI document, field by field: the route and method exist, every body field and query
parameter is one the route takes, and every field the route requires is sent."""

from __future__ import annotations

import re
from typing import Any

from fastapi.testclient import TestClient

from graphmem import Memory
from graphmem.integrations.hook_rest import RestBackend
from graphmem.serve.access import Spaces
from graphmem.serve.rest import build_app


def route_of(spec: dict[str, Any], method: str, path: str) -> dict[str, Any]:
    for template, methods in spec["paths"].items():
        pattern = "^" + re.sub(r"\\\{[^}]+\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(pattern, path) and method.lower() in methods:
            return methods[method.lower()]  # type: ignore[no-any-return]
    raise AssertionError(f"{method} {path}: no such route in the OpenAPI document")


def body_schema(spec: dict[str, Any], route: dict[str, Any]) -> dict[str, Any]:
    ref = route["requestBody"]["content"]["application/json"]["schema"]["$ref"]
    return spec["components"]["schemas"][ref.rsplit("/", 1)[-1]]  # type: ignore[no-any-return]


def test_every_request_of_the_hooks_client_is_one_the_rest_app_declares(
        memory: Memory, space: str) -> None:
    app = build_app(memory, {"t": Spaces.of([space])}, 1_000_000)
    spec = app.openapi()
    backend = RestBackend("http://testserver", space, token="t")
    backend.client = TestClient(app, headers={"Authorization": "Bearer t"})
    sent: list[tuple[str, str, Any, Any]] = []
    send = backend._send

    def recorded(method: str, path: str, json: Any = None,
                 params: dict[str, Any] | None = None) -> tuple[int, str]:
        sent.append((method, path, json, params))
        return send(method, path, json, params)

    backend._send = recorded  # type: ignore[method-assign]
    assert backend.add("chat", [{"speaker": "Ana", "text": "I moved to Porto."}]) == 1
    memory.flush()
    assert "Porto" in backend.context("Where did Ana move?", 500)
    assert backend.latest_messages("another chat", 5) == ["Ana: I moved to Porto."]

    problems = []
    for method, path, json, params in sent:
        route = route_of(spec, method, path)
        declared = {p["name"]: p for p in route.get("parameters", []) if p["in"] == "query"}
        problems += [f"{method} {path}: query {k!r} undeclared" for k in params or {}
                     if k not in declared]
        if json is not None:
            schema = body_schema(spec, route)
            problems += [f"{method} {path}: body field {k!r} undeclared" for k in json
                         if k not in schema["properties"]]
            problems += [f"{method} {path}: required {k!r} not sent"
                         for k in schema.get("required", []) if k not in json]
    assert {(m, p.rsplit("/", 1)[-1]) for m, p, _, _ in sent} >= {
        ("POST", "messages"), ("POST", "search"), ("GET", "messages"),
        ("GET", "conversations")}
    assert problems == []
