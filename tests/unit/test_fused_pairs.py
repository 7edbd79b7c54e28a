"""Reply pairs: a short reply is scored also through the turn it answers (the ``pair``
feature family), from the turns' vectors the client holds."""

from __future__ import annotations

from datetime import datetime

import numpy as np
import pytest

from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.features import FEATURES, Asked, matrix
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow
from graphmem.retrieve.fused.space_vectors import DenseUnits, SpaceVectors

from helpers import select_lists

COL = {n: i for i, n in enumerate(FEATURES)}


def _table() -> SpaceTurns:
    said = [("s0", "Ana", "Have you been to the new climbing gym?"),
            ("s0", "Ben", "Only twice so far, it's pricey."),
            ("s1", "Ben", "Made soup, staying in bed.")]
    return SpaceTurns([TurnRow(f"t{i}", who, text, None, f"D{i}", i, None, session, i,
                               datetime(2024, 3, 1 + i), None)
                       for i, (session, who, text) in enumerate(said)])


def _signals(vectors: list[list[float]], question: list[float]) -> Signals:
    units = DenseUnits.build(["t0", "t1", "t2"], vectors, [["t0"], ["t1"], ["t2"]])
    return Signals(sources=("vector",), held=SpaceVectors({"vector": units}),
                   question=np.asarray(question, dtype=np.float32))


def test_a_reply_is_read_with_the_turn_it_answers() -> None:
    # the question is about climbing (axis 0); the reply itself is about money (axis 1)
    signals = _signals([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 0, 0])
    x = matrix(_table(), signals, Asked((), (), False, False), [0, 1, 2])
    assert x[1, COL["self:closeness"]] == pytest.approx(0.0)
    # (1 + 0) / |(1, 1, 0)|: the pair reads as half about climbing
    assert x[1, COL["pair:closeness"]] == pytest.approx(1 / np.sqrt(2), abs=1e-6)
    assert x[1, COL["pair:gain"]] == pytest.approx(1 / np.sqrt(2), abs=1e-6)
    # the first turn of a session has nothing before it: its pair is itself
    assert x[0, COL["pair:closeness"]] == pytest.approx(x[0, COL["self:closeness"]]) == 1.0
    assert x[2, COL["pair:gain"]] == 0.0  # session 1 starts: the turn before is not its pair


def test_a_pair_of_the_same_turn_twice_adds_nothing() -> None:
    signals = _signals([[0.6, 0.8, 0], [0.6, 0.8, 0], [0, 0, 1]], [1, 0, 0])
    x = matrix(_table(), signals, Asked((), (), False, False), [1])
    assert x[0, COL["pair:closeness"]] == pytest.approx(0.6, abs=1e-6)
    assert x[0, COL["pair:gain"]] == pytest.approx(0.0, abs=1e-6)


def test_without_the_clients_vectors_the_pair_family_is_zero() -> None:
    x = matrix(_table(), Signals(sources=("bm25",)), Asked((), (), False, False), [0, 1])
    cols = [COL[c] for c in ("self:closeness", "pair:closeness", "pair:gain")]
    assert not x[:, cols].any()


def test_packing_shows_a_short_reply_with_the_short_turn_it_answers() -> None:
    from graphmem.retrieve.fused.pipeline import turns_before

    table = _table()
    before = turns_before(table, [0, 1, 2])
    assert before == [-1, 0, -1]  # the reply's question; session 1 starts afresh
    costs, heads, sessions = [14, 10, 9], [5, 5, 5], ["s0", "s0", "s1"]
    p = np.asarray([0.05, 0.9, 0.3])
    alone = select_lists(costs, heads, sessions, p, 43, 0.5)
    assert [n for n, _ in alone] == [1, 2, 0]  # the question last, on its own worth
    paired = select_lists(costs, heads, sessions, p, 43, 0.5, before=before, pairs=16)
    assert [n for n, _ in paired] == [1, 0, 2]  # the question comes with its reply
    # a reply longer than ``pairs``, or a turn before it dearer than that, goes alone
    assert [n for n, _ in select_lists(costs, heads, sessions, p, 43, 0.5, before=before,
                                 pairs=11)] == [1, 2, 0]
    # nor does the pair overrun the budget: the question does not fit beside the reply
    assert [n for n, _ in select_lists(costs, heads, sessions, p, 20, 0.5, before=before,
                                 pairs=16)] == [1]


def test_vectors_read_anew_after_a_change_of_the_space_are_the_ones_used() -> None:
    table = _table()
    first = matrix(table, _signals([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [1, 0, 0]),
                   Asked((), (), False, False), [1])
    # the client read the space again (a turn was edited): a new set of vectors
    again = matrix(table, _signals([[1, 0, 0], [1, 0, 0], [0, 0, 1]], [1, 0, 0]),
                   Asked((), (), False, False), [1])
    assert first[0, COL["self:closeness"]] == pytest.approx(0.0)
    assert again[0, COL["self:closeness"]] == pytest.approx(1.0)
