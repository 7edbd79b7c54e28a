"""What another embedding backend does to `graphmem` on the leave-one-dataset-out matrix
(issue 50, item 4: `onnx-int8` by measurement, not by default), by category.

    python benchmarks/embedder_matrix.py [--backend onnx-int8] [--conversations 8] \
        [--out embedder_matrix.json]

The baseline is the configured backend: `ranker_transfer.py`'s datasets ingested into their
eval spaces (reused when present) and their candidates collected (cached). Then the same
datasets are ingested again with ``--backend`` (its own eval spaces: a space's name carries
the embedder's name, and a space never mixes models), every question embedded by that
backend too, and the candidates collected again. The shipped recipe is fitted without each
dataset in turn on each side's candidates and measured on it (`composed_vectors.compare`),
with the gap's standard error. Prints the wall seconds of each side's collection, which
include the ingestion when its spaces were not there yet.
"""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

from common import make_parser, publish
from composed_vectors import compare
from ranker_transfer import samples as collect_samples


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
