"""The fused strategy's learned ranker: P(evidence) = sigmoid(w . z + b) over the standardised
:mod:`features` (fitted question by question, :mod:`graphmem.eval.listwise`), loaded from
a small JSON file (``fusion_ranker.json``, written by ``graphmem eval train-ranker``) with its
training metrics, and the packing rule it was tuned with.

The file names its features; a model trained without some (an ablation) reads only those it
names, and one that names a feature this version does not compute is refused.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError
from graphmem.retrieve.features import FEATURES

SHIPPED = Path(__file__).with_name("fusion_ranker.json")


@dataclass(frozen=True)
class Ranker:
    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float
    gamma: float = 0.0  # packing: order by p / tokens ** gamma
    metrics: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.features) - set(FEATURES))
        if unknown:
            raise ConfigurationError(f"the ranker uses features this version does not "
                                     f"compute: {', '.join(unknown)}; retrain it with "
                                     "`graphmem eval train-ranker`")

    @property
    def columns(self) -> list[int]:
        at = {name: i for i, name in enumerate(FEATURES)}
        return [at[name] for name in self.features]

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(evidence) of each row of a full ``FEATURES`` matrix."""
        if len(x) == 0:
            return np.zeros(0)
        z = ((x[:, self.columns] - self.mean) / self.scale) @ self.coef + self.intercept
        return np.asarray(1 / (1 + np.exp(-np.clip(z, -30, 30))))

    def to_json(self) -> dict[str, Any]:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "coef": self.coef.round(6).tolist(),
                "intercept": round(self.intercept, 6), "gamma": self.gamma,
                "metrics": self.metrics}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")


def from_json(data: dict[str, Any]) -> Ranker:
    try:
        n = len(data["features"])
        mean, scale, coef = (np.asarray(data[k], dtype=np.float64)
                             for k in ("mean", "scale", "coef"))
        if any(p.shape != (n,) for p in (mean, scale, coef)) \
                or not math.isfinite(data["intercept"]):
            raise ValueError("the weights do not match the features")
        return Ranker(tuple(data["features"]), mean, scale, coef, float(data["intercept"]),
                      float(data.get("gamma", 0.0)), dict(data.get("metrics", {})))
    except (KeyError, TypeError, ValueError) as exc:
        raise ConfigurationError(f"not a fusion ranker file: {exc}") from exc


@lru_cache(maxsize=8)
def load_ranker(path: str | None = None) -> Ranker:
    """The ranker at ``path`` (the shipped one when None), read once per process."""
    file = Path(path) if path else SHIPPED
    if not file.exists():
        raise ConfigurationError(f"no fusion ranker at {file}: train one with "
                                 "`graphmem eval train-ranker`")
    return from_json(json.loads(file.read_text()))
