"""The fused strategy's learned ranker: P(evidence) of each candidate turn from its
:mod:`features`, loaded from a small JSON file (``fusion_ranker.json``, written by
``graphmem eval train-ranker``) with its training metrics and the packing rule it was tuned
with.

Two kinds, both a raw score s per candidate mapped to P = sigmoid(a·s + b) by a logistic
calibration fitted on the training rows:

- ``trees`` (shipped): gradient-boosted trees trained for the order within each question
  (LambdaMART, LightGBM's ``lambdarank``), kept as LightGBM's own text model in a file beside
  the JSON (``fusion_ranker.trees.txt``);
- ``linear``: w · z + b over standardised features, fitted question by question
  (:mod:`graphmem.training.listwise`); the comparison the training reports.

The file names its features; a model trained without some (an ablation) reads only those it
names, and one that names a feature this version does not compute is refused.
"""

from __future__ import annotations

import json
import math
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError
from graphmem.retrieve.fused.features import columns, unlearned
from graphmem.retrieve.fused.pipeline import PackingRule, rule_of
from graphmem.retrieve.fused.sources import plugin_sources

SHIPPED = Path(__file__).with_name("fusion_ranker.json")
# between the models of a tree ranker's average (fits that differ only in their seed)
TREES_SEPARATOR = "\n=== the next model of the average ===\n"


def _sigmoid(z: np.ndarray) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-np.clip(z, -30, 30))))


@dataclass(frozen=True, kw_only=True)
class Ranker(ABC):
    """What both kinds share: the features read, the packing rule and the metrics."""

    features: tuple[str, ...]
    # how its P become a context (gamma, floor, spread, pairs, window, blend weight)
    rule: PackingRule = field(default_factory=PackingRule)
    # (slope a, intercept b) of the unlearned order u: P = (1 - w) P_learned + w sigmoid(a u +
    # b), w the rule's blend (features.unlearned); weight 0 reads the learned P alone
    blend_fit: tuple[float, float] = (0.0, 0.0)
    metrics: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.features) - set(columns()))
        if unknown:
            raise ConfigurationError(f"the ranker uses features this version does not "
                                     f"compute: {', '.join(unknown)} (a plug-in's source "
                                     "that is not installed, or an older graphmem); retrain "
                                     "it with `graphmem eval train-ranker`")

    @property
    def columns(self) -> list[int]:
        at = {name: i for i, name in enumerate(columns())}
        return [at[name] for name in self.features]

    @property
    def plugin_sources(self) -> tuple[str, ...]:
        """The plug-ins' sources whose columns it reads (a search runs them; graphmem's
        own run whenever the space holds their layers)."""
        read = {name.partition(":")[0] for name in self.features}
        return tuple(s.name for s in plugin_sources() if s.name in read)

    @abstractmethod
    def raw(self, x: np.ndarray) -> np.ndarray:
        """The uncalibrated score of each row of ``x`` (the ranker's own columns)."""

    @abstractmethod
    def calibrated(self, raw: np.ndarray) -> np.ndarray:
        """The logit of P(evidence) for raw scores."""

    @abstractmethod
    def contributions(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """What each of the ranker's own features added to each row's calibrated log-odds,
        (rows, features), and each row's base: the two sum to :meth:`calibrated` of
        :meth:`raw` (for ``x`` a full feature matrix, as :meth:`probabilities` takes)."""

    def probabilities(self, x: np.ndarray) -> np.ndarray:
        """P(evidence) of each row of a full feature matrix (``features.columns()``)."""
        if len(x) == 0:
            return np.zeros(0)
        p = _sigmoid(self.calibrated(self.raw(x[:, self.columns])))
        weight, (slope, intercept) = self.rule.blend, self.blend_fit
        if weight:
            p = (1 - weight) * p + weight * _sigmoid(slope * unlearned(x) + intercept)
        return p

    def to_json(self) -> dict[str, Any]:
        r = self.rule
        return {"features": list(self.features), "gamma": r.gamma, "floor": r.floor,
                "spread": r.spread, "pairs": r.pairs, "window": [r.window, r.carry],
                "blend": [round(v, 8) for v in (r.blend, *self.blend_fit)],
                **({"cover": [r.cover, r.similar]} if r.cover else {}),
                "metrics": self.metrics}

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(self.to_json(), indent=1) + "\n")


