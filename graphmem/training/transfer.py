"""Leave-one-dataset-out validation of the fused ranker: the yardstick for conversations
unlike the training data.

For each development dataset X (LoCoMo, LongMemEval, FriendsQA, QMSum: whichever were given)
the ranker is fitted on every other dataset and measured on X after packing, at each budget:
evidence recall, "any evidence turn in the context" (the measure for long span evidence) and
answer recall (the gold answer's words found in the chosen turns). The rows of this matrix
are what choices are made on, never figures within one dataset.

Two choices are made here, on the matrix:

- ``blend``: P = (1 - w) P_learned + w P_plain, where P_plain is the unlearned order
  (:func:`~graphmem.retrieve.fused.features.unlearned`, every source's depth averaged) mapped
  to a probability by a one-feature logistic fit; a conversation unlike the training data
  then falls back towards what every source agrees on;
- ``floor`` (fixed, ``FLOOR``; its cost measured): packing orders turns that say nothing
  (greetings, thanks, laughter: the ``says_nothing`` feature) by
  P / max(tokens, floor) ** gamma, so such a turn is never chosen for its cheapness alone
  (a "hi!" of three tokens); a short reply that says something keeps its low cost;
- ``spread``: for a question that asks for every item of a kind, a turn's worth shrinks by
  this factor for each turn of its session already shown (coverage across sessions);
- ``pairs``: a reply of at most this many tokens is shown with the turn it answers when that
  is as cheap (reply pairs read together);
- ``window`` and ``carry``: P is mixed with the mean P of the candidates at most ``window``
  turns away in the same session, with weight ``carry``
  (:func:`~graphmem.retrieve.fused.window.along`): evidence comes in stretches.

The packing exponent gamma and the blend weight are chosen together for the highest mean
held-out figure at 1,000 and 2,000 tokens (:func:`score`; each held-out dataset counted once,
whatever its size), settings within one standard error of it counting as tied (see
:func:`choose`); then the same with each window (a window can move the best gamma), then
the spread, then the pairs. Given the settings in use today (the ``guard``), no setting is
chosen that scores more than ``BOUND`` below them on any one held-out dataset: the best mean
may not be bought by one dataset's loss.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from graphmem.retrieve.fused.features import unlearned
from graphmem.retrieve.fused.pipeline import PackingRule, select, shaped
from graphmem.training.samples import Sample

BUDGETS = (500, 1000, 2000, 4000)
CHOSEN_AT = ("1000", "2000")
GAMMAS = (0.5, 0.75, 1.0)
WEIGHTS = (0.0, 0.15, 0.3)
# small talk counts as at least a one-sentence line (issue #39: packing must never choose a
# turn for its cheapness alone); a fixed rule, not a choice: the matrix measures its cost
FLOOR = 24
SPREADS = (0.8, 0.6)  # tried after the rest; 1.0 (none) was measured
PAIRS = (16, 32)  # tried last; 0 (never) is the setting before
WINDOWS = (4, 8, 16, 32)  # turns either side; 0 (none) is the setting before
CARRIES = (0.15, 0.3, 0.45)  # the neighbourhood's weight in P
# twelve windows are tried at once, so the best of them leads by chance more often than one
# setting would: a window must beat none by two standard errors, not one
WINDOW_ERRORS = 2.0
BOOTSTRAP = 200  # resamples of each dataset's questions for a difference's standard error
# a change to the packing may cost any one held-out dataset at most this much of its score
# against the settings in use (issue #50: half a point)
BOUND = 0.005


Fit = Callable[[Sequence[Sample]], Callable[[np.ndarray], np.ndarray]]


def measures(sample: Sample, p: np.ndarray, budget: int,
             rule: PackingRule) -> tuple[float, float, float | None]:
    """Evidence recall, any evidence (0 or 1) and answer recall (None without answer words)
    of the turns packing chooses within ``budget`` under ``rule`` (the pipeline's own
    :func:`~graphmem.retrieve.fused.pipeline.select`)."""
    chosen = [n for n, _ in select(sample, p, budget, rule)]
    found = sum(int(sample.y[n]) for n in chosen)
    answers = None
    if sample.words and sample.found:
        answers = len(frozenset().union(*(sample.found[n] for n in chosen))) / sample.words
    return found / sample.evidence, float(found > 0), answers


def table(samples: Sequence[Sample], scores: Sequence[np.ndarray], rule: PackingRule,
          budgets: Sequence[int] = BUDGETS) -> dict[str, dict[str, float]]:
    """Mean evidence recall, any evidence and answer recall at each budget."""
    out: dict[str, dict[str, float]] = {"evidence": {}, "any_evidence": {}, "answers": {}}
    for budget in budgets:
        rows = [measures(s, p, budget, rule) for s, p in zip(samples, scores, strict=True)]
        out["evidence"][str(budget)] = round(statistics.fmean(r[0] for r in rows), 4)
        out["any_evidence"][str(budget)] = round(statistics.fmean(r[1] for r in rows), 4)
        said = [r[2] for r in rows if r[2] is not None]
        out["answers"][str(budget)] = round(statistics.fmean(said), 4) if said else float("nan")
    return out


def plain_model(samples: Sequence[Sample]) -> tuple[float, float]:
    """Slope and intercept mapping the unlearned order to P(evidence) on these rows."""
    from sklearn.linear_model import LogisticRegression

    u = np.concatenate([unlearned(s.x) for s in samples])
    y = np.concatenate([s.y for s in samples])
    model = LogisticRegression(max_iter=1000).fit(u[:, None], y)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


def plain(sample: Sample, slope: float, intercept: float) -> np.ndarray:
    return np.asarray(1 / (1 + np.exp(-(slope * unlearned(sample.x) + intercept))))


def held_out(samples: Sequence[Sample], fit: Fit,
             log: Callable[[str], None] = lambda _: None
             ) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each question's learned P and unlearned P from models fitted without its dataset."""
    learned: list[np.ndarray] = [np.zeros(0)] * len(samples)
    unlearned_p: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for dataset in sorted({s.dataset for s in samples}):
        train = [s for s in samples if s.dataset != dataset]
        if not train:
            continue
        log(f"held out: {dataset} (fitted on {len(train)} questions of the others)")
        model = fit(train)
        slope, intercept = plain_model(train)
        for i, s in enumerate(samples):
            if s.dataset == dataset:
                learned[i] = model(s.x)
                unlearned_p[i] = plain(s, slope, intercept)
    return learned, unlearned_p


