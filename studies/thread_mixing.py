"""A candidate's P raised by its noun threads' P (issue 51, lever 1, after the ranker).

    python studies/thread_mixing.py [--conversations 8] [--out thread_mixing.json]

`argument_threads.py` gave the trees a person's turns tied by shared nouns as columns, and
they learned from three datasets what did not hold on the fourth. The issue's lever 1 also
reads as the window does: mix a candidate's P with its mates' after the ranker, so a list
item the ranker half-trusts is lifted by items of the same thread it trusts more. Here the
mates are `argument_threads.ties` (same speaker, another session, a shared noun or name,
weighed by idf), and the shipped recipe's held-out P of each question becomes

    P_i + lambda * agg_j P_j      (agg: the tie-weighted mean, or the best, over the mates)

before the blend, the window and packing, as a search would apply it. lambda and agg are
chosen on three datasets (the sweep's score, each dataset once) and measured on the fourth;
lambda 0 (the shipped order) is one of the choices. The mean is also tried on list questions
only (``Sample.listing``: the question asks for every item of a kind, as a search reads it
with ``asks_for_list``), with larger lambdas. Reports each setting's score per dataset,
the choice per fold, the chosen matrix by category and its gap to the shipped order with the
standard error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from argument_threads import space_of, ties
from common import publish
from question_type import by_category, loaded, shipped_held_out

from graphmem.client import Memory
from graphmem.training import transfer
from graphmem.training.samples import Sample

LAMBDAS = (0.05, 0.1, 0.2, 0.4)
AGGREGATES = ("mean", "best")
LISTS = (0.1, 0.2, 0.4, 0.8)


def mixed(p: np.ndarray, mates: Sequence[dict[int, float]], weight: float,
          aggregate: str) -> np.ndarray:
    """``p`` raised by ``weight`` times each candidate's mates' P (``aggregate`` of them)."""
    lift = np.zeros_like(p)
    for i, found in enumerate(mates):
        if found:
            j = np.fromiter(found, dtype=np.int64)
            w = np.fromiter(found.values(), dtype=np.float64)
            lift[i] = float(w @ p[j] / w.sum()) if aggregate == "mean" else float(p[j].max())
    return np.asarray(p + weight * lift)


def dataset_means(samples: Sequence[Sample], values: np.ndarray) -> dict[str, float]:
    return {d: float(np.mean([v for s, v in zip(samples, values, strict=True)
                              if s.dataset == d])) for d in sorted({s.dataset for s in samples})}


def main() -> None:
    args, samples, _ = loaded(__doc__)
    rule, learned, plain_p = shipped_held_out(samples)
    with Memory() as memory:
        of = space_of(memory)
        mates = [ties(s, of(s)) for s in samples]
    settings: dict[str, list[np.ndarray]] = {"shipped (lambda 0)": learned}
    for aggregate in AGGREGATES:
        for weight in LAMBDAS:
            settings[f"{aggregate} {weight}"] = [mixed(p, m, weight, aggregate)
                                                 for p, m in zip(learned, mates, strict=True)]
    for weight in LISTS:  # only where the question asks for every item of a kind
        settings[f"mean {weight}, lists only"] = [
            mixed(p, m, weight, "mean") if s.listing else p
            for s, p, m in zip(samples, learned, mates, strict=True)]
    values: dict[str, np.ndarray] = {}
    scores: dict[str, list[np.ndarray]] = {}
    for name, p in settings.items():
        scores[name] = transfer.packed(samples, p, plain_p, rule)
        values[name] = transfer.question_values(samples, scores[name], rule)
        print(name, {d: round(v, 4) for d, v in dataset_means(samples, values[name]).items()})
    datasets = sorted({s.dataset for s in samples})
    chosen: dict[str, str] = {}
    for held in datasets:
        def others(name: str, held: str = held) -> float:
            means = dataset_means(samples, values[name])
            return float(np.mean([v for d, v in means.items() if d != held]))
        chosen[held] = max(settings, key=others)  # the shipped order first: kept on ties
    picked = [scores[chosen[s.dataset]][i] for i, s in enumerate(samples)]
    picked_values = np.asarray([values[chosen[s.dataset]][i] for i, s in enumerate(samples)])
    gap, error = transfer.difference(samples, picked_values, values["shipped (lambda 0)"])
    print(f"chosen per fold {chosen}: {gap:+.4f} (standard error {error:.4f})")
    result: dict[str, Any] = {
        "rule": rule._asdict(), "lambdas": LAMBDAS, "aggregates": AGGREGATES, "lists": LISTS,
        "settings": {name: dataset_means(samples, v) for name, v in values.items()},
        "chosen": chosen, "vs_shipped": {"difference": round(gap, 4),
                                         "standard_error": round(error, 4)},
        "shipped": by_category(samples, scores["shipped (lambda 0)"], rule),
        "chosen_matrix": by_category(samples, picked, rule)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
