"""What every REST route depends on: the server's ``Memory`` and metrics (kept on the app's
state by :func:`graphmem.serve.rest.build_app`), the caller's spaces from its bearer token,
and graphmem's error format."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Protocol

from fastapi import Depends, Path, Request
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.models import SearchResult
from graphmem.serve.access import Spaces, spaces_of
from graphmem.serve.metrics import Metrics
from graphmem.serve.schemas import KEY


class Unauthorised(Exception):
    """No bearer token, or one the server does not know."""


_bearer = HTTPBearer(auto_error=False)


def caller(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None,
                                                    Depends(_bearer)]) -> Spaces:
    """The spaces of the request's bearer token (every token is compared, in constant time)."""
    given = (credentials.credentials if credentials else "").encode()
    found = spaces_of(request.app.state.tokens, given)
    if found is None:
        raise Unauthorised()
    return found


def memory_of(request: Request) -> Memory:
    return request.app.state.memory  # type: ignore[no-any-return]


class Searches(Protocol):
    """What runs a search: the server's ``Memory``, or its search processes
    (:mod:`graphmem.serve.search_processes`); both take ``Memory.search``'s arguments."""

    def search(self, question: str, *, space: str, **arguments: Any) -> SearchResult: ...


def searcher_of(request: Request) -> Searches:
    return request.app.state.searcher  # type: ignore[no-any-return]


def metrics_of(request: Request) -> Metrics:
    return request.app.state.metrics  # type: ignore[no-any-return]


Caller = Annotated[Spaces, Depends(caller)]
# a conversation named in the path, its rules as the schema states them (graphmem checks them)
Conversation = Annotated[str, Path(json_schema_extra=KEY)]
Memories = Annotated[Memory, Depends(memory_of)]
Searcher = Annotated[Searches, Depends(searcher_of)]
Counted = Annotated[Metrics, Depends(metrics_of)]


def error(status: int, kind: str, message: str, field: str | None = None,
          headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message, "field": field}},
                        status_code=status, headers=headers)


def named(conversation: str | None) -> str:
    """The conversation a route without it in its path names in the body."""
    if conversation is None:
        raise InputError("name the conversation in the body", field="conversation")
    return conversation