def plain_out_of_fold(samples: Sequence[Sample], fold: np.ndarray) -> list[np.ndarray]:
    """Each question's unlearned P, its calibration fitted without the question's fold."""
    out: list[np.ndarray] = [np.zeros(0)] * len(samples)
    for k in sorted(set(fold.tolist())):
        slope, intercept = plain_model([s for s, f in zip(samples, fold, strict=True)
                                        if f != k])
        for i in np.flatnonzero(fold == k).tolist():
            out[i] = plain(samples[i], slope, intercept)
    return out


def by_split(samples: Sequence[Sample], scores: Sequence[np.ndarray],
             rule: PackingRule) -> dict[str, Any]:
    """:func:`table` for each split (file) of the samples."""
    out = {}
    for split in sorted({s.split for s in samples}):
        keep = [i for i, s in enumerate(samples) if s.split == split]
        out[split] = table([samples[i] for i in keep], [scores[i] for i in keep], rule)
    return out


def blended(learned: Sequence[np.ndarray], plain_p: Sequence[np.ndarray],
            weight: float) -> list[np.ndarray]:
    return [(1 - weight) * a + weight * b for a, b in zip(learned, plain_p, strict=True)]


def packed(samples: Sequence[Sample], learned: Sequence[np.ndarray],
           plain_p: Sequence[np.ndarray], rule: PackingRule) -> list[np.ndarray]:
    """The P packing reads under ``rule``: blended, then shaped by the window as a search
    shapes it (:func:`~graphmem.retrieve.fused.pipeline.shaped`)."""
    return [shaped(p, s, rule) for s, p in
            zip(samples, blended(learned, plain_p, rule.blend), strict=True)]


def report(samples: Sequence[Sample], scores: Sequence[np.ndarray], rule: PackingRule,
           budgets: Sequence[int] = BUDGETS) -> dict[str, Any]:
    """The matrix: one row per held-out dataset (only the datasets that were held out)."""
    out = {}
    for dataset in sorted({s.dataset for s in samples}):
        keep = [i for i, s in enumerate(samples) if s.dataset == dataset and len(scores[i])]
        if keep:
            out[dataset] = {"questions": len(keep),
                            **table([samples[i] for i in keep], [scores[i] for i in keep],
                                    rule, budgets)}
    return out


