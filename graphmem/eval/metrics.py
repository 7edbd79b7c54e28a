"""Evidence recall and answer recall within a budget, and latency percentiles. Pure functions."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from graphmem.models import Hit
from graphmem.retrieve.packing import pack

MAX_SOURCES_FOR_CREDIT = 3
QUOTE_WORDS = 4  # a shorter evidence text ("OK .") is covered through its source only
# Lucene's English stop words: no answer is found by them
STOP_WORDS = frozenset((
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
    "no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
    "they", "this", "to", "was", "will", "with"))
WORD = re.compile(r"\w+")


def covered_turns(
    included: Sequence[Hit], context: str, evidence_texts: Mapping[str, str]
) -> set[str]:
    """Evidence ids the context covers.

    A turn is covered when its text appears verbatim in the context, or when an included unit
    names it as a source while naming at most three sources in all (a summary of a whole
    episode earns nothing unless it carries the turns themselves). Only a text of at least
    ``QUOTE_WORDS`` words counts verbatim: one "OK ." in the context must not cover every
    "OK ." of a meeting.
    """
    covered = {sid for sid, text in evidence_texts.items()
               if text and len(WORD.findall(text)) >= QUOTE_WORDS and text in context}
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


def answer_words(answer: str, question: str) -> set[str]:
    """The gold answer's words a context should hold: lower case, neither stop words nor
    words of the question (a name the question gives away proves nothing)."""
    asked = set(WORD.findall(question.lower()))
    return {w for w in WORD.findall(answer.lower()) if w not in STOP_WORDS and w not in asked}


def answer_recall(context: str, words: set[str]) -> float:
    """Share of ``words`` (see :func:`answer_words`) that appear in the context as words."""
    if not words:
        raise ValueError("an answer without words to find has no answer recall")
    return len(words & set(WORD.findall(context.lower()))) / len(words)


def percentile(values: Iterable[float], q: float) -> float:
    """Linear-interpolated percentile, ``q`` in [0, 100]."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)
