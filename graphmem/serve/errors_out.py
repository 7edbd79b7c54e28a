"""The REST server's error answers as its OpenAPI schema declares them: one body for every
status (``{"error": {"type", "message", "field"}}``), and which statuses a route may give, so
a generated client (the TypeScript one) types its errors too."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from graphmem.models import ANSWERED


class ErrorDetail(BaseModel):
    model_config = ANSWERED

    type: str = Field(description=(
        "input, not_found, unauthorised, forbidden, missing_layer, mixed_models, too_large, "
        "busy, unavailable, configuration, method_not_allowed or internal"))
    message: str = Field(description="what went wrong, as the command line says it")
    field: str | None = Field(default=None, description="the input field at fault, if one")


class ErrorOut(BaseModel):
    """Every error answer's body."""

    model_config = ANSWERED

    error: ErrorDetail


_WHEN = {
    400: "bad input (a field's value, an unknown strategy): nothing was changed",
    401: "no valid bearer token",
    403: "the token may not use that space",
    404: "no such conversation or unit in the space",
    409: "the space lacks a layer the strategy needs, or holds another embedder's vectors",
    413: "the request body is over GRAPHMEM_REST_MAX_REQUEST_MB",
    422: "the request does not fit the operation's schema: nothing was changed",
    500: "the server failed; nothing was acknowledged by the request",
    501: "the server lacks what the operation needs (an LLM for answers)",
    503: "Neo4j is unreachable or busy (Retry-After says when to try again)",
}

# what every router of the REST app declares (graphmem.serve.routes)
ERRORS: dict[int | str, dict[str, Any]] = {
    status: {"model": ErrorOut, "description": when} for status, when in _WHEN.items()}