def report_at(samples: Sequence[Sample], learned: Sequence[np.ndarray],
              plain_p: Sequence[np.ndarray], rule: PackingRule) -> dict[str, Any]:
    """:func:`report` of the P packing reads under ``rule``."""
    return report(samples, packed(samples, learned, plain_p, rule), rule)


def score(matrix: dict[str, Any]) -> float:
    """What the choices maximise: held-out evidence recall and "any evidence turn in the
    context", averaged, at 1,000 and 2,000 tokens, each dataset once (whole-span recall
    alone would reward packing a span's cheap fillers, "OK." and "Mm-hmm.")."""
    return statistics.fmean((row["evidence"][b] + row["any_evidence"][b]) / 2
                            for row in matrix.values() for b in CHOSEN_AT)


def question_values(samples: Sequence[Sample], scores: Sequence[np.ndarray],
                    rule: PackingRule) -> np.ndarray:
    """Each question's share of :func:`score`: its evidence recall and any evidence,
    averaged over 1,000 and 2,000 tokens (the blend and the window are in the scores)."""
    out = []
    for sample, p in zip(samples, scores, strict=True):
        figures = [measures(sample, p, int(b), rule) for b in CHOSEN_AT]
        out.append(statistics.fmean((e + a) / 2 for e, a, _ in figures))
    return np.asarray(out)


def difference(samples: Sequence[Sample], a: np.ndarray,
               b: np.ndarray) -> tuple[float, float]:
    """How far per-question values ``a`` (:func:`question_values`) are ahead of ``b`` on
    the held-out score (each dataset once), and the standard error of that difference (the
    questions of each dataset resampled, paired, ``BOOTSTRAP`` times, as :func:`choose`)."""
    groups = [np.flatnonzero([s.dataset == d for s in samples])
              for d in sorted({s.dataset for s in samples})]
    diff = a - b
    rng = np.random.default_rng(0)

    def mean(picks: list[np.ndarray]) -> float:
        return float(np.mean([diff[idx].mean() for idx in picks]))

    boots = [mean([rng.choice(g, len(g)) for g in groups]) for _ in range(BOOTSTRAP)]
    return mean(groups), float(np.std(boots))


def choose(samples: Sequence[Sample], learned: Sequence[np.ndarray],
           plain_p: Sequence[np.ndarray],
           log: Callable[[str], None] = lambda _: None, guard: PackingRule | None = None,
           bound: float = BOUND,
           record: dict[str, Any] | None = None) -> tuple[PackingRule, dict[str, Any]]:
    """The packing exponent, blend weight and floor with the best held-out matrix, then the
    same with a window over the neighbouring turns (every window at every exponent and blend
    weight), then the spread of list questions, then the reply pairs; and the score of every
    one measured.

    The floor is ``FLOOR``, not chosen; the setting without it is measured beside the
    chosen one. A setting whose score is below the best's by less than one standard error
    of the difference (the questions of each dataset resampled, ``BOOTSTRAP`` times,
    paired) is a tie: the matrix cannot tell them apart. A tie is won by the smaller gamma
    (a line's cheapness counts least), then the smaller weight. The best window is taken only
    when it beats the best setting without one by ``WINDOW_ERRORS`` standard errors; then of
    the settings with a window tied with it, the smaller gamma wins, then the smaller blend,
    then the smaller carry, then the narrower window (the least change to the ranker's own
    order). A spread is taken only when it beats the chosen setting by more than its
    standard error; so are the pairs.

    With a ``guard`` (the settings in use), a choice scoring more than ``bound`` below the
    guard on any held-out dataset is refused, and the best setting measured that keeps every
    dataset within it is taken instead (ties as above); the guard itself always qualifies.
    ``record``, when given, receives the guard, the bound, how many settings were refused
    (and whether the best mean was), and each dataset's score under the guard, the best
    mean and the choice."""
    groups = [np.flatnonzero([s.dataset == d for s in samples])
              for d in sorted({s.dataset for s in samples})]
    rng = np.random.default_rng(0)
    draws = [[rng.choice(g, len(g)) for g in groups] for _ in range(BOOTSTRAP)]
    values: dict[PackingRule, np.ndarray] = {}
    scores: dict[str, float] = {}

    def mean(v: np.ndarray, picks: list[np.ndarray]) -> float:
        return float(np.mean([v[idx].mean() for idx in picks]))

    def measure(setting: PackingRule) -> float:
        values[setting] = question_values(samples, packed(samples, learned, plain_p, setting),
                                          setting)
        scores[key(setting)] = round(mean(values[setting], groups), 4)
        log(f"{key(setting)}: {scores[key(setting)]:.4f}")
        return mean(values[setting], groups)

    def ahead(a: PackingRule, b: PackingRule, errors: float = 1.0) -> bool:
        """Whether ``a`` beats ``b`` by more than ``errors`` standard errors."""
        diff = values[a] - values[b]
        spread = np.std([mean(diff, picks) for picks in draws])
        return bool(mean(diff, groups) > errors * spread)

    grid = [PackingRule(gamma=g, blend=w, floor=FLOOR) for g in GAMMAS for w in WEIGHTS]
    point = {s: measure(s) for s in grid}
    top = max(grid, key=lambda s: point[s])
    tied = [s for s in grid if not ahead(top, s)]
    best = min(tied, key=lambda s: (s.gamma, s.blend))
    measure(best._replace(floor=0))  # what the floor costs, for the record
    # every window at every gamma and blend: a window moves which gamma is best
    windows = [s._replace(window=n, carry=c) for s in grid for n in WINDOWS for c in CARRIES]
    point = {s: measure(s) for s in windows}
    top = max(windows, key=lambda s: point[s])
    if ahead(top, best, WINDOW_ERRORS):
        best = min((s for s in windows if not ahead(top, s)),
                   key=lambda s: (s.gamma, s.blend, s.carry, s.window))
    for spread in SPREADS:
        setting = best._replace(spread=spread)
        measure(setting)
        if ahead(setting, best):
            best = setting
    chosen = best
    for pairs in PAIRS:
        setting = chosen._replace(pairs=pairs)
        measure(setting)
        if ahead(setting, best):
            best = setting
    if guard is not None:
        if record is not None:
            record["datasets"] = sorted({s.dataset for s in samples})
        best = _bounded(best, guard, bound, values, groups, measure, ahead, log, record)
    return best, scores


