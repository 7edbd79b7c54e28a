"""Segmentation methods that `graphmem eval segmentation` can run, by name.

A method maps a dialogue (its utterances) to predicted boundaries. Names may carry options:
``minilm-adjacent:q=0.2,context=2``, ``esmem:q=0.5,tau=0.7``.

- ``minilm-adjacent``: the baseline, similarity of adjacent raw turns below a quantile;
- ``esmem-stage1``: ES-Mem's mutual information alone (every candidate is a cut);
- ``esmem``: both stages, Stage 2 by the calibrated LLM-free boundary model;
- ``esmem-llm``: both stages with the configured LLM (topics and intent labels).

The ``esmem`` methods compare the turns by their vectors as the turns layer embeds them
(``A: ...`` / ``B: ...``, :func:`dialogue_lines`); ``topics=1`` embeds a topic line per turn
for Stage 1 instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError, UnknownStrategyError
from graphmem.ingest.layers.events import SegmentationConfig, segment
from graphmem.providers.embedder import Embedder
from graphmem.providers.llm import LLM
from graphmem.text import turn_line

Segmenter = Callable[[Sequence[str]], list[int]]


@dataclass(frozen=True)
class AdjacentSimilarity:
    """Cut before utterance ``i`` where the similarity of the ``context`` utterances before it
    and the ``context`` utterances from it is in the lowest ``q`` quantile of the dialogue."""

    embedder: Embedder
    q: float = 0.35
    context: int = 1

    def __call__(self, utterances: Sequence[str]) -> list[int]:
        n = len(utterances)
        if n < 2:
            return []
        left = [" ".join(utterances[max(0, i - self.context): i]) for i in range(1, n)]
        right = [" ".join(utterances[i: i + self.context]) for i in range(1, n)]
        vectors = self.embedder.embed([*left, *right])
        sims = np.sum(vectors[: n - 1] * vectors[n - 1:], axis=1)
        threshold = float(np.quantile(sims, self.q))
        return [i + 1 for i, s in enumerate(sims) if s <= threshold]


def parse_method(spec: str) -> tuple[str, dict[str, float]]:
    name, _, raw = spec.partition(":")
    options: dict[str, float] = {}
    for item in filter(None, raw.split(",")):
        key, _, value = item.partition("=")
        try:
            options[key.strip()] = float(value)
        except ValueError:
            raise UnknownStrategyError(f"bad option {item!r} in method {spec!r}") from None
    return name, options


def dialogue_lines(utterances: Sequence[str]) -> list[str]:
    """A two-person dialogue's turns as the turns layer embeds them, ``speaker: text``, the
    speakers taking turns as ``A`` and ``B`` (the segmentation sets name none)."""
    return [turn_line("AB"[i % 2], text) for i, text in enumerate(utterances)]


@dataclass(frozen=True)
class EventSegmenter:
    """ES-Mem segmentation of one dialogue (as one session)."""

    embedder: Embedder
    config: SegmentationConfig
    llm: LLM | None = None

    def __call__(self, utterances: Sequence[str]) -> list[int]:
        vectors = self.embedder.embed(dialogue_lines(utterances))
        return segment(list(utterances), self.embedder, self.config, self.llm,
                       turn_vectors=vectors).boundaries


def _esmem_config(options: dict[str, float], refine: bool) -> SegmentationConfig:
    return SegmentationConfig(q=options.get("q", 0.35), context=int(options.get("context", 2)),
                              tau=options.get("tau", 0.75), refine=refine,
                              tau_rules=options.get("tau_rules"),
                              stage_one="topics" if options.get("topics") else "turns")


def get_segmenter(spec: str, embedder: Embedder, llm: LLM | None = None) -> Segmenter:
    name, options = parse_method(spec)
    if name == "minilm-adjacent":
        return AdjacentSimilarity(embedder, q=options.get("q", 0.35),
                                  context=int(options.get("context", 1)))
    if name in {"esmem", "esmem-stage1"}:
        return EventSegmenter(embedder, _esmem_config(options, refine=name == "esmem"))
    if name == "esmem-llm":
        if llm is None:
            raise ConfigurationError("method esmem-llm needs an LLM: set GRAPHMEM_LLM_BASE_URL "
                                     "(and GRAPHMEM_LLM_MODEL)")
        return EventSegmenter(embedder, _esmem_config(options, refine=True), llm)
    raise UnknownStrategyError(
        f"unknown segmentation method {name!r}; choose from {', '.join(METHODS)}")


METHODS = ("minilm-adjacent", "esmem-stage1", "esmem", "esmem-llm")


def run_segmentation_eval(data: Path, methods: Sequence[str], embedder: Embedder,
                          llm: LLM | None = None, limit: int | None = None) -> dict[str, Any]:
    from tqdm import tqdm

    from graphmem.eval.datasets import segmentation_dialogues
    from graphmem.eval.segmentation import evaluate

    dialogues = segmentation_dialogues(data)[:limit]
    report: dict[str, Any] = {"data": str(data), "methods": {}}
    segmenters = {spec: get_segmenter(spec, embedder, llm) for spec in methods}  # fail early
    for spec, method in segmenters.items():
        pairs = [(d.boundaries, method(d.utterances), len(d.utterances))
                 for d in tqdm(dialogues, desc=spec, unit="dialogue")]
        scores = evaluate(pairs)
        report["methods"][spec] = {"pk": round(scores.pk, 4), "wd": round(scores.wd, 4),
                                   "f1": round(scores.f1, 4), "score": round(scores.score, 4),
                                   "n_dialogues": scores.n_dialogues}
    return report
