"""Gradient-boosted trees fitted for the order within each question (LambdaMART: LightGBM's
``lambdarank`` objective), then one logistic calibration of their score to P(evidence).

The linear listwise ranker (:mod:`listwise`) weighs each signal the same everywhere; trees
can learn where a signal matters (a date match only when the question names a date, a
neighbour's depth only when the turn itself says little). Small trees, many rounds and row
and column subsampling keep the model smooth; the settings are LightGBM's usual ranking
ones, not searched on the development splits (docs/results-graphmem.md gives the four
compared on them, of which these are the cheapest). Deterministic: fixed seeds, a fixed thread
count.

One fit's held-out figures move by up to a point from one seed to the next (the row and column
subsampling), as much as many of the changes it is asked to judge; so the model is the average
of ``SEEDS`` fits that differ only in their seed, stored one after the other in one text
(:data:`~graphmem.retrieve.fused.ranker.TREES_SEPARATOR` between them) and averaged by
:class:`graphmem.retrieve.fused.ranker.TreeRanker`.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from graphmem.errors import GraphmemError
from graphmem.retrieve.fused.ranker import TREES_SEPARATOR

PARAMS = {"objective": "lambdarank", "learning_rate": 0.1, "num_leaves": 7,
          "min_data_in_leaf": 50, "feature_fraction": 0.8, "bagging_fraction": 0.8,
          "bagging_freq": 1, "lambdarank_truncation_level": 60,
          "deterministic": True, "force_col_wise": True, "num_threads": 2, "verbose": -1}
ROUNDS = 250
SEED = 0  # the first fit's; the others count up from it
SEEDS = 3
# below this calibration slope P hardly follows the trees' order (the shipped fits have
# 0.7-1.3; the collapse session 34 traced had 0.03)
MIN_SLOPE = 0.1
log = logging.getLogger("graphmem")


def fit_trees(x: np.ndarray, y: np.ndarray, sizes: Sequence[int], names: Sequence[str],
              rounds: int = ROUNDS, weights: np.ndarray | None = None,
              monotone: Sequence[int] | None = None,
              seeds: int | None = None,
              params: Mapping[str, Any] | None = None,
              grades: np.ndarray | None = None) -> tuple[str, float, float]:
    """LightGBM's text models (``seeds`` of them, :data:`SEEDS` by default, joined by
    ``TREES_SEPARATOR``) and the calibration (slope, intercept) of their mean score for rows
    ``x`` (questions stacked in order, of ``sizes`` rows each, columns ``names``) with labels
    ``y``; ``weights`` per row (the calibration reads them too), ``monotone`` per column (+1
    the score may only rise with the feature, -1 only fall, 0 free); ``params``: LightGBM
    settings that replace :data:`PARAMS`' own (a study of another objective or truncation);
    ``grades``: whole-number relevance per row for the trees to learn instead of ``y`` (a
    study of graded labels), while the calibration still maps their score to P(``y``)."""
    import lightgbm
    from sklearn.linear_model import LogisticRegression

    if sum(sizes) != len(x) or len(y) != len(x):
        raise GraphmemError("tree fit: the question sizes do not add up to the rows")
    if not 0 < int(y.sum()) < len(y):
        raise GraphmemError("tree fit: the rows need both evidence and other turns")
    if grades is not None and (len(grades) != len(y) or np.any(grades < 0)
                               or np.any(grades != np.round(grades))):
        raise GraphmemError("tree fit: the grades need one non-negative whole number per row")
    data = lightgbm.Dataset(x, y if grades is None else grades, group=list(sizes),
                            weight=weights,
                            # LightGBM refuses ":" in a name
                            feature_name=[n.replace(":", "_") for n in names],
                            free_raw_data=True)
    settings: dict[str, Any] = {**PARAMS, **(params or {})}
    if monotone is not None and any(monotone):
        settings["monotone_constraints"] = list(monotone)
    fits = max(1, SEEDS if seeds is None else seeds)
    models, raw = [], np.zeros(len(x))
    for n in range(fits):
        booster = lightgbm.train({**settings, "seed": SEED + n}, data, rounds)
        models.append(booster.model_to_string())
        raw += np.asarray(booster.predict(x)) / fits
    calibration = LogisticRegression(max_iter=1000).fit(raw[:, None], y,
                                                        sample_weight=weights)
    slope = float(calibration.coef_[0, 0])
    if slope < MIN_SLOPE:
        log.warning("tree fit: the calibration's slope is %.3f (under %s), so P keeps little "
                    "of the trees' order and packing falls back on the unlearned order: the "
                    "scores drift from one question to the next (check the row weights) or "
                    "the columns hold no signal", slope, MIN_SLOPE)
    return TREES_SEPARATOR.join(models), slope, float(calibration.intercept_[0])
