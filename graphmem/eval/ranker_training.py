"""Training the fused strategy's ranker (`graphmem eval train-ranker`) on development splits.

For every question of the given files, the strategy's own candidate generation runs against
the question's evaluation space (ingested as `graphmem eval` does, and reused) with pools deep
enough for 4,000 tokens; each candidate turn is labelled evidence or not. Validation holds
whole conversations out: fold k holds the k-th LoCoMo conversation (round robin) and every
k-th LongMemEval question's haystack, never questions of one conversation on both sides.

Reported, all out of fold: evidence recall after packing at each budget (per fold, per
dataset, pooled), the packing exponent gamma that gives the most, what leaving out each feature
family costs, and for comparison a pointwise logistic regression and a gradient-boosted model.
The shipped model (listwise, :mod:`listwise`) is then fitted on every question.
"""

from __future__ import annotations

import hashlib
import inspect
import pickle
import statistics
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from graphmem.eval.listwise import fit_listwise
from graphmem.eval.runner import ingest_spaces, load_questions, sample, space_prefix
from graphmem.retrieve import candidates as candidates_module
from graphmem.retrieve import features as features_module
from graphmem.retrieve import statements as statements_module
from graphmem.retrieve.base import Query, RetrievalContext, space_state
from graphmem.retrieve.candidates import OPTIONAL_LAYERS, Pools, gather
from graphmem.retrieve.features import FAMILIES, FEATURES, analyse, candidate_rows, matrix
from graphmem.retrieve.fused import packing_inputs, select
from graphmem.retrieve.ranker import Ranker
from graphmem.retrieve.space_index import space_turns
from graphmem.retrieve.statements import turn_statements

BUDGETS = (500, 1000, 2000, 4000)
GAMMAS = (0.0, 0.25, 0.5, 0.75, 1.0)
Log = Callable[[str], None]
Objective = Literal["listwise", "pointwise"]


@dataclass
class Sample:
    """One question's candidates: features, labels and what packing needs."""

    dataset: str
    split: str  # the file's name: reports are per split
    conversation: str
    category: str
    x: np.ndarray
    y: np.ndarray
    costs: list[int]
    heads: list[int]
    sessions: list[str]
    evidence: int  # gold evidence turns, reached or not
    shorts: list[int | None] = field(default_factory=list)  # statement costs; [] for none


def _version(prefix: str) -> str:
    code = "".join(inspect.getsource(m) for m in (features_module, candidates_module,
                                                   statements_module))
    return hashlib.sha256(f"{prefix}|{FEATURES}|{code}".encode()).hexdigest()[:12]


def collect(memory: Any, dataset: str, data: Path, log: Log = lambda _: None,
            budget: int = max(BUDGETS), limit: int | None = None,
            seed: int = 0) -> list[Sample]:
    """The labelled candidates of every question with evidence in ``data`` (or of the sample
    ``graphmem eval --limit N --seed S`` takes), cached on disk beside the evaluation ledger,
    keyed on the spaces, the sample and the feature code."""
    from tqdm import tqdm

    asked = sample(load_questions(dataset, data), limit, seed)  # type: ignore[arg-type]
    questions = [q for q in asked if q.evidence]
    prefix = space_prefix(dataset, data, memory)  # type: ignore[arg-type]
    name = f"{prefix}-{_version(prefix)}" + (f"-{limit}-{seed}" if limit else "")
    cache = memory.settings.cache_dir / "ranker" / f"{name}.pkl"
    if cache.exists():
        log(f"{dataset}: candidates from {cache}")
        return pickle.loads(cache.read_bytes())  # type: ignore[no-any-return]
    spaces, _ = ingest_spaces(memory, dataset, data,  # type: ignore[arg-type]
                              {q.conversation for q in questions}, True)
    out = []
    pools = Pools().scaled(budget)
    for q in tqdm(questions, desc=f"candidates {dataset}", unit="q"):
        store = memory.store
        ctx = RetrievalContext(store, memory.embedder, Query(q.question, memory.embedder))
        state = space_state(store, spaces[q.conversation], ("turns", *OPTIONAL_LAYERS))
        table = space_turns(store, state)
        signals = gather(ctx, state, table, pools)
        rows = candidate_rows(table, signals)
        x = matrix(table, signals, analyse(ctx.query), rows)
        y = np.asarray([table.rows[r].source_id in q.evidence for r in rows], dtype=np.int8)
        statements = turn_statements(ctx, state, table, rows, signals.held)
        costs, heads, sessions, shorts = packing_inputs(table, rows, statements)
        out.append(Sample(dataset, data.name, q.conversation, q.category, x, y, costs, heads,
                          sessions, len(q.evidence), shorts))
    cache.parent.mkdir(parents=True, exist_ok=True)
    cache.write_bytes(pickle.dumps(out))
    return out


def folds_of(samples: Sequence[Sample], folds: int) -> np.ndarray:
    """Fold of each question: whole conversations, round robin within each dataset (a
    LongMemEval question in two splits, oracle and S, lands in one fold)."""
    seen: dict[tuple[str, str], int] = {}
    count: dict[str, int] = {}
    out = []
    for s in samples:
        key = (s.dataset, s.conversation)
        if key not in seen:
            seen[key] = count.get(s.dataset, 0) % folds
            count[s.dataset] = count.get(s.dataset, 0) + 1
        out.append(seen[key])
    return np.asarray(out)


