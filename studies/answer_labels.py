"""Turns that hold the answer's words as a second grade of label (issue 51).

    python studies/answer_labels.py [--conversations 8] [--out answer_labels.json]

`answer_ceiling.py` found that on LoCoMo's gathering questions the context already holds
about as many of the gold answer's words as every labelled evidence turn together: the
evidence labels are sparse, and a list's other mentions ("I'm reading a fantasy novel called
...") answer without being labelled. The trees learn only from the labels, so what they learn
of "a turn that answers" stops where the labels stop. This gives the trees a second grade:
an unlabelled candidate that holds the answer's words is graded 1, the evidence 2, the rest 0
(the calibration still maps the trees' score to P(evidence), so packing is unchanged). The
grade-1 rows keep the weight of other turns.

Variants (refitted without each dataset, three seeds, the shipped span weights and packing
rule, as `question_type.py`): the shipped recipe; grade 1 for a turn holding any of the
answer's words; grade 1 for a turn holding at least half of them; the latter with grade 1
worth less to LambdaMART than its default (a gain of 0.25 or 0.5 against 3 for evidence, where
the default is 1; ``label_gain``), so the evidence keeps most of the pull. Each: evidence and answer
recall at 1,000 and 2,000 tokens per held-out dataset and category (measured against the
evidence labels and the answer words as always), and the gap to the shipped recipe with its
standard error. A gain in answer recall paid for in evidence recall is not a gain (the
issue's rule), nor is the reverse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from question_type import fitter, run

from graphmem.training import transfer
from graphmem.training.samples import Sample

GAINS = (0.25, 0.5)  # grade 1's worth to LambdaMART in the gentler variants (evidence: 3)


def grades(share: float) -> Callable[[Sequence[Sample]], np.ndarray]:
    """Every row's grade: 2 for evidence, 1 for another candidate holding at least one of its
    question's answer words and at least ``share`` of them, 0 otherwise."""
    def grade(part: Sequence[Sample]) -> np.ndarray:
        out = []
        for s in part:
            g = np.where(s.y > 0, 2, 0).astype(np.int32)
            if s.words and s.found:
                held = np.array([len(f) / s.words for f in s.found])
                g[(s.y <= 0) & (held > 0) & (held >= share)] = 1
            out.append(g)
        return np.concatenate(out)
    return grade


def main() -> None:
    def variants(shipped: list[int]) -> dict[str, transfer.Fit]:
        return {"shipped recipe": fitter(shipped),
                "+ grade 1: any answer word": fitter(shipped, grade=grades(0.0)),
                "+ grade 1: half the answer words": fitter(shipped, grade=grades(0.5)),
                **{f"+ grade 1: half, gain {gain}": fitter(shipped, grade=grades(0.5),
                                                           label_gain=[0.0, gain, 3.0])
                   for gain in GAINS}}
    run(__doc__, variants)


if __name__ == "__main__":
    main()
