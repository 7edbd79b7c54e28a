"""`graphmem-llm`'s reordering: what the LLM marked goes above every other candidate, in the
ranker's order among themselves; the others keep their values."""

from __future__ import annotations

import numpy as np

from graphmem.retrieve.fused.rerank import marked_first


def test_marked_candidates_go_first_in_their_own_order() -> None:
    p = np.array([0.9, 0.05, 0.6, 0.01, 0.3], dtype=np.float32)
    out = marked_first(p, [3, 1, 1])
    assert np.argsort(-out, kind="stable").tolist()[:2] == [1, 3]  # 0.05 before 0.01
    assert out[1] > out[3] > 0.9 and out.max() <= 1.0 and out.dtype == p.dtype
    assert np.array_equal(np.delete(out, [1, 3]), np.delete(p, [1, 3]))
    assert marked_first(p, []) is p
    whole = marked_first(np.array([1.0, 0.2]), [1])  # a candidate at 1 already
    assert whole[1] > whole[0]