def fit(samples: Sequence[Sample], columns: Sequence[int], c: float = 1.0,
        objective: Objective = "listwise") -> Ranker:
    """A ranker over ``columns``: by default fitted question by question (:mod:`listwise`);
    ``objective="pointwise"`` fits one logistic regression over every candidate row."""
    from sklearn.linear_model import LogisticRegression

    x = np.vstack([s.x[:, columns] for s in samples]).astype(np.float64)
    y = np.concatenate([s.y for s in samples])
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale = np.where(scale > 1e-9, scale, 1.0)
    z = (x - mean) / scale
    if objective == "listwise":
        coef, intercept = fit_listwise(z, y, [len(s.y) for s in samples], l2=1.0 / c)
    else:
        model = LogisticRegression(C=c, max_iter=2000).fit(z, y)
        coef, intercept = model.coef_[0].copy(), float(model.intercept_[0])
    return Ranker(tuple(FEATURES[i] for i in columns), mean, scale, coef, intercept)


def recall(sample: Sample, p: np.ndarray, budget: int, gamma: float,
           headers: bool = True, statements: bool = False) -> float:
    """Evidence recall after packing; ``statements`` lets a statement stand in for its turn
    (the opt-in recipe `graphmem-statements`)."""
    chosen = select(sample.costs, sample.heads, sample.sessions, p, budget, gamma, headers,
                    sample.shorts if statements and sample.shorts else None)
    return float(sum(int(sample.y[n]) for n, _ in chosen)) / sample.evidence


def out_of_fold(samples: Sequence[Sample], fold: np.ndarray, columns: Sequence[int],
                model: Objective | Literal["gbm"] = "listwise") -> list[np.ndarray]:
    """Each question's P from a model that never saw its conversation: ``model`` is a
    :func:`fit` objective (listwise, pointwise) or "gbm"."""
    scores: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for k in sorted(set(fold.tolist())):
        train = [s for s, f in zip(samples, fold, strict=True) if f != k]
        if model == "listwise" or model == "pointwise":
            ranker = fit(train, columns, objective=model)
            for i in np.flatnonzero(fold == k).tolist():
                scores[i] = ranker.probabilities(samples[i].x)
        else:
            gbm = _fit_gbm(train, columns)
            for i in np.flatnonzero(fold == k).tolist():
                x = samples[i].x[:, columns]
                scores[i] = gbm.predict_proba(x)[:, 1] if len(x) else np.zeros(0)
    return scores


def _fit_gbm(train: Sequence[Sample], columns: Sequence[int]) -> Any:
    from sklearn.ensemble import HistGradientBoostingClassifier

    x = np.vstack([s.x[:, columns] for s in train])
    y = np.concatenate([s.y for s in train])
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.05, max_leaf_nodes=15,
                                          random_state=0).fit(x, y)


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


def train(samples: Sequence[Sample], folds: int, out: Path, sources: list[str],
          log: Log = lambda _: None, ablate: bool = True) -> dict[str, Any]:
    fold = folds_of(samples, folds)
    every = list(range(len(FEATURES)))
    oof = out_of_fold(samples, fold, every)
    sweep = {str(g): recalls(samples, oof, g) for g in GAMMAS}
    gamma = max(GAMMAS, key=lambda g: _mean_recall(sweep[str(g)]))
    log(f"gamma {gamma}: " + ", ".join(f"@{b} {v:.3f}" for b, v in sweep[str(gamma)].items()))
    datasets = sorted({s.split for s in samples})
    of = {d: [s.split == d for s in samples] for d in datasets}
    metrics: dict[str, Any] = {
        "objective": "listwise softmax over each question's candidates, then calibrated",
        "trained_on": sources, "questions": len(samples), "folds": folds,
        "candidates_mean": round(statistics.fmean(len(s.y) for s in samples), 1),
        "evidence_reached": round(sum(int(s.y.sum()) for s in samples)
                                  / sum(s.evidence for s in samples), 4),
        "gamma": gamma, "gamma_sweep": sweep,
        "out_of_fold": {"pooled": sweep[str(gamma)], **{
            d: recalls(samples, oof, gamma, of[d]) for d in datasets}},
        "per_fold": {str(k): recalls(samples, oof, gamma, (fold == k).tolist())
                     for k in range(folds)},
        "day_on_every_line": {d: recalls(samples, oof, gamma, of[d], headers=False)
                              for d in datasets},
    }
    short = {str(g): recalls(samples, oof, g, statements=True) for g in GAMMAS}
    short_gamma = max(GAMMAS, key=lambda g: _mean_recall(short[str(g)]))
    metrics["with_statements"] = {"gamma": short_gamma, "pooled": short[str(short_gamma)], **{
        d: recalls(samples, oof, short_gamma, of[d], statements=True) for d in datasets}}
    if ablate:
        drop: dict[str, Any] = {}
        for family, names in FAMILIES.items():
            kept = [i for i in every if FEATURES[i] not in names]
            scores = out_of_fold(samples, fold, kept)
            drop[family] = {d: recalls(samples, scores, gamma, of[d]) for d in datasets}
            log(f"without {family}: " + "; ".join(
                f"{d} " + ", ".join(f"{v:.3f}" for v in r.values()) for d, r in
                drop[family].items()))
        metrics["without_family"] = drop
        gbm = out_of_fold(samples, fold, every, model="gbm")
        metrics["gbm_out_of_fold"] = {d: recalls(samples, gbm, gamma, of[d])
                                      for d in datasets}
        pointwise = out_of_fold(samples, fold, every, model="pointwise")
        metrics["pointwise_out_of_fold"] = {
            "pooled": recalls(samples, pointwise, gamma),
            **{d: recalls(samples, pointwise, gamma, of[d]) for d in datasets}}
    final = fit(samples, every)
    ranker = Ranker(final.features, final.mean, final.scale, final.coef, final.intercept,
                    gamma, metrics)
    ranker.save(out)
    return metrics
