"""Training the fused strategy's ranker (`graphmem eval train-ranker`) on development splits.

For every question of the given files, the strategy's own candidate generation runs against
the question's evaluation space (ingested as `graphmem eval` does, and reused) with pools deep
enough for 4,000 tokens; each candidate turn is labelled evidence or not. Validation holds
whole conversations out: fold k holds the k-th LoCoMo conversation (round robin) and every
k-th LongMemEval question's haystack, never questions of one conversation on both sides.

Reported, all out of fold: evidence recall after packing at each budget (per fold, per
dataset, pooled), the packing exponent gamma that gives the most, what leaving out each feature
family costs, and for comparison the linear listwise ranker's. The shipped model (trees,
:mod:`lambdamart`, unless ``--objective`` says otherwise) is then fitted on every question.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import statistics
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any, Literal

import numpy as np

from graphmem.eval.datasets import Question
from graphmem.eval.metrics import WORD, answer_words
from graphmem.eval.runner import ingest_spaces, load_questions, pick, space_prefix
from graphmem.retrieve import cues as cues_module
from graphmem.retrieve import occasions
from graphmem.retrieve import times as times_module
from graphmem.retrieve.base import Query, RetrievalContext, space_state
from graphmem.retrieve.fused import candidates as candidates_module
from graphmem.retrieve.fused import features as features_module
from graphmem.retrieve.fused import kinds as kinds_module
from graphmem.retrieve.fused import parts as parts_module
from graphmem.retrieve.fused import pipeline as pipeline_module
from graphmem.retrieve.fused import smalltalk as smalltalk_module
from graphmem.retrieve.fused import sources as sources_module
from graphmem.retrieve.fused import space_index as space_index_module
from graphmem.retrieve.fused import statements as statements_module
from graphmem.retrieve.fused.candidates import optional_layers
from graphmem.retrieve.fused.features import columns, families
from graphmem.retrieve.fused.features import monotone as direction
from graphmem.retrieve.fused.pipeline import PackingRule, candidates, header, select
from graphmem.retrieve.fused.ranker import LinearRanker, Ranker, TreeRanker
from graphmem.retrieve.fused.sources import Pools
from graphmem.retrieve.fused.space_index import TurnRow, space_turns
from graphmem.training import lambdamart
from graphmem.training import samples as samples_module
from graphmem.training.lambdamart import fit_trees
from graphmem.training.listwise import fit_listwise
from graphmem.training.samples import Sample

BUDGETS = (500, 1000, 2000, 4000)
# feature families the shipped model does without (docs/results-graphmem.md): `position` (a
# session's place in time, a turn's in its session) rewards one dataset's layout and raised the
# held-out matrix when left out; `kind` (closeness to a list question's kind) and `pair` (a
# reply read with the turn before it) raised the matrix a little without blend or floor (0.28
# points, 1.6 standard errors), but at the shipped settings not at all (84.43 against 84.46)
# and LoCoMo held out fell from 86.1 to 85.6 @1000 (session 23)
LEFT_OUT = ("position", "kind", "pair")
GAMMAS = (0.0, 0.25, 0.5, 0.75, 1.0)
Log = Callable[[str], None]
Objective = Literal["trees", "listwise", "pointwise"]


def feature_families() -> tuple[str, ...]:
    """The names a ranker can be trained without (``--without``)."""
    return tuple(families())


def _version(prefix: str) -> str:
    code = "".join(inspect.getsource(m) for m in (features_module, candidates_module,
                                                   statements_module, space_index_module,
                                                   smalltalk_module, cues_module,
                                                   parts_module, kinds_module, occasions,
                                                   pipeline_module, samples_module,
                                                   sources_module, times_module))
    return hashlib.sha256(f"{prefix}|{columns()}|{code}".encode()).hexdigest()[:12]


def collect(memory: Any, dataset: str, data: Path, log: Log = lambda _: None,
            budget: int = max(BUDGETS), limit: int | None = None,
            seed: int = 0, family: str | None = None,
            conversations: int | None = None, split: bool = True) -> list[Sample]:
    """The labelled candidates of every question with evidence in ``data`` (or of the sample
    ``graphmem eval --limit N --seed S`` takes; or, with ``conversations``, of that many whole
    conversations drawn with ``seed``), cached on disk beside the evaluation ledger, keyed on
    the spaces, the sample and the feature code. ``family`` names the dataset in reports (a
    file in LoCoMo's shape may be FriendsQA or QMSum); the loader's name by default. Without
    ``split``, questions are asked whole (no parts, no kind: what they add is measured so)."""
    from tqdm import tqdm

    asked = pick(load_questions(dataset, data), limit, seed,  # type: ignore[arg-type]
                 conversations)
    questions = [q for q in asked if q.evidence]
    prefix = space_prefix(dataset, data, memory)  # type: ignore[arg-type]
    name = (f"{prefix}-{_version(prefix)}" + (f"-{limit}-{seed}" if limit else "")
            + (f"-c{conversations}-{seed}" if conversations else "")
            + ("" if split else "-whole"))
    cache = memory.settings.cache_dir / "ranker" / f"{name}.pkl"
    if cache.exists():
        log(f"{dataset}: candidates from {cache}")
        return pickle.loads(cache.read_bytes())  # type: ignore[no-any-return]
    spaces, _ = ingest_spaces(memory, dataset, data,  # type: ignore[arg-type]
                              {q.conversation for q in questions}, True)
    pools = Pools().scaled(budget)
    out = [labelled(memory, spaces[q.conversation], q, pools, split, family or dataset,
                    data.name)
           for q in tqdm(questions, desc=f"candidates {dataset}", unit="q")]
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(out))
    return out


def shown(turn: TurnRow) -> str:
    """A candidate as a context shows it: under its session's header, with its resolved
    times (what answer recall reads)."""
    return f"{header(turn)} {turn.shown()}"


def labelled(memory: Any, space: str, q: Question, pools: Pools, split: bool = True,
             dataset: str = "", file: str = "") -> Sample:
    """One question's candidates, found by the pipeline a search runs
    (:func:`~graphmem.retrieve.fused.pipeline.candidates`, with every statement), each
    labelled evidence or not, with the answer's words each holds."""
    ctx = RetrievalContext(memory.store, memory.embedder, Query(q.question, memory.embedder),
                           caches=memory.caches)
    state = space_state(memory.store, space, ("turns", *optional_layers()))
    table = space_turns(memory.store, state, memory.caches)
    found = candidates(ctx, state, table, pools, split=split, statements=True)
    y = np.asarray([table.rows[r].source_id in q.evidence for r in found.rows], dtype=np.int8)
    words = answer_words(q.answer, q.question)
    hits = [frozenset(words.intersection(WORD.findall(shown(table.rows[r]).lower())))
            for r in found.rows]
    return Sample.of(found, y, dataset, file, q.conversation, q.category, len(q.evidence),
                     len(words), hits)


def folds_of(samples: Sequence[Sample], folds: int) -> np.ndarray:
    """Fold of each question: whole conversations, round robin within each dataset, each
    dataset starting one fold further than the one before (so that datasets of one
    conversation each do not all land in fold 0); a LongMemEval question in two splits,
    oracle and S, lands in one fold."""
    seen: dict[tuple[str, str], int] = {}
    count: dict[str, int] = {}
    start: dict[str, int] = {}
    out = []
    for s in samples:
        key = (s.dataset, s.conversation)
        if key not in seen:
            start.setdefault(s.dataset, len(start))
            seen[key] = (start[s.dataset] + count.get(s.dataset, 0)) % folds
            count[s.dataset] = count.get(s.dataset, 0) + 1
        out.append(seen[key])
    return np.asarray(out)


def row_weights(samples: Sequence[Sample], cap: int | None = None) -> np.ndarray:
    """Each row's training weight: a question's evidence turns share one unit between them
    (a 48-turn QMSum span weighs what a one-turn answer does); other turns weigh 1. With
    ``cap``, a dataset of more questions than that weighs as if it had ``cap`` (each of its
    questions scaled down alike; a smaller dataset is never weighed up)."""
    sizes: dict[str, int] = {}
    for s in samples:
        sizes[s.dataset] = sizes.get(s.dataset, 0) + 1
    out = []
    for s in samples:
        positives = max(1, int(s.y.sum()))
        scale = min(1.0, cap / sizes[s.dataset]) if cap else 1.0
        out.append(scale * np.where(s.y > 0, 1.0 / positives, 1.0))
    return np.concatenate(out)


def fit(samples: Sequence[Sample], chosen: Sequence[int], c: float = 1.0,
        objective: Objective = "trees", weigh: bool = False,
        monotone: bool = False, cap: int | None = None) -> Ranker:
    """A ranker over the ``chosen`` columns (of ``features.columns()``): by default trees
    fitted for the order within each question (:mod:`lambdamart`; ``weigh``:
    :func:`row_weights`, with the datasets capped at ``cap`` questions' weight;
    ``monotone``: held to the directions of ``features.monotone``); ``listwise`` a linear
    model fitted question by question (:mod:`listwise`, ``c`` its inverse penalty);
    ``pointwise`` one logistic regression over every candidate row."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([s.x[:, chosen] for s in samples]).astype(np.float64)
    y = np.concatenate([s.y for s in samples])
    names = tuple(columns()[i] for i in chosen)
    if objective == "trees":
        trees, slope, intercept = fit_trees(
            x, y, [len(s.y) for s in samples], names,
            weights=row_weights(samples, cap) if weigh else None,
            monotone=[direction(n) for n in names] if monotone else None)
        return TreeRanker(features=names, trees=trees, slope=slope, intercept=intercept)
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = (x - mean) / scale
    if objective == "listwise":
        coef, b = fit_listwise(z, y, [len(s.y) for s in samples], l2=1.0 / c)
    else:
        model = LogisticRegression(C=c, max_iter=2000).fit(z, y)
        coef, b = model.coef_[0].copy(), float(model.intercept_[0])
    return LinearRanker(features=names, mean=mean, scale=scale, coef=coef, intercept=b)


def recall(sample: Sample, p: np.ndarray, budget: int, gamma: float,
           headers: bool = True, statements: bool = False) -> float:
    """Evidence recall after packing; ``statements`` lets a statement stand in for its turn
    (the opt-in recipe `graphmem-statements`)."""
    chosen = select(sample, p, budget, PackingRule(gamma=gamma), headers, statements)
    return float(sum(int(sample.y[n]) for n, _ in chosen)) / sample.evidence


def out_of_fold(samples: Sequence[Sample], fold: np.ndarray, columns: Sequence[int],
                objective: Objective = "trees", **settings: bool) -> list[np.ndarray]:
    """Each question's P from a model (of :func:`fit`'s ``objective`` and ``settings``) that
    never saw its conversation."""
    scores: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for k in sorted(set(fold.tolist())):
        ranker = fit([s for s, f in zip(samples, fold, strict=True) if f != k], columns,
                     objective=objective, **settings)
        for i in np.flatnonzero(fold == k).tolist():
            scores[i] = ranker.probabilities(samples[i].x)
    return scores


def recalls(samples: Sequence[Sample], scores: Sequence[np.ndarray], gamma: float,
            mask: Sequence[bool] | None = None, headers: bool = True,
            statements: bool = False) -> dict[str, float]:
    """Mean recall at each budget over the questions ``mask`` keeps (all by default)."""
    keep = mask if mask is not None else [True] * len(samples)
    out = {}
    for budget in BUDGETS:
        values = [recall(s, p, budget, gamma, headers, statements)
                  for s, p, k in zip(samples, scores, keep, strict=True) if k]
        out[str(budget)] = round(statistics.fmean(values), 4) if values else float("nan")
    return out


def _mean_recall(r: dict[str, float]) -> float:
    return statistics.fmean(r.values())


OBJECTIVES: dict[str, str] = {
    "trees": "LambdaMART trees (LightGBM lambdarank) over each question's candidates, "
             "then calibrated",
    "listwise": "linear, listwise softmax over each question's candidates, then calibrated",
    "pointwise": "linear, one logistic regression over every candidate row",
}


def best_gamma(samples: Sequence[Sample], scores: Sequence[np.ndarray],
                statements: bool = False) -> tuple[float, dict[str, dict[str, float]]]:
    """The packing exponent with the most pooled recall, and the sweep."""
    sweep = {str(g): recalls(samples, scores, g, statements=statements) for g in GAMMAS}
    return max(GAMMAS, key=lambda g: _mean_recall(sweep[str(g)])), sweep


def train(samples: Sequence[Sample], folds: int, out: Path, sources: list[str],
          log: Log = lambda _: None, ablate: bool = True,
          objective: Objective = "trees", weigh: bool = False,
          monotone: bool = False, left_out: Sequence[str] = (),
          guard: PackingRule | None = None, bound: float | None = None) -> dict[str, Any]:
    """Measure out of fold, then fit the shipped model (``objective``; ``weigh`` and
    ``monotone`` as :func:`fit`) on every question and write it to ``out``. With more than
    one dataset, the leave-one-dataset-out matrix (:mod:`transfer`) chooses the blend with
    the unlearned order and the packing floor. Beside it, for comparison, the held-out
    recall of the linear listwise ranker (of the trees when the shipped model is linear);
    ``ablate`` also refits without each feature family; ``left_out`` names families the
    shipped model does without; ``guard``, the packing settings in use, bounds what the
    matrix may choose (no held-out dataset more than ``bound`` below them,
    :data:`~graphmem.training.transfer.BOUND` by default)."""
    from graphmem.training import transfer

    fold = folds_of(samples, folds)
    names = columns()
    dropped = {name for family in left_out for name in families()[family]}
    every = [i for i, name in enumerate(names) if name not in dropped]
    settings = {"weigh": weigh, "monotone": monotone}
    oof = out_of_fold(samples, fold, every, objective, **settings)
    gamma, sweep = best_gamma(samples, oof)
    log(f"gamma {gamma}: " + ", ".join(f"@{b} {v:.3f}" for b, v in sweep[str(gamma)].items()))
    datasets = sorted({s.split for s in samples})
    of = {d: [s.split == d for s in samples] for d in datasets}

    def by_split(scores: Sequence[np.ndarray], g: float, **kw: bool) -> dict[str, Any]:
        return {d: recalls(samples, scores, g, of[d], **kw) for d in datasets}

    metrics: dict[str, Any] = {
        "objective": OBJECTIVES[objective], **settings, "left_out": list(left_out),
        "seeds": lambdamart.SEEDS if objective == "trees" else None,
        "trained_on": sources, "questions": len(samples), "folds": folds,
        "candidates_mean": round(statistics.fmean(len(s.y) for s in samples), 1),
        "evidence_reached": round(sum(int(s.y.sum()) for s in samples)
                                  / sum(s.evidence for s in samples), 4),
        "gamma": gamma, "gamma_sweep": sweep,
        "out_of_fold": {"pooled": sweep[str(gamma)], **by_split(oof, gamma)},
        "per_fold": {str(k): recalls(samples, oof, gamma, (fold == k).tolist())
                     for k in range(folds)},
        "day_on_every_line": by_split(oof, gamma, headers=False),
    }
    short_gamma, short = best_gamma(samples, oof, statements=True)
    metrics["with_statements"] = {"gamma": short_gamma, "pooled": short[str(short_gamma)],
                                  **by_split(oof, short_gamma, statements=True)}
    other: Objective = "listwise" if objective != "listwise" else "trees"
    compared = out_of_fold(samples, fold, every, other)
    other_gamma, other_sweep = best_gamma(samples, compared)
    metrics[f"{other}_out_of_fold"] = {"gamma": other_gamma,
                                       "pooled": other_sweep[str(other_gamma)],
                                       **by_split(compared, other_gamma)}
    if ablate:
        drop: dict[str, Any] = {}
        for family, its in families().items():
            if family in left_out:
                continue
            kept = [i for i in every if names[i] not in its]
            drop[family] = by_split(out_of_fold(samples, fold, kept, objective, **settings),
                                    gamma)
            log(f"without {family}: " + "; ".join(
                f"{d} " + ", ".join(f"{v:.3f}" for v in r.values()) for d, r in
                drop[family].items()))
        metrics["without_family"] = drop
    rule = PackingRule(gamma=gamma)
    if len({s.dataset for s in samples}) > 1:
        learned, plain_p = transfer.held_out(
            samples, lambda part: fit(part, every, objective=objective,
                                      **settings).probabilities, log)
        bounded: dict[str, Any] = {}
        rule, sweep = transfer.choose(
            samples, learned, plain_p, log, guard,
            transfer.BOUND if bound is None else bound, bounded)
        metrics["gamma"] = rule.gamma  # chosen on the matrix, not on the pooled folds
        metrics["leave_one_dataset_out"] = {
            **rule._asdict(),
            "matrix": transfer.report_at(samples, learned, plain_p, rule),
            "learned_alone": transfer.report(samples, learned, PackingRule(gamma=rule.gamma)),
            "sweep": sweep, **({"bounded": bounded} if bounded else {})}
        # the shipped settings within each dataset, out of fold
        metrics["out_of_fold_shipped"] = transfer.by_split(
            samples, transfer.packed(samples, oof, transfer.plain_out_of_fold(samples, fold),
                                     rule), rule)
    slope, intercept = transfer.plain_model(samples)
    ranker = replace(fit(samples, every, objective=objective, **settings), rule=rule,
                     blend_fit=(slope, intercept), metrics=metrics)
    ranker.save(out)
    return metrics
