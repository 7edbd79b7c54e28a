"""Do the items of a list find each other? (issue 51, lever 1) A study of the dense source: a
turn's score raised by how well its thread mates answer the question.

    python studies/thread_signal.py [--qmsum-conversations 40] [--out thread_signal.json]

Same data, vectors and measure as `question_adapter.py` (evidence recall within the first k
turns of a conversation ranked for the question, by category, each dev dataset held out in
turn). A turn's thread mates are the m turns of the same speaker nearest to it by vector,
leaving out the three turns either side of it (its own exchange). Its score becomes
``s_i + lambda * mean(s_j for its m mates)``: a turn about the fjords gains when the same
person's turn about Patagonia answers the question well. lambda and m are chosen on the three
training datasets (the mean of their recall @25, each dataset weighing the same) and measured on
the fourth; lambda = 0 is the plain dense ranking.
"""

from __future__ import annotations

import itertools
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from common import make_parser, publish
from question_adapter import SOURCES, Conversation, Item, load_all, ranked_recall

LAMBDAS = (0.0, 0.1, 0.2, 0.35, 0.5)
MATES = (1, 3, 5)
SPAN = 3  # turns either side that are the turn's own exchange, not its thread


def thread_mates(conv: Conversation, most: int) -> np.ndarray:
    """For each turn, its ``most`` nearest turns of the same speaker (-1 where fewer)."""
    n = len(conv.ids)
    sims = conv.vectors @ conv.vectors.T
    speakers = np.array(conv.speakers)
    positions = np.arange(n)
    allowed = (speakers[:, None] == speakers[None, :]) & (
        np.abs(positions[:, None] - positions[None, :]) > SPAN)
    sims = np.where(allowed, sims, -np.inf)
    order = np.argsort(-sims, axis=1, kind="stable")[:, :most]
    found = np.take_along_axis(sims, order, axis=1) > -np.inf
    return np.where(found, order, -1)


def scores(item: Item, conv: Conversation, mates: np.ndarray, lam: float, m: int) -> np.ndarray:
    s: np.ndarray = conv.vectors @ item.question
    if lam == 0.0:
        return s
    chosen = mates[:, :m]
    valid = chosen >= 0  # a turn with fewer mates averages those it has
    total = np.where(valid, s[np.maximum(chosen, 0)], 0.0).sum(axis=1)
    raised: np.ndarray = s + lam * total / np.maximum(valid.sum(axis=1), 1)
    return raised


def recall(items: list[Item], conversations: dict[str, Conversation],
           mates: dict[str, np.ndarray], lam: float, m: int) -> dict[str, dict[str, Any]]:
    return ranked_recall(items, lambda item: scores(
        item, conversations[item.conversation], mates[item.conversation], lam, m))


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--qmsum-conversations", type=int, default=40)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    conversations, items = load_all(args.qmsum_conversations)
    mates = {key: thread_mates(conv, max(MATES)) for key, conv in conversations.items()}
    by_set: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_set[item.dataset].append(item)
    grid = {(lam, m): {name: recall(group, conversations, mates, lam, m)["all"]["@25"]
                       for name, group in by_set.items()}
            for lam, m in itertools.product(LAMBDAS, MATES) if lam > 0 or m == 1}
    result: dict[str, Any] = {"grid_at_25": {f"{lam}/{m}": v for (lam, m), v in grid.items()},
                              "held_out": {}}
    for held in SOURCES:
        others = [name for name in SOURCES if name != held]
        lam, m = max(grid, key=lambda key: (np.mean([grid[key][n] for n in others]), -key[0]))
        result["held_out"][held] = {
            "chosen": {"lambda": lam, "mates": m},
            "baseline": recall(by_set[held], conversations, mates, 0.0, 1),
            "threads": recall(by_set[held], conversations, mates, lam, m)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
