"""Packing by coverage (issue 51, lever 3): once a turn is shown, a turn saying much the same
is worth less, so the budget goes to the other items of a list. Measured on the
leave-one-dataset-out matrix, by category of question.

    python studies/coverage_packing.py [--conversations 8] [--out coverage_packing.json]

The candidates are those `ranker_transfer.py` collects (LoCoMo, LongMemEval oracle 100,
FriendsQA dev, 8 QMSum validation conversations), each with its turn's vector. Every
question's P comes from the shipped recipe (trees on the shipped features, span weights, three
seeds) fitted without the question's dataset, blended and windowed by the shipped packing
rule (`fusion_ranker.json`). Then packing runs once per setting: ``cover`` (how much of its
worth a turn loses when it is as close as can be to a turn shown), ``similar`` (the cosine
below which closeness does not count) and ``scope`` (every question, or only questions asking
for every item of a kind). ``cover = 0`` is today's packing.

Two readings: the whole grid on every held-out dataset (what each setting does where), and
the setting chosen without the dataset it is measured on (the best mean score of the three
other datasets, the score `train-ranker` maximises: evidence recall and "any evidence turn"
at 1,000 and 2,000 tokens), which is the figure a new dataset would see.
"""

from __future__ import annotations

import itertools
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from common import make_parser, publish
from ranker_transfer import samples as collect_samples

from graphmem.retrieve.fused.features import columns, families
from graphmem.retrieve.fused.pipeline import PackingRule
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.training import transfer
from graphmem.training.ranker import LEFT_OUT, fit
from graphmem.training.samples import Sample

COVERS = (0.25, 0.5, 0.75, 1.0)
SIMILARS = (0.3, 0.5, 0.7)
SCOPES = ("all", "lists")
BUDGETS = (500, 1000, 2000, 4000)  # reported
CHOSEN_AT = tuple(int(b) for b in transfer.CHOSEN_AT)  # what settings are chosen on


def rules(shipped: PackingRule) -> dict[str, tuple[PackingRule, str]]:
    out = {"today": (shipped, "all")}
    for cover, similar, scope in itertools.product(COVERS, SIMILARS, SCOPES):
        out[f"cover={cover} similar={similar} {scope}"] = (
            shipped._replace(cover=cover, similar=similar), scope)
    return out


def per_question(data: list[Sample], p: list[np.ndarray], rule: PackingRule, scope: str,
                 shipped: PackingRule, budgets: tuple[int, ...] = CHOSEN_AT) -> np.ndarray:
    """(questions, budgets, 3): evidence recall, any evidence, answer recall (nan: none)."""
    out = np.full((len(data), len(budgets), 3), np.nan)
    for i, (sample, scores) in enumerate(zip(data, p, strict=True)):
        used = rule if scope == "all" or sample.listing else shipped
        for j, budget in enumerate(budgets):
            evidence, anything, answers = transfer.measures(sample, scores, budget, used)
            out[i, j] = (evidence, anything, np.nan if answers is None else answers)
    return out


def score(values: np.ndarray, keep: np.ndarray) -> float:
    """The mean of :func:`question_score` over the questions ``keep`` marks."""
    return float(question_score(values[keep]).mean())


def rows_of(data: list[Sample], values: np.ndarray) -> dict[str, Any]:
    """Per dataset and per dataset and category: questions and the three measures by
    budget, in points."""
    groups: dict[str, list[int]] = defaultdict(list)
    for i, s in enumerate(data):
        groups[s.dataset].append(i)
        groups[f"{s.dataset}/{s.category}"].append(i)
    out = {}
    for name, idx in sorted(groups.items()):
        block = values[idx]
        out[name] = {"questions": len(idx), **{
            measure: {str(b): round(100 * float(np.nanmean(block[:, j, m])), 2)
                      if not np.all(np.isnan(block[:, j, m])) else None
                      for j, b in enumerate(BUDGETS)}
            for m, measure in enumerate(("evidence", "any_evidence", "answers"))}}
    return out


def held_out_p(data: list[Sample]) -> tuple[list[np.ndarray], PackingRule]:
    """Each question's P as a search would pack it, from the shipped recipe fitted without
    the question's dataset, and the shipped packing rule."""
    dropped = {n for family in LEFT_OUT for n in families()[family]}
    every = [i for i, n in enumerate(columns()) if n not in dropped]
    learned, plain_p = transfer.held_out(
        data, lambda part: fit(part, every, weigh=True).probabilities, print)
    shipped = load_ranker().rule
    return transfer.packed(data, learned, plain_p, shipped), shipped


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations (seed 0), as ranker_transfer.py")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    data = collect_samples(args.conversations, False)
    missing = sum(s.vectors is None for s in data)
    print(f"{len(data)} questions, {missing} without turn vectors")
    p, shipped = held_out_p(data)  # cover does not change P
    datasets = sorted({s.dataset for s in data})
    masks = {d: np.asarray([s.dataset == d for s in data]) for d in datasets}
    settings = rules(shipped)
    values = {}
    for name, (rule, scope) in settings.items():
        values[name] = per_question(data, p, rule, scope, shipped)
        print(f"{name}: " + ", ".join(f"{d} {100 * score(values[name], masks[d]):.2f}"
                                      for d in datasets))
    grid = {name: {d: round(100 * score(v, masks[d]), 2) for d in datasets}
            for name, v in values.items()}
    # each dataset measured with the setting the other three chose
    chosen: dict[str, Any] = {}
    full: dict[str, np.ndarray] = {}

    def every_budget(name: str) -> np.ndarray:
        if name not in full:
            rule, scope = settings[name]
            full[name] = per_question(data, p, rule, scope, shipped, BUDGETS)
        return full[name]

    for d in datasets:
        others = [o for o in datasets if o != d]
        best = max(values, key=lambda n: (statistics.fmean(
            score(values[n], masks[o]) for o in others), n == "today"))
        gap, error = transfer.difference(
            [s for s in data if s.dataset == d],
            question_score(values[best][masks[d]]), question_score(values["today"][masks[d]]))
        chosen[d] = {"setting": best, "difference": round(100 * gap, 2),
                     "standard_error": round(100 * error, 2),
                     "today": rows_of([s for s in data if s.dataset == d],
                                      every_budget("today")[masks[d]]),
                     "chosen": rows_of([s for s in data if s.dataset == d],
                                       every_budget(best)[masks[d]])}
        print(f"{d} held out: {best} ({100 * gap:+.2f} +- {100 * error:.2f})")
    publish({"questions": {d: int(masks[d].sum()) for d in datasets},
             "without_vectors": missing, "shipped_rule": shipped._asdict(),
             "score_by_setting": grid, "held_out_choice": chosen,
             "today": rows_of(data, every_budget("today"))}, args.out)


def question_score(values: np.ndarray) -> np.ndarray:
    """Each question's evidence recall and any evidence, averaged at ``CHOSEN_AT`` (``values``
    measured at those budgets): the score ``train-ranker`` maximises."""
    return np.asarray(values[:, :, :2].mean(axis=(1, 2)))


if __name__ == "__main__":
    main()
