"""Does the ranker rank better when it knows what kind of question it ranks for? (issue 51)

    python studies/question_type.py [--conversations 8] [--out question_type.json]

The shipped trees see the question only through products with the turn (a date match, a
when-question times a turn naming a time). Trees can also split on a column that is the same
for every candidate of a question and grow different subtrees below it: one way of weighing
the signals for "What books has Melanie read?" (a list: the named person's turns, anything
close to the kind) and another for "When did she move?". This measures that on the
leave-one-dataset-out matrix, per category, without touching the shipped feature code (so
the cached candidates of `train-ranker` are reused): each question's columns are appended
to its candidates' rows.

The question columns, all read from the question's text as a search reads it
(:func:`graphmem.retrieve.fused.features.analyse`): asks for a list, names a kind, asks when,
asks how many, the number of persons it names, its length, its first word's class (what
or which; who; where; why or how; a yes-no or "would" question; anything else) and whether
it asks for a guess ("would", "likely": LoCoMo's open-domain inferences).

Variants, each fitted without the dataset measured (trees, three seeds, span weights, the
shipped feature set) and packed with the shipped ranker's rule: the shipped recipe; + the
question columns; + the question columns and the ``kind`` family (the closeness to a list
question's kind, left out of the shipped model). Each row: evidence recall and answer recall
at 1,000 and 2,000 tokens per held-out dataset and per category, and each variant's gap to
the shipped recipe with its standard error (questions resampled per dataset, paired).
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
from common import DATA, LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.runner import load_questions, pick
from graphmem.providers.nlp import parse
from graphmem.retrieve.base import Query
from graphmem.retrieve.fused.features import FAMILIES, FEATURES, analyse
from graphmem.retrieve.fused.kinds import question_kind
from graphmem.retrieve.fused.pipeline import PackingRule
from graphmem.retrieve.fused.ranker import TREES_SEPARATOR, load_ranker
from graphmem.training import lambdamart, transfer
from graphmem.training.ranker import LEFT_OUT, collect, row_weights
from graphmem.training.samples import Sample

WH = {"what": 0, "which": 0, "who": 1, "whom": 1, "whose": 1, "where": 2, "why": 3, "how": 3,
      "would": 4, "could": 4, "is": 4, "are": 4, "does": 4, "do": 4, "did": 4, "was": 4,
      "were": 4, "has": 4, "have": 4, "can": 4, "will": 4, "should": 4}
GUESS = re.compile(r"\b(would|likely|might|probably|could)\b", re.IGNORECASE)
QUESTION = ("q:list", "q:kind", "q:when", "q:count", "q:persons", "q:length", "q:wh",
            "q:guess")
BUDGETS = (1000, 2000)


def sets(conversations: int) -> list[tuple[str, Path, dict[str, Any]]]:
    lme = DATA / "longmemeval" / "longmemeval_oracle_dev.json"
    return [("locomo", LOCOMO, {}), ("longmemeval", lme, {"limit": 100}),
            ("locomo", DATA / "friendsqa" / "friendsqa_dev.json", {"family": "friendsqa"}),
            ("locomo", DATA / "qmsum" / "qmsum_val.json.gz",
             {"family": "qmsum", "conversations": conversations})]


def question_columns(text: str) -> list[float]:
    """The question's own columns (``QUESTION``)."""
    doc = parse([text])[0]
    asked = analyse(Query(text, None), None)  # type: ignore[arg-type]  # never embedded
    first = next((t.lower_ for t in doc if not t.is_punct), "")
    return [float(asked.listing), float(question_kind(doc) is not None), float(asked.when),
            float(asked.count), float(min(len(asked.persons), 2)),
            math.log1p(len(doc)) / 4, float(WH.get(first, 5)), float(bool(GUESS.search(text)))]


def load(conversations: int, settings_for: Callable[[str], Settings] | None = None
         ) -> tuple[list[Sample], list[str]]:
    """Every question's cached candidates and the question's text, in the same order; each
    dataset's collected under ``settings_for(its name)`` when given (else the defaults)."""
    samples: list[Sample] = []
    texts: list[str] = []
    for dataset, path, options in sets(conversations):
        family = str(options.get("family", dataset))
        settings = settings_for(family) if settings_for is not None else None
        with Memory(settings, progress=True) as memory:
            found = collect(memory, dataset, path, print, **options)
        asked = pick(load_questions(dataset, path), options.get("limit"), 0,  # type: ignore[arg-type]
                     options.get("conversations"))
        questions = [q for q in asked if q.evidence]
        assert len(questions) == len(found), (path, len(questions), len(found))
        samples += found
        texts += [q.question for q in questions]
    return samples, texts


def extended(samples: Sequence[Sample], texts: Sequence[str]) -> list[Sample]:
    """The samples with their question's columns appended to every candidate's row (the
    shipped columns keep their places, so packing and the unlearned order read them as
    before)."""
    out = []
    for s, text in zip(samples, texts, strict=True):
        q = np.asarray(question_columns(text), dtype=np.float32)
        out.append(replace(s, x=np.hstack([s.x, np.repeat(q[None, :], len(s.y), axis=0)])))
    return out


def raw_scores(boosters: Sequence[Any], x: np.ndarray) -> np.ndarray:
    """The averaged trees' uncalibrated score of each row of ``x``."""
    return np.asarray(np.mean([b.predict(x, num_threads=2) for b in boosters], axis=0))


