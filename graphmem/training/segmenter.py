"""Fit the LLM-free Stage 2 of ES-Mem (the boundary model) on a training split of dialogues.

Every Stage 1 candidate of every training dialogue becomes one example (features of its two
windows, label: does a gold boundary sit there). The threshold is the one, on a grid, whose
segmentations score best on the same training dialogues. Dev and test splits are never used.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
from tqdm import tqdm

from graphmem.eval.datasets import Dialogue, segmentation_dialogues
from graphmem.eval.segmentation import evaluate
from graphmem.eval.segmenters import dialogue_lines
from graphmem.ingest.layers.events.boundary_model import BoundaryModel, cut_features
from graphmem.ingest.layers.events.segmentation import DEFAULT, SegmentationConfig, segment
from graphmem.providers.embedder import Embedder
from graphmem.training.logistic import fit_logistic

Lines = Callable[[Sequence[str]], list[str]]  # a dialogue's utterances as the texts embedded
THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass
class _Candidates:
    dialogue: Dialogue
    cuts: list[int]
    features: list[list[float]]


def _examples(dialogues: Sequence[Dialogue], embedder: Embedder, config: SegmentationConfig,
              progress: bool, lines: Lines, turns: Embedder) -> list[_Candidates]:
    out = []
    stage1 = replace(config, refine=False)
    for d in tqdm(dialogues, desc="features", unit="dialogue", disable=not progress):
        texts = list(d.utterances)
        vectors = turns.embed(lines(texts))
        found = segment(texts, embedder, stage1, turn_vectors=vectors)
        mi = np.asarray(found.mutual_information)
        out.append(_Candidates(d, found.candidates, [
            cut_features(c, texts, vectors, found.topics, mi, config.context)
            for c in found.candidates]))
    return out


def calibrate(data: Path, embedder: Embedder, config: SegmentationConfig = DEFAULT,
              l2: float = 1.0, progress: bool = True,
              lines: Lines = dialogue_lines,
              turns: Embedder | None = None) -> tuple[BoundaryModel, float]:
    """The fitted model and its training Score at the chosen threshold. The turn vectors are
    ``turns``' (``embedder``'s by default) of the turns as ``lines`` writes them: by default
    as the turns layer writes a dialogue of two people (:func:`dialogue_lines`)."""
    examples = _examples(segmentation_dialogues(data), embedder, config, progress, lines,
                         turns or embedder)
    x = np.array([f for e in examples for f in e.features], dtype=np.float64)
    y = np.array([float(c in set(e.dialogue.boundaries)) for e in examples for c in e.cuts])
    if len(x) == 0 or y.min() == y.max():
        raise ValueError(f"{data}: need candidate cuts of both kinds to fit the boundary model")
    weights = fit_logistic(x, y, l2=l2)
    best = (-1.0, 0.5)
    for threshold in THRESHOLDS:
        model = BoundaryModel(tuple(float(w) for w in weights), threshold)
        pairs = [(e.dialogue.boundaries,
                  [c for c, f in zip(e.cuts, e.features, strict=True)
                   if model.probability(f) >= threshold], len(e.dialogue.utterances))
                 for e in examples]
        best = max(best, (evaluate(pairs).score, threshold))
    return BoundaryModel(tuple(float(w) for w in weights), best[1], data.name), best[0]
