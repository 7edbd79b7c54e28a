"""Segmentation methods that `graphmem eval segmentation` can run, by name.

A method maps a dialogue (its utterances) to predicted boundaries. Names may carry options:
``minilm-adjacent:q=0.2,context=2``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import UnknownStrategyError
from graphmem.providers.embedder import Embedder

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


def get_segmenter(spec: str, embedder: Embedder) -> Segmenter:
    name, options = parse_method(spec)
    if name == "minilm-adjacent":
        return AdjacentSimilarity(embedder, q=options.get("q", 0.35),
                                  context=int(options.get("context", 1)))
    raise UnknownStrategyError(f"unknown segmentation method {name!r}; choose minilm-adjacent")


METHODS = ("minilm-adjacent",)


def run_segmentation_eval(data: Path, methods: Sequence[str],
                          embedder: Embedder) -> dict[str, Any]:
    from tqdm import tqdm

    from graphmem.eval.datasets import segmentation_dialogues
    from graphmem.eval.segmentation import evaluate

    dialogues = segmentation_dialogues(data)
    report: dict[str, Any] = {"data": str(data), "methods": {}}
    for spec in methods:
        segment = get_segmenter(spec, embedder)
        pairs = [(d.boundaries, segment(d.utterances), len(d.utterances))
                 for d in tqdm(dialogues, desc=spec, unit="dialogue")]
        scores = evaluate(pairs)
        report["methods"][spec] = {"pk": round(scores.pk, 4), "wd": round(scores.wd, 4),
                                   "f1": round(scores.f1, 4), "score": round(scores.score, 4),
                                   "n_dialogues": scores.n_dialogues}
    return report
