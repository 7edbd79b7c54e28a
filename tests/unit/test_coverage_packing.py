"""Packing by coverage: a turn close to one already shown gives way to one that says
something else (issue 51, lever 3)."""

from __future__ import annotations

import numpy as np

from graphmem.retrieve.fused.order import Order
from graphmem.retrieve.fused.pipeline import rule_of

from helpers import select_lists


def unit(*rows: list[float]) -> np.ndarray:
    v = np.asarray(rows, dtype=np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


# A, a second mention of A, and B, which says something else
VECTORS = unit([1, 0, 0], [0.95, 0.31, 0], [0, 0, 1])
P = np.asarray([0.9, 0.8, 0.5])


def chosen(**kw: object) -> list[int]:
    return [n for n, _ in select_lists([10, 10, 10], [0, 0, 0], ["s", "s", "t"], P, 20,
                                       0.5, **kw)]  # type: ignore[arg-type]


def test_a_second_mention_gives_way_to_another_fact() -> None:
    assert chosen() == [0, 1]
    assert chosen(vectors=VECTORS, cover=1.0, similar=0.5) == [0, 2]
    # a light penalty is not enough to pass a much likelier turn
    assert chosen(vectors=VECTORS, cover=0.2, similar=0.5) == [0, 1]
    # only closeness beyond ``similar`` counts: at 0.96 the two are not alike enough
    assert chosen(vectors=VECTORS, cover=1.0, similar=0.96) == [0, 1]


def test_without_vectors_or_cover_packing_is_as_before() -> None:
    assert chosen(cover=1.0) == chosen()
    assert chosen(vectors=VECTORS) == chosen()


def test_a_turn_shown_by_its_statement_is_not_like_itself() -> None:
    # candidate 0 goes in by its 4-token statement first (gamma 1: cheap), then whole
    # when its line's turn comes (ahead of B); had its own statement counted as a turn like
    # it, B would have taken the room first
    found = select_lists([10, 10, 10], [0, 0, 0], ["s", "s", "t"], P, 16, 1.0,
                         shorts=[4, None, None], vectors=VECTORS, cover=1.0, similar=0.0)
    assert dict(found) == {0: True}


def test_the_lazy_order_is_the_greedy_order() -> None:
    # every candidate fits: the order shown must be the argmax of the current worth at
    # each step, worth = P * spread ** (session's shown) * (1 - cover * closeness)
    rng = np.random.default_rng(3)
    n, cover, similar, spread = 40, 0.8, 0.3, 0.7
    vectors = unit(*rng.normal(size=(n, 8)).tolist())
    worth = rng.random(n)
    sessions = [f"s{i % 5}" for i in range(n)]
    order = Order([(float(worth[i]), i, 1, True) for i in range(n)], sessions, spread,
                  vectors, cover, similar)
    got = []
    for i, _, _ in order:
        got.append(i)
        order.show(i)
    expected: list[int] = []
    left = set(range(n))
    while left:
        def now(i: int) -> float:
            close = max((float(vectors[i] @ vectors[j]) for j in expected), default=-1.0)
            near = min(1.0, max(0.0, (close - similar) / (1 - similar)))
            taken = sum(sessions[j] == sessions[i] for j in expected)
            return float(worth[i] * spread ** taken * (1 - cover * near))
        best = max(sorted(left), key=now)
        expected.append(best)
        left.remove(best)
    assert got == expected


def test_the_rule_reads_cover_from_the_rankers_file() -> None:
    rule = rule_of({"gamma": 0.5, "cover": [0.6, 0.4]})
    assert (rule.cover, rule.similar) == (0.6, 0.4)
    assert rule_of({"gamma": 0.5}).cover == 0.0
