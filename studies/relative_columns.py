"""Columns measured against the question's other candidates (issue 51).

    python studies/relative_columns.py [--conversations 8] [--out relative_columns.json]

The trees are trained on three datasets and judged on the fourth, and every score column they
split on has its own scale in each dataset: BM25 grows with a conversation's vocabulary, a
meeting's turns are long and a chat's short, the MemDecider's salience sits higher in some
conversations than in others. A threshold learned on FriendsQA and QMSum ("salience above
0.5", "vector closeness above 0.4") then cuts LoCoMo in the wrong place. Session 34 found the
gathering questions' missed turns to be the named person's most salient ones; what carries
between datasets may be "among this question's candidates, one of the most salient", not
"salient above some level".

This appends, for each score column (every source's score, the salience, the session's best,
the turn's length), the candidate's place among its question's candidates: the share of them
it scores above (ties counted half; 0 when all tie). The variants (trees, three seeds, the
shipped span weights and packing rule, as `question_type.py`): the shipped recipe; + the
places; the places instead of the raw scores. Each: evidence and answer recall at 1,000 and
2,000 tokens per held-out dataset and category, and the gap to the shipped recipe with its
standard error. The calibration stays the one logistic fit over the trees' scores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from question_type import fitter, run

from graphmem.retrieve.fused.features import FEATURES
from graphmem.retrieve.fused.sources import BUILT_IN
from graphmem.training import transfer
from graphmem.training.samples import Sample

SCORED = (*(f"{s.name}:score" for s in BUILT_IN), "salience", "session:best", "log_tokens")
COLUMNS = tuple(f"place:{name}" for name in SCORED)
_AT = [FEATURES.index(name) for name in SCORED]


def places(x: np.ndarray) -> np.ndarray:
    """Each row's share of the other rows it scores above, per column of ``x`` (a tie counts
    half). A column on which every row ties gives 0, as a source that reached no candidate
    does."""
    n = len(x)
    out = np.zeros(x.shape, dtype=np.float32)
    if n < 2:
        return out
    for c in range(x.shape[1]):
        column = x[:, c]
        if np.all(column == column[0]):
            continue
        order = np.sort(column)
        below = np.searchsorted(order, column, side="left")
        tied = np.searchsorted(order, column, side="right") - below - 1
        out[:, c] = (below + 0.5 * tied) / (n - 1)
    return out


def with_places(samples: Sequence[Sample], texts: Sequence[str]) -> list[Sample]:
    """The samples with each score column's place appended (``COLUMNS``, after the shipped
    columns, which keep their places for packing and the unlearned order)."""
    del texts
    return [replace(s, x=np.hstack([s.x, places(s.x[:, _AT])])) for s in samples]


def main() -> None:
    added = list(range(len(FEATURES), len(FEATURES) + len(COLUMNS)))

    def variants(shipped: list[int]) -> dict[str, transfer.Fit]:
        raw = set(_AT)
        return {"shipped recipe": fitter(shipped),
                "+ places": fitter(shipped + added),
                "places instead of scores": fitter([c for c in shipped if c not in raw]
                                                   + added)}
    run(__doc__, variants, prepare=with_places, columns=COLUMNS)


if __name__ == "__main__":
    main()
