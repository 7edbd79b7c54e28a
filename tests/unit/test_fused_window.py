"""Evidence comes in stretches: a candidate's P is mixed with the P of the candidates around
it in its session (`retrieve/fused/window.py`), with a width and weight the held-out matrix
chooses (`training/transfer.py`)."""

from __future__ import annotations

import numpy as np
import pytest

from graphmem.errors import ConfigurationError
from graphmem.retrieve.fused.features import FEATURES
from graphmem.retrieve.fused.ranker import from_json
from graphmem.retrieve.fused.window import along
from graphmem.training import transfer
from graphmem.training.samples import Sample


def test_a_stretch_lifts_its_turns_and_a_lone_score_falls() -> None:
    p = np.asarray([0.0, 1.0, 0.0])
    out = along(p, [0, 1, 2], ["s", "s", "s"], 1, 0.5)
    # the middle: (1 + 0.5 * 0 + 0.5 * 0) / 2 = 0.5 around it, half of it mixed in
    assert out[1] == pytest.approx(0.75)
    # either side: (0 + 0.5 * 1) / 1.5 around it
    assert out[0] == pytest.approx(0.5 / 3) and out[2] == pytest.approx(0.5 / 3)
    # a stretch of three likely turns, and a lone spike among unlikely ones
    p = np.asarray([0.1, 0.6, 0.6, 0.6, 0.1, 0.1, 0.7, 0.1, 0.1])
    out = along(p, range(9), ["s"] * 9, 2, 0.5)
    assert int(np.argmax(p)) == 6 and int(np.argmax(out)) in (1, 2, 3)  # the stretch leads
    assert out[6] == pytest.approx(0.5)  # 0.35 + 0.5 * (0.7 + 2 * 0.1 * (2/3 + 1/3)) / 3


def test_sessions_do_not_mix_and_missing_turns_count_for_nothing() -> None:
    # rows 4 and 5 follow one another in the table but belong to two sessions
    out = along(np.asarray([0.0, 1.0]), [4, 5], ["a", "b"], 3, 0.5)
    assert out.tolist() == [0.0, 1.0]
    # a turn that is not a candidate between two is no neighbour's P and no weight
    assert along(np.asarray([0.0, 1.0]), [0, 2], ["s", "s"], 1, 0.5).tolist() == [0.0, 1.0]
    two = along(np.asarray([0.0, 1.0]), [0, 2], ["s", "s"], 2, 0.5)  # 2 away: weight 1/3
    assert two[0] == pytest.approx(0.5 * (1 / 3) / (4 / 3))


def test_the_order_of_the_candidates_does_not_matter() -> None:
    rng = np.random.default_rng(0)
    p, rows = rng.random(40), rng.permutation(100)[:40] + 10
    sessions = [f"s{r // 25}" for r in rows]
    given = rows.copy()
    out = along(p, rows, sessions, 4, 0.3)
    assert (rows == given).all()  # the caller's arrays are left alone
    shuffle = rng.permutation(40)
    again = along(p[shuffle], rows[shuffle], [sessions[i] for i in shuffle], 4, 0.3)
    assert np.allclose(again, out[shuffle])


def test_no_window_is_the_ranker_own_order_and_bad_input_is_refused() -> None:
    p = np.asarray([0.2, 0.4])
    assert along(p, [0, 1], ["s", "s"], 0, 0.5) is p
    assert along(p, [0, 1], ["s", "s"], 8, 0.0) is p
    with pytest.raises(ValueError, match="as long"):
        along(p, [0], ["s", "s"], 8, 0.5)
    data = {"kind": "linear", "features": ["bm25:rr"], "mean": [0.0], "scale": [1.0],
            "coef": [1.0], "intercept": 0.0}
    rule = from_json(data).rule  # a file from before the window
    assert (rule.window, rule.carry) == (0, 0.0)
    rule = from_json({**data, "window": [16, 0.3]}).rule
    assert (rule.window, rule.carry) == (16, 0.3)
    for bad in ([-1, 0.3], [8, 1.5]):
        with pytest.raises(ConfigurationError, match="window"):
            from_json({**data, "window": bad})


def _question(dataset: str, rng: np.random.Generator, stretch: int) -> Sample:
    """60 candidates in one session; the evidence is ``stretch`` turns in a row."""
    y = np.zeros(60, dtype=np.int8)
    start = int(rng.integers(0, 60 - stretch))
    y[start:start + stretch] = 1
    x = np.zeros((60, len(FEATURES)), dtype=np.float32)
    return Sample(dataset, f"{dataset}.json", f"{dataset}{start}", "c", x, y, [50] * 60,
                  [0] * 60, ["s"] * 60, stretch, rows=list(range(60)))


@pytest.mark.parametrize("stretch", [8, 1])
def test_the_matrix_takes_a_window_only_where_evidence_comes_in_stretches(stretch: int) -> None:
    rng = np.random.default_rng(1)
    samples = [_question(d, rng, stretch) for d in ("a", "b") for _ in range(30)]
    # a weak signal under much noise in each turn: only a stretch adds up over its turns
    learned = [np.clip(0.3 + 0.15 * s.y + 0.15 * rng.standard_normal(60), 0, 1)
               for s in samples]
    setting, sweep = transfer.choose(samples, learned, learned)
    assert any("window=" in name for name in sweep)  # every width and weight measured
    if stretch > 1:
        assert setting.window > 0 and setting.carry > 0
        windowed = transfer.report_at(samples, learned, learned, setting)
        alone = transfer.report_at(samples, learned, learned,
                                   setting._replace(window=0, carry=0.0))
        assert windowed["a"]["evidence"]["1000"] > alone["a"]["evidence"]["1000"]
    else:
        assert (setting.window, setting.carry) == (0, 0.0)
