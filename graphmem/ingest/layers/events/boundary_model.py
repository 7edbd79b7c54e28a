"""The LLM-free Stage 2 of ES-Mem: is a candidate cut a real event boundary?

Instead of an LLM's intent labels, a logistic model scores each candidate from what the two
windows around the cut show: how similar they are (whole windows and the two turns at the
cut), how much vocabulary they share, whether the last turn before the cut asked something
(then the next usually answers), whether the first turn after it opens with a
topic-changing or an answering phrase, and how the cut's mutual information ranks in its
dialogue. The weights are fitted on a training split (``graphmem eval calibrate-segmenter``)
and shipped as JSON next to this module, with the threshold that scored best there.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.ingest.layers.events.topics import TurnTopic

MODEL_PATH = Path(__file__).with_name("boundary_model.json")

# Phrases that tend to open a new topic, or to continue the current one, at a turn's start.
SHIFT_OPENERS = re.compile(
    r"^\s*(by the way|btw|anyway|anyways|speaking of|on another note|changing the subject|"
    r"so,? (what|do|how|tell)|what about|how about|what do you do|what else|do you (like|have|"
    r"enjoy|play|watch|know)|have you (ever|been|seen|tried)|tell me about|i also|i just got|"
    r"let me ask|can i ask|what is your favorite|what's your favorite|what are you)\b", re.I)
RESPONSE_OPENERS = re.compile(
    r"^\s*(yes|yeah|yep|yup|no|nope|nah|sure|ok|okay|right|true|exactly|indeed|oh|ah|wow|cool|"
    r"nice|great|awesome|lol|haha|me too|same|thanks|thank you|i agree|that('s| is| sounds)|"
    r"it('s| is| was)|they|he|she|sounds|i see|really|hmm|well)\b", re.I)

FEATURES = ("bias", "window_similarity", "turn_similarity", "skip_similarity", "lexical_overlap",
            "mi_rank", "mi_z", "question_before", "question_after", "shift_opener",
            "response_opener", "short_after", "pronoun_start")
_PRONOUN_START = re.compile(r"^\s*(it|that|this|those|these|they|them|there)\b", re.I)


def _cos(a: np.ndarray, b: np.ndarray) -> float:
    denom = float(np.linalg.norm(a) * np.linalg.norm(b))
    return float(a @ b) / denom if denom else 0.0


def cut_features(cut: int, texts: Sequence[str], vectors: np.ndarray, topics: Sequence[TurnTopic],
                 mi: np.ndarray, context: int) -> list[float]:
    """Features of the cut before turn ``cut`` (1 <= cut < len(texts)); ``vectors`` are the
    embeddings of the raw turns, ``mi`` the Stage 1 values (one per cut)."""
    left = range(max(0, cut - context), cut)
    right = range(cut, min(len(texts), cut + context))
    window_sim = _cos(vectors[list(left)].mean(axis=0), vectors[list(right)].mean(axis=0))
    turn_sim = _cos(vectors[cut - 1], vectors[cut])
    skip_sim = _cos(vectors[cut - 2], vectors[cut]) if cut >= 2 else turn_sim
    left_words = {w for i in left for w in topics[i].keywords}
    right_words = {w for i in right for w in topics[i].keywords}
    union = left_words | right_words
    overlap = len(left_words & right_words) / len(union) if union else 0.0
    value = mi[cut - 1]
    rank = float(np.mean(mi <= value))
    spread = float(mi.std()) or 1.0
    after = texts[cut]
    return [
        1.0, window_sim, turn_sim, skip_sim, overlap, rank, float((value - mi.mean()) / spread),
        float("?" in texts[cut - 1]), float("?" in after), float(bool(SHIFT_OPENERS.match(after))),
        float(bool(RESPONSE_OPENERS.match(after))), float(len(after.split()) <= 4),
        float(bool(_PRONOUN_START.match(after))),
    ]


@dataclass(frozen=True)
class BoundaryModel:
    weights: tuple[float, ...]
    threshold: float
    trained_on: str = ""

    def probability(self, features: Sequence[float]) -> float:
        z = sum(w * x for w, x in zip(self.weights, features, strict=True))
        return 1.0 / (1.0 + math.exp(-max(-30.0, min(30.0, z))))

    def to_json(self) -> dict[str, Any]:
        return {"features": list(FEATURES), "weights": [round(w, 6) for w in self.weights],
                "threshold": self.threshold, "trained_on": self.trained_on}


@lru_cache(maxsize=1)
def load_model(path: Path = MODEL_PATH) -> BoundaryModel:
    data = json.loads(path.read_text(encoding="utf-8"))
    if list(data["features"]) != list(FEATURES):
        raise ValueError(f"{path}: trained for features {data['features']}, code has {FEATURES}")
    return BoundaryModel(tuple(float(w) for w in data["weights"]), float(data["threshold"]),
                         str(data.get("trained_on", "")))
