"""Fit the LLM-free Stage 2 of ES-Mem (the boundary model) on a training split of dialogues.

Every Stage 1 candidate of every training dialogue becomes one example (features of its two
windows, label: does a gold boundary sit there). The threshold is the one, on a grid, whose
segmentations score best on the same training dialogues. Dev and test splits are never used.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from graphmem.eval.datasets import Dialogue, segmentation_dialogues
from graphmem.eval.segmentation import evaluate
from graphmem.ingest.layers.events.boundary_model import BoundaryModel, cut_features
from graphmem.ingest.layers.events.segmentation import DEFAULT, SegmentationConfig, stage_one
from graphmem.ingest.layers.events.topics import rule_topics
from graphmem.providers.embedder import Embedder
from graphmem.training.logistic import fit_logistic

THRESHOLDS = tuple(round(0.05 * i, 2) for i in range(1, 20))


@dataclass
class _Candidates:
    dialogue: Dialogue
    cuts: list[int]
    features: list[list[float]]


def _examples(dialogues: Sequence[Dialogue], embedder: Embedder, config: SegmentationConfig,
              progress: bool) -> list[_Candidates]:
    out = []
    for d in tqdm(dialogues, desc="features", unit="dialogue", disable=not progress):
        texts = list(d.utterances)
        topics = rule_topics(texts)
        mi, cuts, _ = stage_one(texts, topics, embedder, config.q)
        vectors = embedder.embed(texts) if cuts else np.zeros((0, embedder.dimensions))
        out.append(_Candidates(d, cuts, [cut_features(c, texts, vectors, topics, mi,
                                                      config.context) for c in cuts]))
    return out


def calibrate(data: Path, embedder: Embedder, config: SegmentationConfig = DEFAULT,
              l2: float = 1.0, progress: bool = True) -> tuple[BoundaryModel, float]:
    """The fitted model and its training Score at the chosen threshold."""
    examples = _examples(segmentation_dialogues(data), embedder, config, progress)
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
