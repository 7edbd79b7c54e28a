"""The REST server (``graphmem serve``, FastAPI; the ``server`` extra): the operations of the MCP
tools as HTTP routes under ``/v1``, OpenAPI docs at ``/docs``.

Every route but ``/v1/health`` needs ``Authorization: Bearer <token>``; each token maps to the
spaces it may use (``GRAPHMEM_REST_TOKENS``, a JSON object such as ``{"s3cret": ["alice"]}``).
Errors are JSON, ``{"error": {"type", "message", "field"}}``, with the message the command line
prints for the same mistake.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from typing import Annotated, Any

from fastapi import Depends, FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import BaseModel
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response

from graphmem import __version__
from graphmem.client import Memory
from graphmem.errors import (
    ConfigurationError,
    DatabaseUnavailable,
    GraphmemError,
    InputError,
    MissingLayerError,
    UnknownStrategyError,
)
from graphmem.models import MessagePage, SpaceChange, StoredConversation, StoredUnit
from graphmem.serve.access import AccessError, Spaces, caller_id, spaces_of
from graphmem.serve.metrics import Metrics
from graphmem.serve.schemas import (
    AddIn,
    AddOut,
    AnswerOut,
    CorrectIn,
    CorrectOut,
    ForgetIn,
    ForgetOut,
    QuestionIn,
    SearchOut,
    SpaceOut,
)
from graphmem.store import acting

# graphmem's errors as HTTP statuses (the first class that matches)
STATUS: tuple[tuple[type[GraphmemError], int, str], ...] = (
    (AccessError, 403, "forbidden"),
    (InputError, 400, "input"),
    (UnknownStrategyError, 400, "input"),
    (MissingLayerError, 409, "missing_layer"),
    (DatabaseUnavailable, 503, "unavailable"),
    (ConfigurationError, 501, "configuration"),
    (GraphmemError, 400, "error"),
)


class Deleted(BaseModel):
    deleted: bool


class Refreshed(BaseModel):
    refreshed: dict[str, list[str]]


class _Unauthorised(Exception):
    """No bearer token, or one the server does not know."""


_bearer = HTTPBearer(auto_error=False)


def caller(request: Request, credentials: Annotated[HTTPAuthorizationCredentials | None,
                                                    Depends(_bearer)]) -> Spaces:
    """The spaces of the request's bearer token (every token is compared, in constant time)."""
    given = (credentials.credentials if credentials else "").encode()
    found = spaces_of(request.app.state.tokens, given)
    if found is None:
        raise _Unauthorised()
    return found


Caller = Annotated[Spaces, Depends(caller)]


