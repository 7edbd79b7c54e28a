"""The ranker's listwise objective: it learns the order within each question, ignores what only
tells questions apart, and comes out calibrated."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import GraphmemError
from graphmem.training.listwise import fit_listwise


def questions(seed: int = 0) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """40 questions of 25 candidates. Column 0 ranks the evidence within a question; column 1
    is one value per question, higher where a question has more evidence."""
    rng = np.random.default_rng(seed)
    xs, ys, sizes = [], [], []
    for _ in range(40):
        n = 25
        signal = rng.normal(size=n)
        positives = int(rng.integers(1, 6))
        y = np.zeros(n, dtype=np.int8)
        y[np.argsort(-signal)[:positives]] = 1
        noisy = signal + rng.normal(scale=0.5, size=n)
        xs.append(np.column_stack([noisy, np.full(n, positives + rng.normal(scale=0.1))]))
        ys.append(y)
        sizes.append(n)
    return np.vstack(xs), np.concatenate(ys), sizes


def test_learns_the_order_within_questions_and_ignores_what_tells_questions_apart() -> None:
    x, y, sizes = questions()
    coef, _ = fit_listwise(x, y, sizes)
    assert coef[0] > 1.0
    # a column that is constant within every question cannot change any question's order
    assert abs(coef[1]) < 1e-6
    from sklearn.linear_model import LogisticRegression

    pointwise = LogisticRegression().fit(x, y).coef_[0]
    assert abs(pointwise[1]) > 0.1  # the row-by-row fit does use it


def test_probabilities_are_calibrated_on_the_training_rows() -> None:
    x, y, sizes = questions(1)
    coef, intercept = fit_listwise(x, y, sizes)
    p = 1 / (1 + np.exp(-(x @ coef + intercept)))
    assert abs(p.mean() - y.mean()) < 1e-3
    held_x, held_y, _ = questions(2)
    held = 1 / (1 + np.exp(-(held_x @ coef + intercept)))
    assert held[held_y == 1].mean() > 2 * held[held_y == 0].mean()


def test_refuses_rows_that_do_not_match_and_questions_it_cannot_learn_from() -> None:
    x, y, sizes = questions()
    with pytest.raises(GraphmemError, match="do not add up"):
        fit_listwise(x, y, sizes[:-1])
    with pytest.raises(GraphmemError, match="no question"):
        fit_listwise(x, np.zeros_like(y), sizes)