@dataclass(frozen=True, kw_only=True)
class LinearRanker(Ranker):
    mean: np.ndarray
    scale: np.ndarray
    coef: np.ndarray
    intercept: float

    def raw(self, x: np.ndarray) -> np.ndarray:
        return np.asarray(((x - self.mean) / self.scale) @ self.coef)

    def calibrated(self, raw: np.ndarray) -> np.ndarray:
        return raw + self.intercept  # the calibration is folded into the weights

    def contributions(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        effect = (x[:, self.columns] - self.mean) / self.scale * self.coef
        return np.asarray(effect), np.full(len(x), self.intercept)

    def to_json(self) -> dict[str, Any]:
        return {"kind": "linear", **super().to_json(),
                "mean": self.mean.round(6).tolist(), "scale": self.scale.round(6).tolist(),
                "coef": self.coef.round(6).tolist(), "intercept": round(self.intercept, 6)}


@dataclass(frozen=True, kw_only=True)
class TreeRanker(Ranker):
    trees: str  # LightGBM's text models, averaged (one, or several joined by TREES_SEPARATOR)
    slope: float
    intercept: float

    @cached_property
    def boosters(self) -> tuple[Any, ...]:
        import lightgbm

        return tuple(lightgbm.Booster(model_str=text)
                     for text in self.trees.split(TREES_SEPARATOR))

    def raw(self, x: np.ndarray) -> np.ndarray:
        # one thread: a search is one small matrix, and a server runs several at once
        return np.asarray(np.mean([b.predict(x, num_threads=1) for b in self.boosters],
                                  axis=0))

    def calibrated(self, raw: np.ndarray) -> np.ndarray:
        return self.slope * raw + self.intercept

    @cached_property
    def paths(self) -> tuple[tuple[np.ndarray, float, int], ...]:
        """Per model of the average: every leaf's path effects, each tree's leaves in a block
        of ``width`` rows, (trees * width, features); the sum of the trees' root values; and
        ``width``. Read from the models' text, once."""
        return tuple(_leaf_paths(text, len(self.features))
                     for text in self.trees.split(TREES_SEPARATOR))

    def contributions(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        # each tree's output split along the path the row takes: a split on feature f moves
        # the expected output from the node's value to the child's, and that move is f's
        # (the decomposition of Saabas, exact in sum). LightGBM's SHAP values (pred_contrib)
        # cost 0.3 ms a row on two cores, half a search at 1,000 tokens; these cost what
        # predict() does (LightGBM's leaf indices) and one table lookup
        mine = x[:, self.columns]
        effects = np.zeros((len(x), len(self.features)))
        base = 0.0
        for booster, (table, roots, width) in zip(self.boosters, self.paths, strict=True):
            leaves = np.asarray(booster.predict(mine, num_threads=1, pred_leaf=True),
                                dtype=np.int64).reshape(len(x), -1)
            effects += table[leaves + np.arange(leaves.shape[1]) * width].sum(axis=1)
            base += roots
        n = len(self.boosters)
        return self.slope * effects / n, np.full(len(x), self.slope * base / n + self.intercept)

    @staticmethod
    def trees_file(path: Path) -> Path:
        return path.with_name(path.name.removesuffix(".json") + ".trees.txt")

    def to_json(self) -> dict[str, Any]:
        return {"kind": "trees", **super().to_json(),
                "calibration": [round(self.slope, 8), round(self.intercept, 8)]}

    def save(self, path: Path) -> None:
        data = {**self.to_json(), "trees": self.trees_file(path).name}
        self.trees_file(path).write_text(self.trees)
        path.write_text(json.dumps(data, indent=1) + "\n")


def _leaf_paths(model: str, features: int) -> tuple[np.ndarray, float, int]:
    """:attr:`TreeRanker.paths` of one LightGBM model, read from its text: each tree's
    ``split_feature``, ``left_child`` / ``right_child`` (a negative child ``~k`` is leaf k),
    ``leaf_value`` and ``internal_value`` (a node's expected output; rounded in the text,
    which leaves the sum exact: along a path the moves add up to its leaf's value less its
    root's)."""
    trees = [dict(line.split("=", 1) for line in block.splitlines() if "=" in line)
             for block in model.split("\nTree=")[1:]]
    trees = [t for t in trees if "leaf_value" in t]
    width = max(int(t["num_leaves"]) for t in trees)
    table = np.zeros((len(trees) * width, features))
    roots = 0.0
    for t, tree in enumerate(trees):
        leaf = [float(v) for v in tree["leaf_value"].split()]
        if int(tree["num_leaves"]) == 1:  # a tree of one leaf: all of it is base
            roots += leaf[0]
            continue
        split = [int(v) for v in tree["split_feature"].split()]
        inner = [float(v) for v in tree["internal_value"].split()]
        sides = [[int(v) for v in tree[side].split()] for side in ("left_child", "right_child")]
        roots += inner[0]
        stack = [(0, np.zeros(features))]
        while stack:
            node, effect = stack.pop()
            for side in sides:
                child = side[node]
                moved = effect.copy()
                moved[split[node]] += (leaf[~child] if child < 0 else inner[child]) - inner[node]
                if child < 0:
                    table[t * width + ~child] = moved
                else:
                    stack.append((child, moved))
    return table, roots, width


def from_json(data: dict[str, Any], folder: Path | None = None) -> Ranker:
    """The ranker a file holds; a tree model's trees are read from ``folder``."""
    try:
        features = tuple(str(f) for f in data["features"])
        blend = tuple(float(v) for v in data.get("blend", (0.0, 0.0, 0.0)))
        if len(blend) != 3 or not all(map(math.isfinite, blend)) or not 0 <= blend[0] <= 1:
            raise ValueError("the blend is not (weight in [0, 1], slope, intercept)")
        common: dict[str, Any] = {"features": features, "rule": rule_of(data),
                                  "blend_fit": (blend[1], blend[2]),
                                  "metrics": dict(data.get("metrics", {}))}
        n = len(features)
        if data.get("kind", "linear") == "trees":
            slope, intercept = (float(v) for v in data["calibration"])
            trees = ((folder or Path.cwd()) / data["trees"]).read_text()
            if not all(map(math.isfinite, (slope, intercept))):
                raise ValueError("the calibration is not finite")
            if f"\nmax_feature_idx={n - 1}\n" not in trees:
                raise ValueError("the trees do not read the features the file names")
            return TreeRanker(**common, trees=trees, slope=slope, intercept=intercept)
        mean, scale, coef = (np.asarray(data[k], dtype=np.float64)
                             for k in ("mean", "scale", "coef"))
        if any(p.shape != (n,) for p in (mean, scale, coef)) \
                or not math.isfinite(data["intercept"]):
            raise ValueError("the weights do not match the features")
        return LinearRanker(**common, mean=mean, scale=scale, coef=coef,
                            intercept=float(data["intercept"]))
    except (KeyError, TypeError, ValueError, OSError) as exc:
        raise ConfigurationError(f"not a fusion ranker file: {exc}") from exc


@lru_cache(maxsize=8)
def load_ranker(path: str | None = None) -> Ranker:
    """The ranker at ``path`` (the shipped one when None), read once per process."""
    file = Path(path) if path else SHIPPED
    if not file.exists():
        raise ConfigurationError(f"no fusion ranker at {file}: train one with "
                                 "`graphmem eval train-ranker`")
    return from_json(json.loads(file.read_text()), file.parent)
