"""Calibrating the trees' score question by question (issue 51).

    python studies/calibration.py [--conversations 8] [--out calibration.json]

LambdaMART learns the order within each question; where its score sits from one question to
the next is free. The shipped recipe maps that score to P(evidence) with one logistic fit over
every training row, and packing mixes P across turns (the window's carry, the blend with the
unlearned order), so the level matters. Session 34 found the level can drift so far between
questions (with span weights 1/sqrt(n): the scores' spread 6.4 against 1.6) that one
logistic fit finds almost no slope and P carries nothing. A calibration relative to the
question (its score minus the question's best, read the same way at search time from the
candidates in hand) cannot drift. This measures, on the leave-one-dataset-out matrix by
category, the shipped recipe against:

- ``relative``: P = sigmoid(a (s - max_q s) + b);
- ``relative + absolute``: P = sigmoid(a s + c (s - max_q s) + b);
- the relative calibration with the span weights that collapsed the shipped calibration
  (each evidence turn of a question of n weighing 1/sqrt(n), and 1).

Everything else is the shipped recipe (the cached candidates of `train-ranker`, three seeds,
the shipped columns, the shipped packing rule).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from question_type import fitter, raw_scores, run
from span_weights import power

from graphmem.retrieve.fused.ranker import TREES_SEPARATOR
from graphmem.training import lambdamart, transfer
from graphmem.training.ranker import row_weights
from graphmem.training.samples import Sample


def _design(raw: np.ndarray, absolute: bool) -> np.ndarray:
    """The calibration's inputs for one question's raw scores."""
    relative = raw - raw.max()
    return np.column_stack([raw, relative]) if absolute else relative[:, None]


def relative_fitter(columns: list[int], absolute: bool,
                    weigh: Callable[[Sequence[Sample]], np.ndarray] = row_weights
                    ) -> transfer.Fit:
    """The shipped trees over ``columns`` with the calibration relative to each question's
    best score (and the absolute score beside it when ``absolute``)."""
    def fit(part: Sequence[Sample]) -> Any:
        import lightgbm
        from sklearn.linear_model import LogisticRegression

        x = np.vstack([s.x[:, columns] for s in part]).astype(np.float64)
        y = np.concatenate([s.y for s in part])
        weights = weigh(part)
        trees, _, _ = lambdamart.fit_trees(x, y, [len(s.y) for s in part],
                                           [f"c{i}" for i in columns], weights=weights)
        boosters = [lightgbm.Booster(model_str=t) for t in trees.split(TREES_SEPARATOR)]
        raw = raw_scores(boosters, x)
        bounds = np.cumsum([0] + [len(s.y) for s in part])
        design = np.vstack([_design(raw[a:b], absolute)
                            for a, b in itertools.pairwise(bounds)])
        model = LogisticRegression(max_iter=1000).fit(design, y, sample_weight=weights)
        coef, intercept = model.coef_[0], float(model.intercept_[0])
        print(f"  calibration {np.round(coef, 4).tolist()} {intercept:.4f}")

        def p(x_full: np.ndarray) -> np.ndarray:
            if len(x_full) == 0:
                return np.zeros(0)
            z = _design(raw_scores(boosters, x_full[:, columns].astype(np.float64)), absolute)
            return np.asarray(1 / (1 + np.exp(-(z @ coef + intercept))))
        return p
    return fit


def main() -> None:
    run(__doc__, lambda shipped: {
        "shipped (one calibration)": fitter(shipped),
        "relative": relative_fitter(shipped, False),
        "relative + absolute": relative_fitter(shipped, True),
        "relative, 1/sqrt(n)": relative_fitter(shipped, False, power(0.5)),
        "relative, 1 (none)": relative_fitter(shipped, False, power(0.0))})


if __name__ == "__main__":
    main()
