"""How much of the answer the labelled evidence holds, against what the context holds (issue 51).

    python studies/answer_ceiling.py [--conversations 8] [--out answer_ceiling.json]

Issue 51 asks for evidence recall on the gathering questions and for answer recall to rise
with it. The two can only rise together as far as the labelled evidence turns hold the
answer's words. This refits the shipped recipe without each dataset (the cached candidates
of `train-ranker`, three seeds, span weights, the shipped packing rule, as
`question_type.py`), packs each question at 1,000 and 2,000 tokens, and reports per held-out
dataset and category, in % (answer figures: the share of the gold answer's words found,
:func:`graphmem.eval.metrics.answer_words`):

- ``evidence``: evidence recall of the context;
- ``answers``: answer recall of the context (the matrix's figure);
- ``answers from evidence``: of it, the words found in the context's evidence turns;
- ``answers from the rest``: the words found only in its other turns;
- ``all evidence``: the answer recall of every labelled evidence turn together, whatever the
  budget (what a context of exactly the evidence would reach);
- ``any candidate``: of every candidate together (what any packing of them could reach).

When ``answers`` is near or above ``all evidence``, more evidence recall can only raise answer
recall by the gap, and only if the turns it displaces held none of the answer.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

import numpy as np
from common import publish
from question_type import BUDGETS, loaded, shipped_held_out

from graphmem.retrieve.fused.pipeline import PackingRule, select
from graphmem.training import transfer
from graphmem.training.samples import Sample


def _words(s: Sample, picked: Sequence[int]) -> float:
    """The share of ``s``'s answer words found in the candidates ``picked``."""
    found: frozenset[str] = frozenset().union(*(s.found[n] for n in picked))
    return len(found) / s.words


def question(s: Sample, p: np.ndarray, budget: int, rule: PackingRule) -> dict[str, float]:
    """One question's figures (the module's list) at ``budget``."""
    chosen = [n for n, _ in select(s, p, budget, rule)]
    evidence = [n for n in chosen if s.y[n] > 0]
    return {"evidence": len(evidence) / s.evidence,
            "answers": _words(s, chosen),
            "answers from evidence": _words(s, evidence),
            "answers from the rest": _words(s, chosen) - _words(s, evidence),
            "all evidence": _words(s, np.flatnonzero(s.y > 0).tolist()),
            "any candidate": _words(s, range(len(s.y)))}


def ceilings(samples: Sequence[Sample], scores: Sequence[np.ndarray],
             rule: PackingRule) -> dict[str, Any]:
    """The figures per held-out dataset and category, averaged over the questions that have
    answer words, at each of ``BUDGETS``."""
    groups: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        if s.words and s.found:
            groups.setdefault(s.dataset, []).append(i)
            groups.setdefault(f"{s.dataset}/{s.category}", []).append(i)
    out: dict[str, Any] = {}
    for name, idx in sorted(groups.items()):
        out[name] = {"questions": len(idx)}
        for budget in BUDGETS:
            rows = [question(samples[i], scores[i], budget, rule) for i in idx]
            out[name][str(budget)] = {k: round(100 * statistics.fmean(r[k] for r in rows), 1)
                                      for k in rows[0]}
    return out


def main() -> None:
    args, samples, _ = loaded(__doc__)
    rule, learned, plain_p = shipped_held_out(samples)
    scores = transfer.packed(samples, learned, plain_p, rule)
    publish({"rule": rule._asdict(), "held_out": ceilings(samples, scores, rule)}, args.out)


if __name__ == "__main__":
    main()
