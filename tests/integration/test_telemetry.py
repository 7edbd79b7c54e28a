"""Traces and stage timings: a search and an ingest as spans read back with the OpenTelemetry
SDK's in-memory exporter, and the stages' milliseconds in every search result."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from graphmem.client import Memory

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
