"""Which pairs the trees learn from (issue 51).

    python studies/rank_objective.py [--conversations 8] [--out rank_objective.json]

LambdaMART weighs a pair of candidates by how much swapping them changes the question's NDCG,
counting only pairs with one side among the first ``lambdarank_truncation_level`` (60 in the
shipped recipe), and then scales each question's pairs to one unit (``lambdarank_norm``).
Evidence recall within a budget is flat inside what the budget holds (~30 turns at 1,000
tokens, ~55 at 2,000) and zero beyond it, and the gathering questions' missed turns sit at
ranks 80-170 (session 28). This refits the shipped recipe without each dataset with a
shorter and a longer truncation and without the per-question scaling (a question with ten
evidence turns then weighs more than one with one), and reports the matrix by category with
each variant's gap to the shipped recipe.
"""

from __future__ import annotations

from question_type import fitter, run

from graphmem.training import lambdamart


def main() -> None:
    run(__doc__, lambda shipped: {
        "shipped (truncation 60, scaled)": fitter(shipped),
        "truncation 30": fitter(shipped, lambdarank_truncation_level=30),
        "truncation 150": fitter(shipped, lambdarank_truncation_level=150),
        "not scaled per question": fitter(shipped, lambdarank_norm=False)},
        params=dict(lambdamart.PARAMS))


if __name__ == "__main__":
    main()
