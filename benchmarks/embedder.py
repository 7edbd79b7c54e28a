"""The embedding model's backends side by side: one question at a time (search) and the turns
of LoCoMo conversations in batches (ingest), with the largest difference of the ONNX vectors
from PyTorch's, and for the 8-bit graph (``onnx-int8``) its cosine to the model's vectors and
how many of each turn's 10 nearest turns stay the same.

    python benchmarks/embedder.py [--limit 2] [--questions 200] [--out embedder.json]

Both run the packaged all-MiniLM-L6-v2 on the CPU with the same batch size; the ONNX graph is
exported into GRAPHMEM_HOME/cache/onnx first if it is not there (not timed). Keep other CPU
work off the machine while it runs.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import numpy as np
from common import LOCOMO, make_parser, publish

from graphmem.config import Settings
from graphmem.eval.datasets import locomo_questions
from graphmem.eval.metrics import percentile
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import SentenceTransformerEmbedder


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=2, help="conversations whose turns to embed")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    turns = [t.text for c in parse_file(args.data, "locomo").conversations[: args.limit]
             for s in c.sessions for t in s.turns]
    questions = [q.question for q in locomo_questions(args.data)][: args.questions]
    settings = Settings()
    result: dict[str, object] = {"turns": len(turns), "questions": len(questions)}
    vectors = {}
    for backend in ("torch", "onnx", "onnx-int8"):
        embedder = SentenceTransformerEmbedder.from_settings(
            settings.model_copy(update={"embedding_backend": backend}))
        embedder.embed(["warm up"])  # load (and export) outside the timing
        took = []
        for question in questions:
            began = time.perf_counter()
            embedder.embed([question])
            took.append((time.perf_counter() - began) * 1000)
        began = time.perf_counter()
        vectors[backend] = embedder.embed(turns)
        seconds = time.perf_counter() - began
        result[backend] = {"question_ms_p50": round(percentile(took, 50), 2),
                           "question_ms_p95": round(percentile(took, 95), 2),
                           "question_ms_mean": round(statistics.fmean(took), 2),
                           "turns_per_second": round(len(turns) / seconds, 1)}
        print(backend, result[backend], flush=True)
    result["max_abs_difference"] = float(np.abs(vectors["torch"] - vectors["onnx"]).max())
    full, small = vectors["onnx"], vectors["onnx-int8"]
    cosine = (full * small).sum(axis=1)
    result["int8_cosine"] = {"min": round(float(cosine.min()), 4),
                             "mean": round(float(cosine.mean()), 4)}
    result["int8_same_top10"] = round(_same_neighbours(full, small, 10), 3)
    publish(result, args.out, indent=1)


def _same_neighbours(a: np.ndarray, b: np.ndarray, k: int) -> float:
    """The mean share of each row's ``k`` nearest other rows that ``a`` and ``b`` agree on."""
    def nearest(v: np.ndarray) -> np.ndarray:
        sims = v @ v.T
        np.fill_diagonal(sims, -np.inf)
        return np.argsort(-sims, axis=1)[:, :k]

    return float(np.mean([len(set(x) & set(y)) / k
                          for x, y in zip(nearest(a), nearest(b), strict=True)]))


if __name__ == "__main__":
    main()
