"""Evidence recall within a budget, and latency percentiles. Pure functions."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from graphmem.models import Hit
from graphmem.retrieve.packing import pack

MAX_SOURCES_FOR_CREDIT = 3


def covered_turns(
    included: Sequence[Hit], context: str, evidence_texts: Mapping[str, str]
) -> set[str]:
    """Evidence ids the context covers.

    A turn is covered when its text appears verbatim in the context, or when an included unit
    names it as a source while naming at most three sources in all (a summary of a whole
    episode earns nothing unless it carries the turns themselves).
    """
    covered = {sid for sid, text in evidence_texts.items() if text and text in context}
    for hit in included:
        if len(hit.source_ids) <= MAX_SOURCES_FOR_CREDIT:
            covered.update(sid for sid in hit.source_ids if sid in evidence_texts)
    return covered


def evidence_recall(hits: Sequence[Hit], budget: int,
                    evidence_texts: Mapping[str, str]) -> float:
    """Share of the gold evidence turns that the context packed from ``hits`` covers."""
    if not evidence_texts:
        raise ValueError("a question without evidence has no recall")
    packed = pack(hits, budget)
    chosen = set(packed.included)
    included = [hit for hit in hits if hit.id in chosen]
    return len(covered_turns(included, packed.context, evidence_texts)) / len(evidence_texts)


def percentile(values: Iterable[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
