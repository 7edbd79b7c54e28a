"""What a tuned embedder is worth to `graphmem` (issue 70): the leave-one-dataset-out matrix
with every dev dataset ingested, embedded and searched by an embedder that never saw its
questions, and the ranker refitted on those candidates without the held-out dataset.

    python studies/tuned_models.py --save MODELS ...      # MODELS/without-<dataset>
    python studies/tuned_matrix.py --models MODELS [--plain] [--conversations 8] \
        [--out tuned_matrix.json]

Each dataset D of the matrix (LoCoMo, LongMemEval oracle's 100, FriendsQA dev, QMSum val's
``--conversations``) is ingested with every default layer by ``MODELS/without-D`` (the
events are segmented on its vectors, the scenes averaged from them, every layer embedded by
it) and its questions' candidates collected as ``train-ranker`` collects them. The features
of every dataset are thus out of fold: no embedder scored questions it was trained on. The
shipped recipe (its columns, three seeds, span weights and packing rule) is then refitted
without each dataset and measured on it, by category, evidence and answer recall at 1,000
and 2,000 tokens (``question_type.compare``). With ``--plain`` the same is done on the
packaged MiniLM's candidates (cached by `train-ranker` or `question_type.py`, else collected)
and the two are compared question by question, with the standard error of the difference.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common import make_parser, publish
from question_type import by_category, fitter, load, sets, shipped_columns

from graphmem.config import Settings
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.training import transfer
from graphmem.training.samples import Sample


def tuned_samples(models: Path, conversations: int) -> tuple[list[Sample], list[str]]:
    """Every question's candidates, each dataset's found by the embedder tuned without it,
    and the questions' texts, in ``question_type.load``'s order."""
    for dataset, _path, options in sets(conversations):
        family = str(options.get("family", dataset))
        if not (models / f"without-{family}").exists():
            raise SystemExit(f"no embedder tuned without {family} at {models}")
    return load(conversations,
                lambda family: Settings(embedding_model=str(models / f"without-{family}")))


def measured(samples: list[Sample], rule: Any) -> tuple[dict[str, Any], Any]:
    """The shipped recipe refitted without each dataset: its matrix by category, and each
    question's value (for the paired difference)."""
    learned, plain_p = transfer.held_out(samples, fitter(shipped_columns()), print)
    scores = transfer.packed(samples, learned, plain_p, rule)
    return by_category(samples, scores, rule), transfer.question_values(samples, scores, rule)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--models", type=Path, required=True,
                        help="folder of the embedders tuned without each dataset")
    parser.add_argument("--plain", action="store_true",
                        help="also the packaged MiniLM's matrix, compared question by question")
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    rule = load_ranker().rule
    tuned, texts = tuned_samples(args.models, args.conversations)
    matrix, values = measured(tuned, rule)
    result: dict[str, Any] = {"rule": rule._asdict(), "models": str(args.models),
                              "tuned embedder": matrix}
    if args.plain:
        plain, plain_texts = load(args.conversations)
        assert plain_texts == texts, "the two collections asked other questions"
        result["packaged MiniLM"], before = measured(plain, rule)
        gap, error = transfer.difference(tuned, values, before)
        result["difference"] = {"tuned - packaged": round(gap, 4),
                                "standard_error": round(error, 4)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
