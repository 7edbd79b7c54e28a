"""A cross-encoder trained on `graphmem`'s own candidate lists (issue 70): does reading the
question and the turn together reorder what the ranker already holds?

    python studies/cross_column.py [--top 20] [--per-dataset 300] [--conversations 8] \
        [--out cross_column.json]

Session 40 found the tuned embedder's gain absorbed by the fusion: what stands between a
gathering question and its evidence is the order among candidates `graphmem` already found.
So this cross-encoder (the packaged MiniLM's encoder with a fresh one-logit head, reading
``question [SEP] date, speaker: turn``) learns from the ranker's own mistakes: for each
question of the training datasets, its evidence candidates against the non-evidence
candidates the shipped recipe (fitted without that question's dataset) placed highest.

Leave-one-dataset-out throughout: for each dataset D, a cross-encoder trained on the three
others' questions scores D's candidates, so every row's score comes from a model that never
saw its dataset (out of fold, as a stacked model is trained). Only each question's first
``--top`` candidates by the held-out shipped recipe are read (what a second stage would
read at search time); the others get no score (missing to the trees). Variants (trees, three
seeds, span weights, the shipped packing rule, as `question_type.py`): the shipped recipe;
+ the cross-encoder's logit and its reciprocal rank among the top. Needs the ``train`` extra
and the eval spaces `train-ranker` collected from (the turns' text is read from them).
"""

from __future__ import annotations

import random
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import make_parser, publish
from question_type import compare, fitter, load, sets, shipped_columns, shipped_held_out
from tuned_models import CrossEncoder, _step

from graphmem import Memory
from graphmem.eval.runner import space_prefix
from graphmem.retrieve.fused.features import FEATURES
from graphmem.retrieve.fused.ranker import load_ranker
from graphmem.retrieve.fused.space_index import read_space_turns
from graphmem.training.samples import Sample


def candidate_lines(samples: list[Sample]) -> list[list[str]]:
    """Each sample's candidates as the cross-encoder reads them: ``date, speaker: text``."""
    lines: dict[str, list[str]] = {}
    out: list[list[str]] = []
    with Memory() as memory:
        prefixes = {options.get("family", dataset): space_prefix(dataset, path, memory)  # type: ignore[arg-type]
                    for dataset, path, options in sets(0)}
        for s in samples:
            name = f"{prefixes[s.dataset]}-{s.conversation}"
            if name not in lines:
                table = read_space_turns(memory.store, name)
                if not table.rows:
                    raise SystemExit(f"space {name} holds no turns: collect the candidates "
                                     "again (graphmem train-ranker)")
                lines[name] = [f"{r.date_text or ''}, {r.line}" for r in table.rows]
            out.append([lines[name][r] for r in s.rows])
    return out


def training_rows(samples: list[Sample], lines: list[list[str]], texts: list[str],
                  order: list[np.ndarray], per_dataset: int, seed: int
                  ) -> list[tuple[str, str, float]]:
    """(question, candidate, is evidence): per question at most three evidence candidates and
    three non-evidence ones drawn from the ten the first stage placed highest."""
    rng = random.Random(seed)
    by_dataset: dict[str, list[int]] = {}
    for i, s in enumerate(samples):
        if s.y.any():
            by_dataset.setdefault(s.dataset, []).append(i)
    rows: list[tuple[str, str, float]] = []
    for idx in by_dataset.values():
        for i in rng.sample(idx, min(per_dataset, len(idx))):
            s, ranked = samples[i], order[i]
            good = [int(n) for n in ranked if s.y[n]]
            bad = [int(n) for n in ranked if not s.y[n]][:10]
            for n in good[:3]:
                rows.append((texts[i], lines[i][n], 1.0))
            for n in rng.sample(bad, min(3, len(bad))):
                rows.append((texts[i], lines[i][n], 0.0))
    rng.shuffle(rows)
    return rows


def train(rows: list[tuple[str, str, float]], seed: int = 0) -> CrossEncoder:
    torch.manual_seed(seed)
    ce = CrossEncoder()
    optimiser = torch.optim.AdamW(ce.model.parameters(), lr=3e-5, weight_decay=0.01)
    ce.model.train()
    for start in range(0, len(rows), 32):
        batch = rows[start:start + 32]
        logits = ce.logits([r[0] for r in batch], [r[1] for r in batch])
        _step(optimiser, torch.nn.functional.binary_cross_entropy_with_logits(
            logits, torch.tensor([r[2] for r in batch])))
    return ce


def with_cross(samples: list[Sample], texts: list[str], top: int, per_dataset: int,
               log: dict[str, Any]) -> list[Sample]:
    """``samples`` with two columns: the cross-encoder's logit of each of the first ``top``
    candidates (NaN for the rest) and its reciprocal rank among them (0 for the rest)."""
    lines = candidate_lines(samples)
    _, learned, _ = shipped_held_out(samples)
    order = [np.argsort(-p, kind="stable") for p in learned]
    columns: list[np.ndarray] = [np.zeros((0, 2))] * len(samples)
    for held in sorted({s.dataset for s in samples}):
        began = time.perf_counter()
        train_idx = [i for i, s in enumerate(samples) if s.dataset != held]
        rows = training_rows([samples[i] for i in train_idx], [lines[i] for i in train_idx],
                             [texts[i] for i in train_idx], [order[i] for i in train_idx],
                             per_dataset, 0)
        ce = train(rows)
        trained = time.perf_counter() - began
        began = time.perf_counter()
        test_idx = [i for i, s in enumerate(samples) if s.dataset == held]
        for i in test_idx:
            first = order[i][:top]
            scores = ce.score(texts[i], [lines[i][int(n)] for n in first])
            col = np.full((len(samples[i].y), 2), [np.nan, 0.0], dtype=np.float32)
            col[first, 0] = scores
            col[first[np.argsort(-scores, kind="stable")], 1] = 1.0 / (1.0 + np.arange(len(first)))
            columns[i] = col
        log[held] = {"training_pairs": len(rows), "train_seconds": round(trained),
                     "score_seconds_per_question": round(
                         (time.perf_counter() - began) / max(1, len(test_idx)), 3)}
        print(held, log[held], flush=True)
    return [replace(s, x=np.hstack([s.x, c])) for s, c in zip(samples, columns, strict=True)]


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--top", type=int, default=20,
                        help="candidates the cross-encoder reads per question")
    parser.add_argument("--per-dataset", type=int, default=300,
                        help="training questions drawn from each training dataset")
    parser.add_argument("--conversations", type=int, default=8,
                        help="QMSum validation conversations to sample (seed 0)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    torch.set_num_threads(2)
    samples, texts = load(args.conversations)
    log: dict[str, Any] = {}
    extended = with_cross(samples, texts, args.top, args.per_dataset, log)
    extra = [len(FEATURES), len(FEATURES) + 1]
    rule = load_ranker().rule
    shipped = shipped_columns()
    publish({"rule": rule._asdict(), "top": args.top, "per_dataset": args.per_dataset,
             "models": log, "variants": compare(extended, {
                 "shipped recipe": fitter(shipped),
                 f"+ cross-encoder over the first {args.top}": fitter(shipped + extra)}, rule)},
            args.out)


if __name__ == "__main__":
    main()
