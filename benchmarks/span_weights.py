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
from typing import Any

import numpy as np
from common import make_parser, publish
from question_type import by_category, fitter, load

from graphmem.retrieve.fused.features import FAMILIES, FEATURES
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.training import transfer
from graphmem.training.ranker import row_weights
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
    dropped = {c for family in ("position", "kind", "pair") for c in FAMILIES[family]}
    shipped = [i for i, name in enumerate(FEATURES) if name not in dropped]
    variants: dict[str, Callable[[Sequence[Sample]], np.ndarray]] = {
        "1/n (shipped)": row_weights, "1/sqrt(n)": power(0.5), "1 (none)": power(0.0)}
    result: dict[str, Any] = {"rule": rule._asdict(), "variants": {}}
    values: dict[str, np.ndarray] = {}
    for name, weigh in variants.items():
        learned, plain_p = transfer.held_out(samples, fitter(shipped, weigh), print)
        scores = transfer.packed(samples, learned, plain_p, rule)
        values[name] = transfer.question_values(samples, scores, rule)
        result["variants"][name] = {"matrix": by_category(samples, scores, rule)}
        if name != "1/n (shipped)":
            gap, error = transfer.difference(samples, values[name], values["1/n (shipped)"])
            result["variants"][name]["vs_shipped"] = {"difference": round(gap, 4),
                                                      "standard_error": round(error, 4)}
            print(f"{name} vs shipped: {gap:+.4f} (standard error {error:.4f})")
    publish(result, args.out)


if __name__ == "__main__":
    main()
