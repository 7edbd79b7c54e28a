"""How much should each evidence turn of a question with many weigh in training? (issue 51)

    python studies/span_weights.py [--conversations 8] [--out span_weights.json]

The shipped recipe gives a question's evidence turns one unit of weight between them (a
48-turn QMSum span weighs what a one-turn answer does; session 21). A list question's items
are then each worth 1/n of a single answer, on top of LambdaMART's own normalisation of each
question by its best possible order, which already shrinks the pairs of a question with many
evidence turns. This refits the shipped recipe without each dataset (the cached candidates,
three seeds, the shipped packing rule) with each evidence turn weighing 1/sqrt(n) instead of
1/n, and with 1 (no span weights), and reports the matrix per category as
`question_type.py` does, with each gap to the shipped weights and its standard error.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from question_type import fitter, run

from graphmem.training.samples import Sample


def power(exponent: float) -> Callable[[Sequence[Sample]], np.ndarray]:
    """Row weights with each evidence turn of a question of n weighing 1 / n ** exponent."""
    def weigh(samples: Sequence[Sample]) -> np.ndarray:
        return np.concatenate([np.where(s.y > 0, 1.0 / max(1, int(s.y.sum())) ** exponent, 1.0)
                               for s in samples])
    return weigh


def main() -> None:
    run(__doc__, lambda shipped: {"1/n (shipped)": fitter(shipped),
                                  "1/sqrt(n)": fitter(shipped, power(0.5)),
                                  "1 (none)": fitter(shipped, power(0.0))})


if __name__ == "__main__":
    main()
