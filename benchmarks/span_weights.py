"""How much should each evidence turn of a question with many weigh in training? (issue 51)

    python benchmarks/span_weights.py [--conversations 8] [--out span_weights.json]

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
from pathlib import Path

import numpy as np
from common import make_parser, publish
from question_type import compare, fitter, load, shipped_columns

from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.training.samples import Sample


def power(exponent: float) -> Callable[[Sequence[Sample]], np.ndarray]:
    """Row weights with each evidence turn of a question of n weighing 1 / n ** exponent."""
    def weigh(samples: Sequence[Sample]) -> np.ndarray:
        return np.concatenate([np.where(s.y > 0, 1.0 / max(1, int(s.y.sum())) ** exponent, 1.0)
                               for s in samples])
    return weigh


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    samples, _ = load(args.conversations)
    rule = load_ranker().rule
    shipped = shipped_columns()
    variants = {"1/n (shipped)": fitter(shipped), "1/sqrt(n)": fitter(shipped, power(0.5)),
                "1 (none)": fitter(shipped, power(0.0))}
    publish({"rule": rule._asdict(), "variants": compare(samples, variants, rule)}, args.out)


if __name__ == "__main__":
    main()
