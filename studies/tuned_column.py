"""The tuned embedder as a second vector (issue 70): its closeness as ranker columns beside the
packaged MiniLM's, every layer left as it is.

    python studies/tuned_column.py --models MODELS [--conversations 8] [--out tuned_column.json]

`tuned_matrix.py` put the tuned embedder in every layer's place and found the matrix no better.
This keeps every layer, source and vector of the packaged MiniLM and hands the trees what the
tuned model says of each candidate turn: its cosine with the question, and its rank among all
the space's turns by that cosine (1 / (1 + rank)). No re-ingest: the packaged MiniLM's cached
candidates (`train-ranker`'s) give the candidates, and the candidates `tuned_matrix.py`
collected from the same conversations (ingested by ``MODELS/without-D``, each turn at the same
row) give the tuned vectors of every turn.

Each row's columns come from the embedder trained without that row's dataset (out of fold, as
a stacked model is trained); the held-out dataset's rows thus from a model that never saw its
questions. Variants (trees, three seeds, span weights, the shipped packing rule, as
`question_type.py`): the shipped recipe; + the two tuned columns. Each: evidence and answer
recall at 1,000 and 2,000 tokens per held-out dataset and category, and the gap with its
standard error.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
from common import make_parser, publish
from question_type import compare, fitter, load, shipped_columns
from tuned_matrix import tuned_samples

from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.retrieve.fused.features import FEATURES
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.training.samples import Sample


def with_tuned(plain: list[Sample], tuned: list[Sample], texts: list[str],
               models: Path) -> list[Sample]:
    """``plain`` with the two tuned columns appended (cosine, reciprocal rank)."""
    out: list[Sample] = []
    embedders: dict[str, SentenceTransformerEmbedder] = {}
    by_dataset: dict[str, list[int]] = {}
    for i, s in enumerate(plain):
        by_dataset.setdefault(s.dataset, []).append(i)
    questions: dict[int, np.ndarray] = {}
    for dataset, idx in by_dataset.items():
        embedders[dataset] = SentenceTransformerEmbedder(str(models / f"without-{dataset}"))
        vectors = embedders[dataset].embed([texts[i] for i in idx])
        questions.update(zip(idx, vectors, strict=True))
    for i, (s, t) in enumerate(zip(plain, tuned, strict=True)):
        assert (s.dataset, s.conversation) == (t.dataset, t.conversation)
        assert s.space_vectors is not None and s.units is not None
        assert t.space_vectors is not None and len(t.space_vectors) == len(s.space_vectors), \
            (s.dataset, s.conversation, "the two spaces hold other turns")
        scores = t.space_vectors @ questions[i]
        rank = np.empty(len(scores), dtype=np.int64)
        rank[np.argsort(-scores, kind="stable")] = np.arange(len(scores))
        units = np.asarray(s.units)
        here = units >= 0
        cosine = np.where(here, scores[np.where(here, units, 0)], 0.0)
        recip = np.where(here, 1.0 / (1.0 + rank[np.where(here, units, 0)]), 0.0)
        columns = np.stack([cosine, recip], axis=1).astype(np.float32)
        out.append(replace(s, x=np.hstack([s.x, columns])))
    return out


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--models", type=Path, required=True,
                        help="folder of the embedders tuned without each dataset")
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    plain, texts = load(args.conversations)
    tuned, tuned_texts = tuned_samples(args.models, args.conversations)
    assert tuned_texts == texts
    samples = with_tuned(plain, tuned, texts, args.models)
    extra = [len(FEATURES), len(FEATURES) + 1]
    rule = load_ranker().rule
    shipped = shipped_columns()
    publish({"rule": rule._asdict(), "variants": compare(samples, {
        "shipped recipe": fitter(shipped),
        "+ tuned cosine and rank": fitter(shipped + extra)}, rule)}, args.out)


if __name__ == "__main__":
    main()
