"""The turns' vectors a client holds, brought up to date with the turns appended since it read
them: each new turn in the place of its id, a turn it holds already kept as it is."""

from __future__ import annotations

import numpy as np

from graphmem.retrieve.fused.space_vectors import DenseUnits, with_appended


def test_appended_turns_join_in_the_order_of_their_ids() -> None:
    held = DenseUnits.build(["b", "d"], [[3.0, 4.0], [0.0, 2.0]], [["b"], ["d"]], ["hb", "hd"])
    grown = with_appended(held, [["c", "hc", [1.0, 0.0]], ["a", "ha", [0.0, 5.0]],
                                 ["b", "other", [1.0, 1.0]]])
    assert grown.ids == ["a", "b", "c", "d"]
    assert grown.turn_ids == [["a"], ["b"], ["c"], ["d"]]
    assert grown.hashes == ["ha", "hb", "hc", "hd"]  # b is held already: kept as it was
    assert np.allclose(grown.vectors, [[0, 1], [0.6, 0.8], [1, 0], [0, 1]])
    whole = DenseUnits.build(["a", "b", "c", "d"], [[0.0, 5.0], [3.0, 4.0], [1.0, 0.0],
                                                    [0.0, 2.0]],
                             [["a"], ["b"], ["c"], ["d"]], ["ha", "hb", "hc", "hd"])
    query = np.asarray([0.3, 0.9], dtype=np.float32)
    assert grown.nearest(query, 3) == whole.nearest(query, 3)
    assert with_appended(grown, [["a", "ha", [0.0, 5.0]]]) is grown
