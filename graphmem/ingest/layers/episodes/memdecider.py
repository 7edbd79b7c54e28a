"""EMA's MemDecider (seed 003): how much a turn is worth remembering, from its own features.

A turn is described by three groups of features, concatenated:

- semantic: its MiniLM embedding (the vector the turns layer stores, so nothing is embedded
  twice);
- linguistic statistics: length, lexical diversity, digits, punctuation, upper-case letters,
  whether it shares an image, and how much it asks (question words and marks);
- syntactic counts from spaCy: persons, places, time expressions, nouns and verbs.

A small MLP (one hidden layer) turns them into a score in [0, 1]; a turn whose score reaches
the threshold ``tau`` is *admitted* and becomes an episodic memory unit. A rejected turn is not
lost: it stays a Turn node with its score as ``salience``. The weights are trained by
``graphmem eval train-memdecider`` (:mod:`graphmem.training.memdecider`) on the
development splits and ship next to this module (``memdecider.npz``), with the training
metrics in ``memdecider.json``. Inference is numpy only: no GPU, no download.
"""

from __future__ import annotations

import json
import math
import re
import string
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.providers.embedder import PACKAGED
from graphmem.providers.nlp import parse as parse_texts

MODEL_PATH = Path(__file__).with_name("memdecider.npz")
METRICS_PATH = Path(__file__).with_name("memdecider.json")
SPACY_CHARS = 1_500  # spaCy reads a turn's first characters only (long assistant replies)

PACKAGED_EMBEDDER = PACKAGED  # what files written before the embedder was recorded read
HAND_FEATURES = ("length", "diversity", "digits", "punctuation", "upper_case", "image",
                 "questions", "persons", "places", "times", "nouns", "verbs")
_QUESTION_WORDS = {"what", "when", "where", "who", "whom", "whose", "which", "why", "how"}
_WORD = re.compile(r"[A-Za-z0-9']+")
_PUNCT = set(string.punctuation)


@dataclass(frozen=True)
class TurnText:
    """What MemDecider reads of a turn besides its vector."""

    text: str
    has_image: bool = False


def linguistic(turn: TurnText) -> list[float]:
    """The seven statistics of the text, counts on a log scale."""
    text = turn.text
    words = [w.lower() for w in _WORD.findall(text)]
    diversity = len(set(words)) / len(words) if words else 0.0
    asks = text.count("?") + sum(w in _QUESTION_WORDS for w in words)
    return [math.log1p(len(words)), diversity,
            math.log1p(sum(c.isdigit() for c in text)),
            math.log1p(sum(c in _PUNCT for c in text)),
            math.log1p(sum(c.isupper() for c in text)),
            float(turn.has_image), math.log1p(asks)]


def syntactic(docs: Sequence[Any]) -> np.ndarray:
    """Counts of persons, places, time expressions, nouns and verbs per spaCy doc (log)."""
    rows = []
    for doc in docs:
        labels = [e.label_ for e in doc.ents]
        pos = [t.pos_ for t in doc]
        rows.append([labels.count("PERSON"),
                     sum(label in ("GPE", "LOC", "FAC") for label in labels),
                     sum(label in ("DATE", "TIME") for label in labels),
                     sum(p in ("NOUN", "PROPN") for p in pos), pos.count("VERB")])
    return np.log1p(np.asarray(rows, dtype=np.float32).reshape(len(rows), 5))


def parse(texts: Sequence[str]) -> list[Any]:
    """spaCy docs of the texts' first ``SPACY_CHARS`` characters."""
    return parse_texts([t[:SPACY_CHARS] for t in texts])


def hand_features(turns: Sequence[TurnText], docs: Sequence[Any] | None = None) -> np.ndarray:
    """The twelve hand-crafted features of each turn (rows in input order); ``docs`` are the
    turns' spaCy docs by :func:`parse`, made here when not given."""
    if not turns:
        return np.zeros((0, len(HAND_FEATURES)), dtype=np.float32)
    if docs is None:
        docs = parse([t.text for t in turns])
    stats = np.asarray([linguistic(t) for t in turns], dtype=np.float32)
    out: np.ndarray = np.hstack([stats, syntactic(docs)])
    return out


@dataclass(frozen=True)
class MemDecider:
    """The trained MLP: standardisation of the hand features, two layers, the threshold."""

    mean: np.ndarray  # of the hand features
    scale: np.ndarray
    w1: np.ndarray  # (embedding + hand features, hidden)
    b1: np.ndarray
    w2: np.ndarray  # (hidden,)
    b2: float
    tau: float
    # the embedder whose vectors it was trained on (files written before it was recorded:
    # the packaged MiniLM, the only one they were trained with)
    embedder: str = PACKAGED_EMBEDDER

    @property
    def dimensions(self) -> int:
        """The length of the vectors it reads."""
        return int(self.w1.shape[0]) - len(HAND_FEATURES)

    def inputs(self, vectors: np.ndarray, hand: np.ndarray) -> np.ndarray:
        return np.hstack([vectors.astype(np.float32), (hand - self.mean) / self.scale])

    def scores(self, vectors: np.ndarray, hand: np.ndarray) -> np.ndarray:
        """Admission scores in [0, 1], one per row."""
        if len(hand) == 0:
            return np.zeros(0, dtype=np.float32)
        hidden = np.maximum(self.inputs(vectors, hand) @ self.w1 + self.b1, 0.0)
        z = np.clip(hidden @ self.w2 + self.b2, -30.0, 30.0)
        out: np.ndarray = (1.0 / (1.0 + np.exp(-z))).astype(np.float32)
        return out

    def save(self, path: Path) -> None:
        with path.open("wb") as f:
            np.savez_compressed(f, mean=self.mean, scale=self.scale, w1=self.w1, b1=self.b1,
                                w2=self.w2, b2=np.float32(self.b2), tau=np.float32(self.tau),
                                features=np.asarray(HAND_FEATURES),
                                embedder=np.asarray(self.embedder))


@lru_cache(maxsize=4)
def load_memdecider(path: Path = MODEL_PATH) -> MemDecider:
    """The model at ``path`` (the shipped one by default), checked against this code."""
    with np.load(path, allow_pickle=False) as data:
        if [str(f) for f in data["features"]] != list(HAND_FEATURES):
            raise ValueError(f"{path}: trained for features {list(data['features'])}, "
                             f"this code computes {list(HAND_FEATURES)}")
        return MemDecider(data["mean"].astype(np.float32), data["scale"].astype(np.float32),
                          data["w1"].astype(np.float32), data["b1"].astype(np.float32),
                          data["w2"].astype(np.float32), float(data["b2"]), float(data["tau"]),
                          str(data["embedder"]) if "embedder" in data else PACKAGED_EMBEDDER)


def training_metrics(path: Path = METRICS_PATH) -> dict[str, Any]:
    """The metrics written beside the shipped model when it was trained."""
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data
