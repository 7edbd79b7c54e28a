"""What each choice for the `graphmem` ranker does on datasets it never saw: the
leave-one-dataset-out matrix (trained on every dev dataset but X, measured on X) for a row
of variants, each adding one change to the one before.

    python benchmarks/ranker_transfer.py [--longmemeval-s] [--conversations 8] [--seed 0] \
        [--seeds 3] [--out ranker_transfer.json]

Variants (trees, every one measured the same way, at the gamma the pooled out-of-fold sweep of
the first chose, no blend, no floor):

- ``session 20's features``: without ``says_nothing`` and without the ``position`` family;
- ``+ small talk``: with ``says_nothing``;
- ``+ span weights``: a question's evidence turns share one unit of weight (the shipped
  recipe);
- ``+ monotone``: the trees held to the directions of ``features.MONOTONE``;
- ``+ span weights, position kept``: the ``position`` family back (the shipped model leaves
  it out);
- ``+ span weights, without neighbours``: what the turns either side (the reply pairs) add;
- ``session 21's recipe, questions whole``: the span-weights recipe on candidates gathered
  without splitting questions about several people or things and without the turns closest
  to a list question's kind (so the variant before it, on today's candidates, shows what
  those candidates add; the shipped recipe); ``+ kind features``: the closeness to the kind
  as features (measured, left out of the shipped model); ``+ pair features``: a turn's
  closeness to the question read with the turn before it (reply pairs); ``+ pair and kind
  features``: both; ``+ datasets capped at 500 questions``: a larger dataset (FriendsQA,
  LoCoMo) weighs in training as 500 questions would, so that one dataset's style does not
  rule the trees;
- then, on the shipped recipe, the sweep `graphmem eval train-ranker` chooses from: the
  packing exponent and the blend with the unlearned order (the small-talk floor fixed, and
  measured without), then the window (a candidate's P mixed with its neighbours'), then the
  spread of list questions over sessions, then packing reply pairs together.

The candidates of each question are collected (and cached) as `train-ranker` does, on the
eval spaces of the current settings: LoCoMo, LongMemEval oracle (100 questions), FriendsQA
dev, a sample of whole QMSum validation conversations and, with ``--longmemeval-s``, 100
questions of LongMemEval S. Each matrix row gives evidence recall, any evidence turn and
answer recall at 500 / 1,000 / 2,000 / 4,000 tokens; each variant's gap to the shipped
recipe comes with its standard error (questions resampled per dataset, paired), the yardstick
for "within the noise".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
from common import DATA, LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.retrieve.fused.features import FAMILIES, FEATURES
from graphmem.retrieve.fused.pipeline import PackingRule
from graphmem.training import lambdamart, transfer
from graphmem.training.ranker import best_gamma, collect, fit, folds_of, out_of_fold
from graphmem.training.samples import Sample

CAP = 500  # a dataset weighs at most this many questions (the dev datasets' mean is ~530)


def samples(conversations: int, long_s: bool, split: bool = True) -> list[Sample]:
    lme = DATA / "longmemeval"
    with Memory(progress=True) as memory:
        out = collect(memory, "locomo", LOCOMO, print, split=split)
        out += collect(memory, "longmemeval", lme / "longmemeval_oracle_dev.json", print,
                       limit=100, split=split)
        if long_s:
            out += collect(memory, "longmemeval", lme / "longmemeval_s_dev36.json.gz", print,
                           limit=100, split=split)
        out += collect(memory, "locomo", DATA / "friendsqa" / "friendsqa_dev.json", print,
                       family="friendsqa", split=split)
        out += collect(memory, "locomo", DATA / "qmsum" / "qmsum_val.json.gz", print,
                       family="qmsum", conversations=conversations, split=split)
    return out


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--longmemeval-s", action="store_true")
    parser.add_argument("--seed", type=int, default=0,
                        help="the trees' first seed (the spread between seeds is the noise)")
    parser.add_argument("--seeds", type=int, default=lambdamart.SEEDS,
                        help="fits averaged per model (1: a single fit, as before session 22)")
    parser.add_argument("--variants", default=None,
                        help="only these variants, by name, separated by \";\" (the shipped one "
                             "always runs: the sweep is on it)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    lambdamart.SEED, lambdamart.SEEDS = args.seed, args.seeds
    data = samples(args.conversations, args.longmemeval_s)
    whole = samples(args.conversations, args.longmemeval_s, split=False) if (
        not args.variants or "questions whole" in args.variants) else []
    every = list(range(len(FEATURES)))

    def without(*names: str) -> list[int]:
        dropped = {c for family in names for c in FAMILIES[family]}
        return [i for i in every if FEATURES[i] not in dropped]

    off = ("position", "kind", "pair")  # left out of the shipped model
    variants: list[tuple[str, list[int], dict[str, bool]]] = [
        ("session 20's features", without("smalltalk", *off), {}),
        ("+ small talk", without(*off), {}),
        ("+ span weights", without(*off), {"weigh": True}),
        ("+ monotone", without(*off), {"weigh": True, "monotone": True}),
        ("+ span weights, position kept", without("kind", "pair"), {"weigh": True}),
        ("+ span weights, without neighbours", without("neighbours", *off), {"weigh": True}),
        ("session 21's recipe, questions whole", without(*off), {"weigh": True, "whole": True}),
        ("+ kind features", without("position", "pair"), {"weigh": True}),
        ("+ pair features", without("position", "kind"), {"weigh": True}),
        ("+ pair and kind features", without("position"), {"weigh": True}),
        (f"+ datasets capped at {CAP} questions", without(*off), {"weigh": True, "cap": True}),
    ]
    shipped = "+ span weights"
    quiet = variants[0][1]
    if args.variants:
        wanted = {name.strip() for name in args.variants.split(";")} | {shipped}
        variants = [v for v in variants if v[0] in wanted]
    fold = folds_of(data, 5)
    gamma, _ = best_gamma(data, out_of_fold(data, fold, quiet))
    result: dict[str, Any] = {"questions": {d: sum(s.dataset == d for s in data)
                                            for d in sorted({s.dataset for s in data})},
                              "gamma": gamma, "seed": args.seed, "seeds": args.seeds,
                              "variants": {}}
    kept: tuple[list[np.ndarray], list[np.ndarray]] | None = None
    values: dict[str, np.ndarray] = {}  # each question's share of the score, per variant
    for name, columns, settings in variants:
        def fitted(part: Sequence[Sample], c: list[int] = columns,
                   k: dict[str, bool] = settings) -> Callable[[np.ndarray], np.ndarray]:
            return fit(part, c, weigh=k.get("weigh", False),
                       monotone=k.get("monotone", False),
                       cap=CAP if k.get("cap") else None).probabilities

        rows = whole if settings.get("whole") else data
        learned, plain_p = transfer.held_out(rows, fitted, print)
        matrix = transfer.report(rows, learned, PackingRule(gamma=gamma))
        score = transfer.score(matrix)
        print(f"{name}: {score:.4f}")
        result["variants"][name] = {"score": round(score, 4), "matrix": matrix}
        if not settings.get("whole"):  # the same questions in the same order: paired
            values[name] = transfer.question_values(rows, learned, PackingRule(gamma=gamma))
        if name == shipped:
            kept = (learned, plain_p)
    for name in values:  # against the shipped recipe, with the standard error of the gap
        if name != shipped:
            gap, error = transfer.difference(data, values[name], values[shipped])
            result["variants"][name]["vs_shipped"] = {"difference": round(gap, 4),
                                                      "standard_error": round(error, 4)}
            print(f"{name} - {shipped}: {gap:+.4f} (standard error {error:.4f})")
    assert kept is not None
    chosen, sweep = transfer.choose(data, kept[0], kept[1], print)
    result["chosen"] = chosen._asdict()
    result["matrix"] = transfer.report_at(data, kept[0], kept[1], chosen)
    result["sweep"] = sweep
    # what the window and packing reply pairs together do to each dataset, at the chosen
    # setting otherwise
    result["window"] = {"none": transfer.report_at(data, kept[0], kept[1],
                                                   chosen._replace(window=0, carry=0.0)),
                        **{f"{n} turns, carry {c}": transfer.report_at(
                            data, kept[0], kept[1], chosen._replace(window=n, carry=c))
                           for n in transfer.WINDOWS for c in transfer.CARRIES}}
    result["pairs"] = {str(n): transfer.report_at(data, kept[0], kept[1],
                                                  chosen._replace(pairs=n))
                       for n in (0, *transfer.PAIRS)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
