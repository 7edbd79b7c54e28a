"""The tree ranker's per-feature effects (``TreeRanker.contributions``): they add up to its
calibrated score exactly, a feature no tree splits on moves nothing, and a feature that alone
decides the score takes all of it."""

from __future__ import annotations

import lightgbm
import numpy as np

from graphmem.retrieve.fused.features import FEATURES, columns
from graphmem.retrieve.fused.ranker import TreeRanker


def test_effects_belong_to_the_features_the_trees_split_on() -> None:
    rng = np.random.default_rng(7)
    two = np.column_stack([rng.random(400), np.zeros(400)])  # no tree can split on the 2nd
    y = (two[:, 0] > 0.5).astype(float) + 0.2 * two[:, 0]
    booster = lightgbm.train({"objective": "regression", "num_leaves": 4, "verbose": -1,
                              "min_data_in_leaf": 5}, lightgbm.Dataset(two, y),
                             num_boost_round=20)
    ranker = TreeRanker(features=FEATURES[:2], trees=booster.model_to_string(), slope=2.0,
                        intercept=-1.0)
    x = np.zeros((50, len(columns())), dtype=np.float32)
    x[:, :2] = rng.random((50, 2))
    effects, base = ranker.contributions(x)
    logits = ranker.calibrated(ranker.raw(x[:, ranker.columns]))
    assert np.allclose(effects.sum(axis=1) + base, logits, atol=1e-9)
    assert np.all(effects[:, 1] == 0) and np.abs(effects[:, 0]).max() > 0.5
    low, high = x[:, 0] < 0.45, x[:, 0] > 0.55
    assert effects[low, 0].max() < 0 < effects[high, 0].min()
