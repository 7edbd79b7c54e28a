"""Traces and stage timings: what a search or an ingest spent its time on.

:func:`stage` times one stage of the work at hand and, when the OpenTelemetry API is
installed (the ``telemetry`` extra, or any package that brings it) and the application
configured a tracer provider, records it as a span of the ``graphmem`` tracer; without a
provider the API hands out no-op spans, so tracing is off unless configured. A search
collects its stages' times (:func:`timed`) into ``SearchResult.timings_ms``.

Spans: ``graphmem.search`` (attributes space, strategy, budget) with stages
``space_state``, ``question``, ``table``, ``candidates`` (and one span per source kind:
``source.bm25``, ``source.vectors``, ``source.neo4j``), ``ranking``, ``packing``;
``graphmem.ingest`` per conversation (space, conversation, layers) with ``layer.<name>`` for
each layer's computing and ``write`` for its transaction.

:func:`acting` says who makes the changes inside it (a surface and a caller's digest): the
history every change of a space records.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from contextvars import ContextVar
from typing import Any, NamedTuple

_TIMINGS: ContextVar[dict[str, float] | None] = ContextVar("graphmem_timings", default=None)


def _tracer() -> Any:
    try:
        from opentelemetry import trace
    except ImportError:  # the API is not installed: no spans
        return None
    return trace.get_tracer("graphmem")


@contextmanager
def stage(name: str, **attributes: Any) -> Iterator[None]:
    """One stage: a span (when tracing is configured) and, inside :func:`timed`, its time
    added to the timings under ``name``."""
    tracer = _tracer()
    span = (tracer.start_as_current_span(name, attributes=_plain(attributes))
            if tracer is not None else nullcontext())
    began = time.perf_counter()
    try:
        with span:
            yield
    finally:
        timings = _TIMINGS.get()
        if timings is not None:
            timings[name] = timings.get(name, 0.0) + (time.perf_counter() - began) * 1000


@contextmanager
def timed() -> Iterator[dict[str, float]]:
    """Collect the milliseconds of every stage run inside, by stage name."""
    timings: dict[str, float] = {}
    token = _TIMINGS.set(timings)
    try:
        yield timings
    finally:
        _TIMINGS.reset(token)


def _plain(attributes: dict[str, Any]) -> dict[str, Any]:
    """Span attributes as OpenTelemetry takes them (strings, numbers, lists of them)."""
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if isinstance(value, (str, bool, int, float)):
            out[f"graphmem.{key}"] = value
        elif isinstance(value, (list, tuple)):
            out[f"graphmem.{key}"] = [str(v) for v in value]
        elif value is not None:
            out[f"graphmem.{key}"] = str(value)
    return out


# Who changes a space: every change records its surface and caller in the space's history
# (GraphStore.change). Kept here, beside the other context a call carries, so that the
# servers mark their requests without importing the database driver.
class Actor(NamedTuple):
    """Who changes a space: the surface (python, cli, rest, mcp, background) and, for the
    servers, a digest of the caller's bearer token (never the token)."""

    surface: str
    caller: str | None = None


_ACTOR: ContextVar[Actor] = ContextVar("graphmem_actor")
_PYTHON = Actor("python")  # changes made by code that said nothing else


@contextmanager
def acting(surface: str, caller: str | None = None) -> Iterator[None]:
    """Changes made inside are recorded in the spaces' history as made through
    ``surface`` by ``caller``."""
    token = _ACTOR.set(Actor(surface, caller))
    try:
        yield
    finally:
        _ACTOR.reset(token)


def current_actor() -> Actor:
    return _ACTOR.get(_PYTHON)


def set_actor(actor: Actor) -> None:
    """Who changes spaces from now on in this context (a CLI run, a worker process)."""
    _ACTOR.set(actor)


def outgoing_context() -> dict[str, str]:
    """The current trace context as text headers, for work handed to another process (a
    search process); empty without the OpenTelemetry API."""
    try:
        from opentelemetry.propagate import inject
    except ImportError:
        return {}
    carrier: dict[str, str] = {}
    inject(carrier)
    return carrier


@contextmanager
def incoming_context(carrier: dict[str, str]) -> Iterator[None]:
    """Inside it, spans continue the trace :func:`outgoing_context` gave in another process."""
    if not carrier:
        yield
        return
    from opentelemetry import context
    from opentelemetry.propagate import extract

    token = context.attach(extract(carrier))
    try:
        yield
    finally:
        context.detach(token)
