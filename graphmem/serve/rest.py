"""The REST server (``graphmem serve``, FastAPI; the ``server`` extra): the operations of the MCP
tools as HTTP routes under ``/v1``, OpenAPI docs at ``/docs``. This module builds the app (its
limits, its error format, who changes what); the routes are in ``routes/``, one router per
group, with the memory and the caller's spaces as dependencies (``deps.py``).

Every route but ``/v1/health`` needs ``Authorization: Bearer <token>``; each token maps to the
spaces it may use (``GRAPHMEM_REST_TOKENS``, a JSON object such as ``{"s3cret": ["alice"]}``).
Errors are JSON, ``{"error": {"type", "message", "field"}}``, with the message the command line
prints for the same mistake.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.routing import compile_path
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem import __version__
from graphmem.client import Memory
from graphmem.errors import (
    BusyError,
    ConfigurationError,
    DatabaseUnavailable,
    GraphmemError,
    InputError,
    MissingLayerError,
    MixedModelsError,
    NotFoundError,
    UnknownStrategyError,
)
from graphmem.serve.access import AccessError, Spaces, caller_id
from graphmem.serve.deps import Searches, Unauthorised, error
from graphmem.serve.metrics import Metrics
from graphmem.serve.routes import ROUTERS
from graphmem.telemetry import acting

log = logging.getLogger("graphmem.serve")

# graphmem's errors as HTTP statuses (the first class that matches)
STATUS: tuple[tuple[type[GraphmemError], int, str], ...] = (
    (AccessError, 403, "forbidden"),
    (NotFoundError, 404, "not_found"),
    (InputError, 400, "input"),
    (UnknownStrategyError, 400, "input"),
    (MissingLayerError, 409, "missing_layer"),
    (MixedModelsError, 409, "mixed_models"),
    (BusyError, 503, "busy"),
    (DatabaseUnavailable, 503, "unavailable"),
    (ConfigurationError, 501, "configuration"),
    (GraphmemError, 400, "error"),
)


def build_app(memory: Memory, tokens: Mapping[str, Spaces], max_body_bytes: int,
              searcher: Searches | None = None) -> FastAPI:
    """The REST app over ``memory``; ``tokens`` maps each bearer token to its spaces; the
    searches run on ``searcher`` (search processes of their own), else on ``memory``."""
    app = FastAPI(title="graphmem", version=__version__,
                  description="Long-term memory for conversational agents, on Neo4j.")
    app.state.tokens = dict(tokens)
    app.state.memory = memory  # what the routes depend on (graphmem.serve.deps)
    app.state.searcher = memory if searcher is None else searcher
    app.state.metrics = metrics = Metrics(memory)
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

    @app.exception_handler(Unauthorised)
    async def unauthorised(request: Request, exc: Unauthorised) -> JSONResponse:
        return error(401, "unauthorised", "a valid bearer token is required",
                     headers={"WWW-Authenticate": "Bearer"})

    @app.exception_handler(GraphmemError)
    async def graphmem_error(request: Request, exc: GraphmemError) -> JSONResponse:
        status, kind = next((s, k) for cls, s, k in STATUS if isinstance(exc, cls))
        wait = {"Retry-After": str(exc.retry_after)} if isinstance(exc, BusyError) else None
        return error(status, kind, str(exc), getattr(exc, "field", None), headers=wait)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> JSONResponse:
        """The framework's own errors (no such route, a method a route does not take) in
        graphmem's format too."""
        kind = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http")
        headers = dict(exc.headers or {})
        if exc.status_code == 405:  # every method of the path, not only its first route's
            headers["Allow"] = ", ".join(sorted(_methods_of(request)))
        return error(exc.status_code, kind, str(exc.detail), headers=headers)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        first: dict[str, Any] = exc.errors()[0] if exc.errors() else {}
        where = ".".join(str(p) for p in first.get("loc", ()))
        return error(422, "input", f"{where}: {first.get('msg', 'invalid request')}", where)

    for router in ROUTERS:
        app.include_router(router)
    generated = app.openapi

    def openapi() -> dict[str, Any]:
        """The schema, with the limits of this server's settings stated in it."""
        if app.openapi_schema is None:
            _state_limits(generated(), memory.settings.max_turn_chars)
        return app.openapi_schema  # type: ignore[return-value]

    app.openapi = openapi  # type: ignore[method-assign]
    # outside every other middleware: a failure anywhere inside is answered here
    app.add_middleware(Unexpected)
    return app


class Unexpected:
    """Anything no handler took: logged with its traceback, answered in graphmem's format,
    never with what the request carried. Caught here rather than by an exception handler,
    which Starlette answers and then raises again, so that uvicorn closes the connection and
    the client's next request on it is reset."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def sending(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, sending)
        except Exception as exc:
            if started:  # part of an answer is out: only closing the connection says so
                raise
            inner = exc.exceptions[0] if (isinstance(exc, BaseExceptionGroup)
                                          and len(exc.exceptions) == 1) else exc
            log.error("%s %s failed", scope["method"], scope["path"], exc_info=inner)
            answer = error(500, "internal", f"the server failed ({type(inner).__name__}); "
                           "nothing was acknowledged by this request: see the server's log")
            await answer(scope, receive, send)


def _methods_of(request: Request) -> set[str]:
    """The methods the server's schema gives the request's path (several routes may share a
    path, one per method; a GET also answers HEAD)."""
    app = request.app
    if not hasattr(app.state, "methods"):
        app.state.methods = [(compile_path(path)[0], {m.upper() for m in item})
                             for path, item in app.openapi()["paths"].items()]
    methods: set[str] = set()
    for pattern, taken in app.state.methods:
        if pattern.match(request.url.path):
            methods |= taken | ({"HEAD"} if "GET" in taken else set())
    return methods


# the texts GRAPHMEM_MAX_TURN_CHARS bounds (a message's text, caption and correction, and a
# question), by schema and field
_LONG_TEXTS = (("MessageIn", "text"), ("MessageIn", "content"), ("MessageIn", "image_caption"),
               ("QuestionIn", "question"), ("SearchIn", "question"), ("CorrectIn", "text"))


def _state_limits(schema: dict[str, Any], chars: int) -> None:
    parts = schema["components"]["schemas"]
    for model, field in _LONG_TEXTS:
        parts[model]["properties"][field]["maxLength"] = chars
