"""Traces and stage timings: a search and an ingest as spans read back with the OpenTelemetry
SDK's in-memory exporter, and the stages' milliseconds in every search result."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphmem.client import Memory
from graphmem.telemetry import incoming_context, outgoing_context

from helpers import SAMPLE

_EXPORTER = InMemorySpanExporter()


@pytest.fixture()
def spans() -> Iterator[InMemorySpanExporter]:
    """The process's tracer provider (set once: OpenTelemetry allows one) and its spans."""
    if not isinstance(trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def test_searches_and_ingests_are_traced_by_stage(memory: Memory, space: str,
                                                  spans: InMemorySpanExporter) -> None:
    memory.ingest(SAMPLE, space=space, layers="edus")
    ingest = {s.name: s for s in spans.get_finished_spans()}
    assert {"graphmem.ingest", "layer.turns", "layer.edus", "write"} <= set(ingest)
    root = ingest["graphmem.ingest"]
    assert root.attributes is not None and root.attributes["graphmem.space"] == space
    assert ingest["write"].parent is not None
    assert ingest["write"].parent.span_id == root.context.span_id
    spans.clear()

    result = memory.search("What did Maya adopt?", space=space, budget=200)
    found = {s.name: s for s in spans.get_finished_spans()}
    stages = {"space_state", "question", "table", "candidates", "ranking", "packing"}
    assert stages | {"graphmem.search", "source.bm25", "source.vectors"} <= set(found)
    top = found["graphmem.search"]
    assert top.attributes is not None and top.attributes["graphmem.strategy"] == "graphmem"
    assert all(found[name].context.trace_id == top.context.trace_id for name in stages)
    assert stages <= set(result.timings_ms) and "graphmem.search" not in result.timings_ms
    assert sum(result.timings_ms[s] for s in stages) <= result.latency_ms + 1
    # a strategy that reports fewer stages still gives its state read
    other = memory.search("What did Maya adopt?", space=space, strategy="turns", budget=200)
    assert set(other.timings_ms) == {"space_state"}


def test_a_trace_continues_in_another_process(spans: InMemorySpanExporter) -> None:
    """What a search process is handed: the request's trace context as text, and its spans
    become children of the request's span (here in another thread, which starts with none)."""
    tracer = trace.get_tracer("test")
    with tracer.start_as_current_span("POST /search") as request:
        carrier = outgoing_context()
    assert carrier  # a traceparent header

    def elsewhere() -> None:
        with incoming_context(carrier), tracer.start_as_current_span("graphmem.search"):
            pass
        with tracer.start_as_current_span("unrelated"):  # the context was left again
            pass

    worker = threading.Thread(target=elsewhere)
    worker.start()
    worker.join()
    found = {s.name: s for s in spans.get_finished_spans()}
    child = found["graphmem.search"]
    assert child.parent is not None and child.parent.span_id == request.get_span_context().span_id
    assert child.context.trace_id == request.get_span_context().trace_id
    assert found["unrelated"].parent is None
    assert outgoing_context() == {}  # outside any span there is no trace to continue