def fitter(columns: list[int],
           weigh: Callable[[Sequence[Sample]], np.ndarray] = row_weights,
           grade: Callable[[Sequence[Sample]], np.ndarray] | None = None,
           **params: Any) -> transfer.Fit:
    """Trees over ``columns`` of the extended rows (three seeds, ``weigh``: the shipped span
    weights by default; ``grade``: graded labels for the trees, when given; ``params``:
    LightGBM settings replacing the shipped ones), calibrated as the shipped fit is."""
    def fit(part: Sequence[Sample]) -> Any:
        import lightgbm

        x = np.vstack([s.x[:, columns] for s in part]).astype(np.float64)
        y = np.concatenate([s.y for s in part])
        trees, slope, intercept = lambdamart.fit_trees(
            x, y, [len(s.y) for s in part], [f"c{i}" for i in columns],
            weights=weigh(part), params=params, grades=grade(part) if grade else None)
        boosters = [lightgbm.Booster(model_str=t) for t in trees.split(TREES_SEPARATOR)]

        def p(x_full: np.ndarray) -> np.ndarray:
            raw = raw_scores(boosters, x_full[:, columns].astype(np.float64))
            return np.asarray(1 / (1 + np.exp(-(slope * raw + intercept))))
        return p
    return fit


def by_category(samples: Sequence[Sample], scores: Sequence[np.ndarray],
                rule: PackingRule) -> dict[str, Any]:
    """Evidence and answer recall at ``BUDGETS`` per held-out dataset and category."""
    out: dict[str, Any] = {}
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        groups.setdefault(s.dataset, []).append(i)
        groups.setdefault(f"{s.dataset}/{s.category}", []).append(i)
    for name, idx in sorted(groups.items()):
        t = transfer.table([samples[i] for i in idx], [scores[i] for i in idx], rule, BUDGETS)
        out[name] = {"questions": len(idx), "evidence": t["evidence"], "answers": t["answers"]}
    return out


def shipped_columns() -> list[int]:
    """The feature columns the shipped recipe reads (every one but ``LEFT_OUT``'s families)."""
    dropped = {c for family in LEFT_OUT for c in FAMILIES[family]}
    return [i for i, name in enumerate(FEATURES) if name not in dropped]


def shipped_held_out(samples: Sequence[Sample]
                     ) -> tuple[PackingRule, list[np.ndarray], list[np.ndarray]]:
    """The shipped packing rule, and each question's learned and unlearned P from the shipped
    recipe fitted without the question's dataset (what a study after the ranker starts from)."""
    learned, plain_p = transfer.held_out(samples, fitter(shipped_columns()), print)
    return load_ranker().rule, learned, plain_p


def compare(samples: Sequence[Sample], variants: dict[str, transfer.Fit],
            rule: PackingRule) -> dict[str, Any]:
    """Each variant fitted without each dataset and packed with ``rule``: its matrix by
    category and, after the first (the shipped one), its gap to the first with the standard
    error."""
    out: dict[str, Any] = {}
    values: dict[str, np.ndarray] = {}
    first = next(iter(variants))
    for name, fit in variants.items():
        learned, plain_p = transfer.held_out(samples, fit, print)
        scores = transfer.packed(samples, learned, plain_p, rule)
        values[name] = transfer.question_values(samples, scores, rule)
        out[name] = {"matrix": by_category(samples, scores, rule)}
        if name != first:
            gap, error = transfer.difference(samples, values[name], values[first])
            out[name]["vs_shipped"] = {"difference": round(gap, 4),
                                       "standard_error": round(error, 4)}
            print(f"{name} vs {first}: {gap:+.4f} (standard error {error:.4f})")
    return out


def loaded(doc: str | None) -> tuple[argparse.Namespace, list[Sample], list[str]]:
    """A candidate-matrix benchmark's arguments (``--conversations``, ``--out``; ``doc`` its
    help) and the cached candidates and question texts they name."""
    parser = make_parser(doc)
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    samples, texts = load(args.conversations)
    return args, samples, texts


def run(doc: str | None, variants: Callable[[list[int]], dict[str, transfer.Fit]],
        prepare: Callable[[list[Sample], list[str]], list[Sample]] | None = None,
        **extra: Any) -> None:
    """A benchmark's main: the cached candidates of the dev datasets (``--conversations``
    QMSum ones; ``prepare(samples, question texts)`` first, when given), each of
    ``variants(shipped columns)`` compared on them with the shipped packing rule, published
    with ``extra`` (``--out``)."""
    args, samples, texts = loaded(doc)
    if prepare is not None:
        samples = prepare(samples, texts)
    rule = load_ranker().rule
    publish({"rule": rule._asdict(), **extra,
             "variants": compare(samples, variants(shipped_columns()), rule)}, args.out)


def main() -> None:
    kind = [FEATURES.index(c) for c in FAMILIES["kind"]]
    asked = list(range(len(FEATURES), len(FEATURES) + len(QUESTION)))
    run(__doc__, lambda shipped: {
        "shipped recipe": fitter(shipped), "+ question columns": fitter(shipped + asked),
        "+ question columns and kind": fitter(shipped + asked + kind)},
        prepare=extended, question_columns=QUESTION)


if __name__ == "__main__":
    main()
