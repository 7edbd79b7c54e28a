"""A linear ranker fitted question by question: softmax cross-entropy over each question's
candidates (the "listwise" objective of learning to rank), then one logistic calibration.

Pointwise logistic regression weighs every candidate row alike, so it spends its fit on telling
the easy negatives of long questions apart and on questions' different base rates. Here each
question is one term: the softmax over its candidates' scores should put its mass on the
evidence turns (an equal share each). Only the order within a question is learned, so a
second, one-feature logistic regression maps the score to P(evidence), which packing divides
by a turn's cost. The result is still ``sigmoid(w . z + b)`` over standardised features, so
the shipped file and :class:`~graphmem.retrieve.fused.ranker.Ranker` are unchanged.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from graphmem.errors import GraphmemError


def fit_listwise(x: np.ndarray, y: np.ndarray, sizes: Sequence[int],
                 l2: float = 1.0) -> tuple[np.ndarray, float]:
    """Weights and intercept over standardised rows ``x`` (questions stacked in order, of
    ``sizes`` rows each) with labels ``y``. ``l2`` penalises 0.5·l2·|w|² against the sum of the
    questions' losses, as C = 1/l2 does in scikit-learn's logistic regression."""
    from scipy.optimize import minimize
    from sklearn.linear_model import LogisticRegression

    if sum(sizes) != len(x) or len(y) != len(x):
        raise GraphmemError("listwise fit: the question sizes do not add up to the rows")
    starts = np.cumsum([0, *sizes[:-1]])
    keep = [i for i, (s, n) in enumerate(zip(starts, sizes, strict=True))
            if n > 1 and 0 < y[s:s + n].sum() < n]
    if not keep:
        raise GraphmemError("listwise fit: no question has both evidence and other turns")
    rows = np.concatenate([np.arange(starts[i], starts[i] + sizes[i]) for i in keep])
    z, labels = x[rows], y[rows].astype(np.float64)
    kept_sizes = np.asarray([sizes[i] for i in keep])
    first = np.cumsum(np.r_[0, kept_sizes[:-1]])
    question = np.repeat(np.arange(len(keep)), kept_sizes)
    # each evidence turn's share of its question's target mass
    target = labels / np.add.reduceat(labels, first)[question]

    def loss(w: np.ndarray) -> tuple[float, np.ndarray]:
        score = z @ w
        top = np.maximum.reduceat(score, first)
        e = np.exp(score - top[question])
        total = np.add.reduceat(e, first)
        log_norm = top + np.log(total)
        p = e / total[question]
        value = float(log_norm.sum() - target @ score) + 0.5 * l2 * float(w @ w)
        grad = z.T @ (p - target) + l2 * w
        return value, grad

    w = minimize(loss, np.zeros(x.shape[1]), jac=True, method="L-BFGS-B",
                 options={"maxiter": 1000}).x
    calibration = LogisticRegression(max_iter=1000).fit((x @ w)[:, None], y)
    a = float(calibration.coef_[0, 0])
    return a * w, float(calibration.intercept_[0])