def error(status: int, kind: str, message: str, field: str | None = None,
          headers: Mapping[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": {"type": kind, "message": message, "field": field}},
                        status_code=status, headers=headers)


def named(conversation: str | None) -> str:
    if conversation is None:
        raise InputError("name the conversation in the body", field="conversation")
    return conversation


def build_app(memory: Memory, tokens: Mapping[str, Spaces], max_body_bytes: int) -> FastAPI:
    """The REST app over ``memory``; ``tokens`` maps each bearer token to its spaces."""
    app = FastAPI(title="graphmem", version=__version__,
                  description="Long-term memory for conversational agents, on Neo4j.")
    app.state.tokens = dict(tokens)
    metrics = Metrics(memory)
    metrics.install(app)

    @app.middleware("http")
    async def limit_size(request: Request,
                         call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > max_body_bytes:
            return error(413, "too_large", f"a request body of {declared} bytes exceeds the "
                         f"limit of {max_body_bytes} (GRAPHMEM_REST_MAX_REQUEST_MB)")
        if declared is None and request.method in {"POST", "PUT", "PATCH"}:
            body = b""
            async for chunk in request.stream():
                body += chunk
                if len(body) > max_body_bytes:
                    return error(413, "too_large", f"a request body over {max_body_bytes} "
                                 "bytes (GRAPHMEM_REST_MAX_REQUEST_MB)")
            request._body = body  # read once here; the route reads it again from memory
        return await call_next(request)

    @app.middleware("http")
    async def who_changes(request: Request,
                          call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        """Changes made by the request are recorded as the REST surface's, by its token."""
        given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        with acting("rest", caller_id(given) if given else None):
            return await call_next(request)

    @app.exception_handler(_Unauthorised)
    async def unauthorised(request: Request, exc: _Unauthorised) -> JSONResponse:
        return error(401, "unauthorised", "a valid bearer token is required",
                     headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(GraphmemError)
    async def graphmem_error(request: Request, exc: GraphmemError) -> JSONResponse:
        status, kind = next((s, k) for cls, s, k in STATUS if isinstance(exc, cls))
        return error(status, kind, str(exc), getattr(exc, "field", None))

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """The framework's own errors (no such route, a method a route does not take) in
        graphmem's format too."""
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http")
        return error(exc.status_code, kind, str(exc.detail), headers=exc.headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return error(422, "input", f"{where}: {first.get('msg', 'invalid request')}", where)

    @app.get("/v1/health")
    def health() -> dict[str, str]:
        return {"status": "ok", "version": __version__}

    @app.get("/v1/spaces")
    def spaces(who: Caller) -> list[SpaceOut]:
        """The spaces this token may use that hold something."""
        return SpaceOut.rows(memory.spaces(), who.allowed)

    @app.delete("/v1/spaces/{space}")
    def delete_space(space: str, who: Caller) -> Deleted:
        """Forget everything stored in a space."""
        return Deleted(deleted=memory.delete_space(who.resolve(space)))

    @app.post("/v1/spaces/{space}/conversations/{conversation}/messages")
    def add_messages(space: str, conversation: str, body: AddIn, who: Caller) -> AddOut:
        """Remember messages; they are searchable when this returns."""
        report = memory.add_messages(who.resolve(space), conversation,
                                     [m.message() for m in body.messages], session=body.session)
        metrics.added(report)
        return AddOut.of(report)

    @app.post("/v1/spaces/{space}/messages")
    def add_messages_to(space: str, body: AddIn, who: Caller) -> AddOut:
        """The same, the conversation named in the body (a key holding '/' cannot be a path
        segment)."""
        return add_messages(space, named(body.conversation), body, who)

    @app.post("/v1/spaces/{space}/search")
    def search(space: str, body: QuestionIn, who: Caller) -> SearchOut:
        """The memory context for a question, within a token budget."""
        result = memory.search(body.question, space=who.resolve(space),
                               strategy=body.strategy, budget=body.budget)
        metrics.searched(result.strategy)
        return SearchOut.of(result)

    @app.post("/v1/spaces/{space}/answer")
    def answer(space: str, body: QuestionIn, who: Caller) -> AnswerOut:
        """An answer from memory by the server's LLM."""
        return AnswerOut.of(memory.answer(body.question, space=who.resolve(space),
                                          strategy=body.strategy, budget=body.budget))

    @app.get("/v1/spaces/{space}/conversations")
    def conversations(space: str, who: Caller) -> list[StoredConversation]:
        """The conversations a space holds: sessions, messages, first and last session."""
        return memory.conversations(who.resolve(space))

    @app.get("/v1/spaces/{space}/conversations/{conversation}/messages")
    def messages(space: str, conversation: str, who: Caller, since: datetime | None = None,
                 limit: int = 100, newest_first: bool = False,
                 cursor: int | None = None) -> MessagePage:
        """One page of a conversation's messages (``next_cursor`` gives the next page)."""
        return memory.messages(who.resolve(space), conversation, since=since, limit=limit,
                               newest_first=newest_first, cursor=cursor)

    @app.get("/v1/spaces/{space}/messages")
    def messages_of(space: str, conversation: str, who: Caller, since: datetime | None = None,
                    limit: int = 100, newest_first: bool = False,
                    cursor: int | None = None) -> MessagePage:
        """The same page, the conversation given as a query parameter."""
        return messages(space, conversation, who, since, limit, newest_first, cursor)

    @app.get("/v1/spaces/{space}/units/{unit_id:path}")
    def unit(space: str, unit_id: str, who: Caller) -> StoredUnit:
        """Any stored node by its id (URL-encoded), with the turns it comes from."""
        found = memory.unit(who.resolve(space), unit_id)
        if found is None:
            raise InputError(f"space {space!r} holds no unit {unit_id!r}", field="unit_id")
        return found

    @app.post("/v1/spaces/{space}/conversations/{conversation}/forget")
    def forget(space: str, conversation: str, body: ForgetIn, who: Caller) -> ForgetOut:
        """Forget messages, sessions or (with whole_conversation) the whole conversation; an
        empty list forgets nothing."""
        return ForgetOut.of(memory.forget(who.resolve(space), conversation,
                                          sessions=body.sessions, turns=body.messages,
                                          whole_conversation=body.whole_conversation))

    @app.get("/v1/spaces/{space}/history")
    def history(space: str, who: Caller, limit: int = 100) -> list[SpaceChange]:
        """What changed in the space, newest first (kinds and counts, never content)."""
        return memory.history(who.resolve(space), limit=limit)

    @app.post("/v1/spaces/{space}/forget")
    def forget_in(space: str, body: ForgetIn, who: Caller) -> ForgetOut:
        """The same forget, the conversation named in the body."""
        return forget(space, named(body.conversation), body, who)

    @app.post("/v1/spaces/{space}/corrections")
    def correct(space: str, body: CorrectIn, who: Caller) -> CorrectOut:
        """Correct what a stored message says; its conversation's layers are derived again."""
        return CorrectOut.of(memory.correct(who.resolve(space), body.turn_id, body.text,
                                            keep_old=body.keep_old))

    @app.post("/v1/spaces/{space}/refresh")
    def refresh(space: str, who: Caller) -> Refreshed:
        """Bring the whole-conversation layers up to date with live messages now."""
        return Refreshed(refreshed=memory.refresh(who.resolve(space)))

    return app
