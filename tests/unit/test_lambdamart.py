"""The tree ranker (LambdaMART): it learns the order within each question from the column
that carries it, comes out calibrated, and refuses rows it cannot learn from."""

from __future__ import annotations

import logging

import lightgbm
import numpy as np
import pytest
from test_listwise import questions

from graphmem.errors import GraphmemError
from graphmem.retrieve.fused.ranker import TREES_SEPARATOR, TreeRanker
from graphmem.training.lambdamart import MIN_SLOPE, PARAMS, SEEDS, fit_trees


def scores(trees: str, x: np.ndarray) -> np.ndarray:
    return np.mean([lightgbm.Booster(model_str=t).predict(x)
                    for t in trees.split(TREES_SEPARATOR)], axis=0)


def test_learns_the_order_within_questions_from_the_signal_column() -> None:
    x, y, sizes = questions()
    trees, slope, intercept = fit_trees(x, y, sizes, ["signal", "per_question"], rounds=60)
    booster = lightgbm.Booster(model_str=trees.split(TREES_SEPARATOR)[0])
    gain = booster.feature_importance("gain")
    assert gain[0] > 10 * gain[1]  # the order lives in column 0
    held_x, held_y, held_sizes = questions(2)
    raw = scores(trees, held_x)
    hits, start = 0, 0
    for n in held_sizes:  # the top-ranked candidate of a held-out question is evidence
        hits += int(held_y[start + int(np.argmax(raw[start:start + n]))])
        start += n
    assert hits >= 0.8 * len(held_sizes)
    p = 1 / (1 + np.exp(-(slope * scores(trees, x) + intercept)))
    assert slope > 0 and abs(p.mean() - y.mean()) < 0.02


def test_the_fit_is_deterministic() -> None:
    x, y, sizes = questions()
    assert fit_trees(x, y, sizes, ["a", "b"], rounds=20) == fit_trees(x, y, sizes, ["a", "b"],
                                                                       rounds=20)


def test_refuses_rows_that_do_not_match_or_hold_one_class() -> None:
    x, y, sizes = questions()
    with pytest.raises(GraphmemError, match="do not add up"):
        fit_trees(x, y, sizes[:-1], ["a", "b"])
    with pytest.raises(GraphmemError, match="both evidence and other"):
        fit_trees(x, np.zeros_like(y), sizes, ["a", "b"])


def test_the_model_is_the_average_of_fits_differing_in_their_seed() -> None:
    x, y, sizes = questions()
    names = ["bm25:rr", "vector:rr"]  # a ranker reads features this version computes
    trees, slope, intercept = fit_trees(x, y, sizes, names, rounds=20)
    parts = trees.split(TREES_SEPARATOR)
    assert len(parts) == SEEDS and len(set(parts)) == SEEDS  # each seed its own trees
    each = [lightgbm.Booster(model_str=t).predict(x) for t in parts]
    ranker = TreeRanker(features=tuple(names), trees=trees, slope=slope, intercept=intercept)
    assert np.allclose(ranker.raw(x), np.mean(each, axis=0))
    one, _, _ = fit_trees(x, y, sizes, names, rounds=20, seeds=1)
    assert TREES_SEPARATOR not in one and one == parts[0]  # a single fit is the first seed's


def test_warns_when_the_calibration_keeps_little_of_the_order(
        caplog: pytest.LogCaptureFixture) -> None:
    x, y, sizes = questions()
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        fit_trees(x, y, sizes, ["a", "b"], rounds=20, seeds=1)
    assert not caplog.records  # a signal the trees learn: a steep calibration, no warning
    flat = np.zeros_like(x)  # columns that tell no candidate from another: no order to keep
    with caplog.at_level(logging.WARNING, logger="graphmem"):
        _, slope, _ = fit_trees(flat, y, sizes, ["a", "b"], rounds=20, seeds=1)
    assert slope < MIN_SLOPE
    assert "calibration's slope" in caplog.text


def test_settings_passed_in_replace_the_shipped_ones_for_that_fit_only() -> None:
    x, y, sizes = questions()
    kept = dict(PARAMS)
    shipped, _, _ = fit_trees(x, y, sizes, ["a", "b"], rounds=5, seeds=1)
    stumps, _, _ = fit_trees(x, y, sizes, ["a", "b"], rounds=5, seeds=1,
                             params={"num_leaves": 2})
    assert "num_leaves: 2" in stumps and stumps != shipped
    assert kept == PARAMS  # the module's settings are untouched


def test_grades_teach_the_trees_while_the_calibration_stays_on_the_evidence() -> None:
    x, y, sizes = questions()
    rng = np.random.default_rng(1)
    # a third column marks some other turns; graded 1, they should rise above the rest
    marked = (y == 0) & (rng.random(len(y)) < 0.2)
    x = np.column_stack([x, marked.astype(float)])
    grades = np.where(y > 0, 2, np.where(marked, 1, 0))
    names = ["signal", "per_question", "marked"]
    plain, _, _ = fit_trees(x, y, sizes, names, rounds=40, seeds=1)
    graded, slope, intercept = fit_trees(x, y, sizes, names, rounds=40, seeds=1,
                                         grades=grades)
    others = y == 0
    lift = [float(scores(t, x)[others & marked].mean() - scores(t, x)[others & ~marked].mean())
            for t in (plain, graded)]
    assert lift[1] > lift[0] + 0.5  # only the graded fit learned the marked turns
    p = 1 / (1 + np.exp(-(slope * scores(graded, x) + intercept)))
    assert slope > 0 and abs(p.mean() - y.mean()) < 0.02  # P of evidence, not of a grade
    for wrong in (grades[:-1], grades - 1, grades * 0.5):  # short, negative, fractional
        with pytest.raises(GraphmemError, match="grades"):
            fit_trees(x, y, sizes, names, grades=wrong)
