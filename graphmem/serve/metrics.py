"""Prometheus metrics of the REST server, at ``GET /metrics``: open by default (Prometheus
scrapes without credentials; the labels carry routes, methods, statuses and strategies, never
a space or a token), behind its own bearer token when ``GRAPHMEM_METRICS_TOKEN`` is set. Every
label takes values from a fixed set (the app's routes, the HTTP methods, the statuses, the
registered strategies), whatever clients send, so no client can grow the series without bound:

- ``graphmem_requests_total`` and ``graphmem_request_seconds`` by route, method and status;
- ``graphmem_searches_total`` by strategy, ``graphmem_messages_added_total``;
- ``graphmem_derivation_backlog``: conversations whose derived layers this server's live
  worker has yet to bring up to date.
"""

from __future__ import annotations

import hmac
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

# the methods counted by name; anything else a client invents counts as "other"
METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})


def method_label(method: str) -> str:
    return method if method in METHODS else "other"


class Metrics:
    """One server's registry and its instruments."""

    def __init__(self, memory: Memory) -> None:
        self.token = memory.settings.metrics_token
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
            method = method_label(request.method)
            self.requests.labels(route, method, str(response.status_code)).inc()
            self.seconds.labels(route, method).observe(time.perf_counter() - began)
            return response

        @app.get("/metrics", include_in_schema=False)
        def metrics(request: Request) -> Response:
            if self.token is not None and not hmac.compare_digest(
                    request.headers.get("authorization", "").encode(),
                    f"Bearer {self.token}".encode()):
                return Response("metrics need GRAPHMEM_METRICS_TOKEN as a bearer token\n",
                                status_code=401, headers={"WWW-Authenticate": "Bearer"})
            return Response(generate_latest(self.registry), media_type=CONTENT_TYPE_LATEST)

    def searched(self, strategy: str) -> None:
        self.searches.labels(strategy).inc()

    def added(self, report: Any) -> None:
        self.messages.inc(len(report.added))