def _order(s: PackingRule) -> tuple[float, ...]:
    """The tie-break of :func:`choose`: the least change to the ranker's own order first."""
    return (s.gamma, s.blend, s.carry, s.window, -s.spread, s.pairs)


def _bounded(best: PackingRule, guard: PackingRule, bound: float,
             values: dict[PackingRule, np.ndarray], groups: list[np.ndarray],
             measure: Callable[[PackingRule], float],
             ahead: Callable[[PackingRule, PackingRule], bool], log: Callable[[str], None],
             record: dict[str, Any] | None) -> PackingRule:
    """``best``, or when it costs some held-out dataset more than ``bound`` against
    ``guard``, the best measured setting that does not (see :func:`choose`)."""
    if guard not in values:
        measure(guard)

    def per(s: PackingRule) -> list[float]:
        return [float(values[s][idx].mean()) for idx in groups]

    floor = [v - bound for v in per(guard)]

    def keeps(s: PackingRule) -> bool:
        return all(v >= f - 1e-12 for v, f in zip(per(s), floor, strict=True))

    refused = [s for s in values if not keeps(s)]
    chosen = best
    if not keeps(best):
        # the setting without the small-talk floor is measured for the record, never chosen
        kept = [s for s in values if keeps(s) and s.floor == guard.floor]
        top = max(kept, key=lambda s: statistics.fmean(per(s)))
        chosen = min((s for s in kept if not ahead(top, s)), key=_order)
        log(f"bound: {key(best)} costs a dataset over {100 * bound:.1f} points against "
            f"{key(guard)}; chose {key(chosen)}")
    if record is not None:
        record.update({"guard": key(guard), "bound": bound, "refused": len(refused),
                       "unbounded": key(best), "unbounded_refused": best in refused,
                       "per_dataset": {key(s): [round(v, 4) for v in per(s)]
                                       for s in dict.fromkeys((guard, best, chosen))}})
    return chosen


def key(setting: PackingRule) -> str:
    """A setting's name in the sweep."""
    gamma, weight, floor, spread, pairs, window, carry, cover, similar = setting
    return (f"gamma={gamma} w={weight} floor={floor} spread={spread}"
            + (f" pairs={pairs}" if pairs else "")
            + (f" window={window} carry={carry}" if window and carry else "")
            + (f" cover={cover} similar={similar}" if cover else ""))
