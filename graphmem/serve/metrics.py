"""Prometheus metrics of the REST server, at ``GET /metrics`` (no token: the labels carry
routes, methods, statuses and strategies, never a space or a token):

- ``graphmem_requests_total`` and ``graphmem_request_seconds`` by route, method and status;
- ``graphmem_searches_total`` by strategy, ``graphmem_messages_added_total``;
- ``graphmem_derivation_backlog``: conversations whose derived layers this server's live
  worker has yet to bring up to date.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from fastapi import FastAPI, Request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from starlette.responses import Response

from graphmem.client import Memory


class Metrics:
    """One server's registry and its instruments."""

    def __init__(self, memory: Memory) -> None:
        self.registry = CollectorRegistry()
        self.requests = Counter("graphmem_requests", "REST requests by route and status",
                                ["route", "method", "status"], registry=self.registry)
        self.seconds = Histogram("graphmem_request_seconds", "REST request latency",
                                 ["route", "method"], registry=self.registry)
        self.searches = Counter("graphmem_searches", "searches by strategy", ["strategy"],
                                registry=self.registry)
        self.messages = Counter("graphmem_messages_added", "live messages stored",
                                registry=self.registry)
        backlog = Gauge("graphmem_derivation_backlog", "conversations whose derived layers "
                        "wait for this server's live worker", registry=self.registry)
        backlog.set_function(memory.live.backlog)

    def install(self, app: FastAPI) -> None:
        """Count every request and serve ``/metrics``."""

        @app.middleware("http")
        async def count(request: Request,
                        call_next: Callable[[Request], Awaitable[Response]]) -> Response:
            began = time.perf_counter()
            response = await call_next(request)
            route = getattr(request.scope.get("route"), "path", "unmatched")
            self.requests.labels(route, request.method, str(response.status_code)).inc()
            self.seconds.labels(route, request.method).observe(time.perf_counter() - began)
            return response

        @app.get("/metrics", include_in_schema=False)
        def metrics() -> Response:
            return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    def searched(self, strategy: str) -> None:
        self.searches.labels(strategy).inc()

    def added(self, report: Any) -> None:
        self.messages.inc(len(report.added))
