"""What another embedding backend does to `graphmem` on the leave-one-dataset-out matrix
(issue 50, item 4: `onnx-int8` by measurement, not by default), by category.

    python studies/embedder_matrix.py [--backend onnx-int8] [--conversations 8] \
        [--out embedder_matrix.json]

The baseline is the configured backend: `ranker_transfer.py`'s datasets ingested into their
eval spaces (reused when present) and their candidates collected (cached). Then the same
datasets are ingested again with ``--backend`` (its own eval spaces: a space's name carries
the embedder's name, and a space never mixes models), every question embedded by that
backend too, and the candidates collected again. The shipped recipe is fitted without each
dataset in turn on each side's candidates and measured on it (`compare` below),
with the gap's standard error. Prints the wall seconds of each side's collection, which
include the ingestion when its spaces were not there yet.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import make_parser, publish
from coverage_packing import BUDGETS, held_out_p, per_question, question_score, rows_of
from ranker_transfer import samples as collect_samples

from graphmem.training import transfer
from graphmem.training.samples import Sample


def compare(before: list[Sample], after: list[Sample], old: str, new: str) -> dict[str, Any]:
    """Per held-out dataset: the gap ``new`` - ``old`` in the score (evidence and any evidence
    at 1,000 and 2,000 tokens) with its standard error, and both sides' figures by category,
    each side's recipe fitted without that dataset on its own candidates."""
    assert [(s.dataset, s.conversation, s.category) for s in before] == \
        [(s.dataset, s.conversation, s.category) for s in after]
    out: dict[str, Any] = {}
    figures = {}
    for name, data in ((old, before), (new, after)):
        p, shipped = held_out_p(data)
        figures[name] = per_question(data, p, shipped, "all", shipped, BUDGETS)
    at = [BUDGETS.index(1000), BUDGETS.index(2000)]
    for d in sorted({s.dataset for s in before}):
        mask = np.asarray([s.dataset == d for s in before])
        part = [s for s in before if s.dataset == d]
        gap, error = transfer.difference(part, question_score(figures[new][mask][:, at]),
                                         question_score(figures[old][mask][:, at]))
        out[d] = {"difference": round(100 * gap, 2), "standard_error": round(100 * error, 2),
                  old: rows_of(part, figures[old][mask]), new: rows_of(part, figures[new][mask])}
        print(f"{d}: {new} - {old} {100 * gap:+.2f} +- {100 * error:.2f}")
    return out

def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--backend", default="onnx-int8",
                        choices=("onnx", "onnx-int8", "torch"))
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    configured = os.environ.get("GRAPHMEM_EMBEDDING_BACKEND", "onnx")
    began = time.perf_counter()
    before = collect_samples(args.conversations, False)
    seconds = {configured: round(time.perf_counter() - began, 1)}
    os.environ["GRAPHMEM_EMBEDDING_BACKEND"] = args.backend  # read by the next Memory()
    began = time.perf_counter()
    after = collect_samples(args.conversations, False)
    seconds[args.backend] = round(time.perf_counter() - began, 1)
    result: dict[str, Any] = {"baseline": configured, "backend": args.backend,
                              "collect_seconds": seconds,
                              "datasets": compare(before, after, configured, args.backend)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
