"""A retrieval model of our own (issue 70): MiniLM tuned on question -> evidence pairs, and a
cross-encoder started from the same MiniLM, both trained leave-one-dataset-out. A study of
the dense signal and of a second stage over it, before either goes into `graphmem`.

    python studies/tuned_models.py [--per-dataset 1200] [--epochs 1] [--rerank 50] \
        [--eval-questions 600] [--qmsum-conversations 40] [--out tuned_models.json]

Needs the ``train`` extra (PyTorch, sentence-transformers); no database. The conversations
and questions are `question_adapter.py`'s (every turn as ingestion embeds it, ``speaker:
text``; LoCoMo, LongMemEval oracle, FriendsQA dev, QMSum val).

For each held-out dataset H, trained on the three others only (each dataset gives at most
``--per-dataset`` pairs, so that every dataset weighs about the same):

- **tuned embedder**: the packaged all-MiniLM-L6-v2 fine-tuned contrastively. A batch holds
  (question, evidence turn, hard negative) triples; each question must pick its evidence turn
  among every turn of the batch (in-batch negatives; a turn that is evidence for that
  question too is masked). The hard negative is a turn of the same conversation that plain
  MiniLM ranks among its first 30 and that is not evidence.
- **cross-encoder**: MiniLM's encoder with a fresh one-logit head, reading ``question [SEP]
  turn`` together, trained as evidence / not evidence on each question's evidence turns and
  hard negatives (plain MiniLM's first 30 non-evidence turns, three per positive).

Measured on H (``--eval-questions`` sampled per dataset, seed 0; every LoCoMo question):
evidence recall within the first k turns (k = 10, 25, 50) of plain MiniLM's ranking, the
tuned embedder's ranking, and plain MiniLM's first ``--rerank`` turns ordered by the
cross-encoder (the rest after them, as they were). By category, with training seconds. The
dense source alone: `graphmem` fuses it with BM25, PPR, windows and its ranker, so a gain
here is a reason to try the model there, not a figure of `graphmem`.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import make_parser, publish
from question_adapter import SOURCES, Item, ranked_recall
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from graphmem.config import Settings
from graphmem.eval.runner import sample
from graphmem.providers.embedder import packaged_minilm_path
from graphmem.training.embedder import (
    Asked,
    Conversation,
    Source,
    balanced,
    encode,
    hard_negatives,
    load,
    tune,
)


def _step(optimiser: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    optimiser.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    optimiser.step()


def sources(qmsum_conversations: int) -> list[Source]:
    return [Source(name, path, form,  # type: ignore[arg-type]
                   qmsum_conversations if name == "qmsum" else None)
            for name, (path, form) in SOURCES.items()]


def _item(a: Asked) -> Item:
    return Item(a.dataset, a.category, a.conversation, a.vector, a.evidence)


class CrossEncoder:
    def __init__(self) -> None:
        path = str(packaged_minilm_path())
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)

    def logits(self, questions: list[str], turns: list[str]) -> torch.Tensor:
        enc = self.tokenizer(questions, turns, truncation="only_second", max_length=160,
                             padding=True, return_tensors="pt")
        out: torch.Tensor = self.model(**enc).logits[:, 0]
        return out

    def score(self, question: str, turns: list[str]) -> np.ndarray:
        self.model.eval()
        with torch.no_grad():
            return np.concatenate([self.logits([question] * len(turns[i:i + 64]),
                                               turns[i:i + 64]).numpy()
                                   for i in range(0, len(turns), 64)])


def train_cross(asked: list[Asked], conversations: dict[str, Conversation],
                per_dataset: int, epochs: int, seed: int = 0) -> CrossEncoder:
    torch.manual_seed(seed)
    rng = random.Random(seed)
    ce = CrossEncoder()
    optimiser = torch.optim.AdamW(ce.model.parameters(), lr=3e-5, weight_decay=0.01)
    ce.model.train()
    for epoch in range(epochs):
        rows: list[tuple[str, str, float]] = []
        for a, e in balanced(asked, per_dataset, seed + epoch):
            conv = conversations[a.conversation]
            rows.append((a.text, conv.lines[e], 1.0))
            hard = hard_negatives(a, conv)
            for n in rng.sample(hard, min(3, len(hard))):
                rows.append((a.text, conv.lines[n], 0.0))
        rng.shuffle(rows)
        for start in range(0, len(rows), 32):
            batch = rows[start:start + 32]
            logits = ce.logits([r[0] for r in batch], [r[1] for r in batch])
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, torch.tensor([r[2] for r in batch]))
            _step(optimiser, loss)
    return ce


def reranked(a: Asked, conv: Conversation, ce: CrossEncoder, n: int) -> np.ndarray:
    """Plain MiniLM's order with its first ``n`` turns ordered by the cross-encoder: a score
    per turn whose descending order is that ranking."""
    base = conv.vectors @ a.vector
    order = np.argsort(-base, kind="stable")
    top = order[:n]
    ce_scores = ce.score(a.text, [conv.lines[int(r)] for r in top])
    out = np.empty(len(base), dtype=np.float64)
    out[order] = -np.arange(len(order), dtype=np.float64)  # the plain order
    out[top[np.argsort(-ce_scores, kind="stable")]] = 1e6 - np.arange(len(top))
    return out


def main() -> None:
    from sentence_transformers import SentenceTransformer

    parser = make_parser(__doc__)
    parser.add_argument("--per-dataset", type=int, default=1200)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--rerank", type=int, default=50)
    parser.add_argument("--eval-questions", type=int, default=600)
    parser.add_argument("--qmsum-conversations", type=int, default=40)
    parser.add_argument("--models", nargs="+", default=["embedder", "cross"],
                        choices=["embedder", "cross"], help="which models to train")
    parser.add_argument("--only", nargs="*", default=None, help="held-out datasets to run")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--save", type=Path, default=None,
                        help="keep each tuned embedder, as a sentence-transformers folder "
                        "DIR/without-<held out> (and DIR/all, trained on every dataset, with "
                        "--all)")
    parser.add_argument("--all", action="store_true",
                        help="with --save, also train one embedder on every dataset")
    args = parser.parse_args()
    torch.set_num_threads(2)
    plain = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    cache = Settings().cache_dir / "bench" / "tuned_models"
    conversations, asked = load(sources(args.qmsum_conversations), plain, cache)
    result: dict[str, Any] = {"options": vars(args) | {"out": str(args.out)},
                              "questions": {d: sum(a.dataset == d for a in asked)
                                            for d in SOURCES}, "held_out": {}}
    for held in args.only or list(SOURCES):
        train = [a for a in asked if a.dataset != held]
        test = [a for a in asked if a.dataset == held]
        if held != "locomo":
            test = sample(test, args.eval_questions, 0)
        row: dict[str, Any] = {"questions": len(test)}
        row["plain"] = ranked_recall([_item(a) for a in test], lambda i: _plain(i, conversations))
        if "embedder" in args.models:
            _embedder_row(row, train, test, conversations, args)
        if "cross" in args.models:
            _cross_row(row, train, test, conversations, args)
        result["held_out"][held] = row
        print(held, {k: v.get("all") if isinstance(v, dict) else v for k, v in row.items()},
              flush=True)
    if args.save and args.all:
        began = time.perf_counter()
        tune(asked, conversations, args.per_dataset, args.epochs).save(
            str(args.save / "all"))
        result["all_train_seconds"] = round(time.perf_counter() - began)
    publish(result, args.out)


def _embedder_row(row: dict[str, Any], train: list[Asked], test: list[Asked],
                  conversations: dict[str, Conversation], args: Any) -> None:
    began = time.perf_counter()
    tuned = tune(train, conversations, args.per_dataset, args.epochs)
    row["embedder_train_seconds"] = round(time.perf_counter() - began)
    if args.save:
        tuned.save(str(args.save / f"without-{test[0].dataset}"))
    keys = sorted({a.conversation for a in test})
    tuned_turns = {k: encode(tuned, conversations[k].lines) for k in keys}
    tuned_q = encode(tuned, [a.text for a in test])
    items = [_item(a) for a in test]
    qs = {id(i): v for i, v in zip(items, tuned_q, strict=True)}
    row["tuned embedder"] = ranked_recall(
        items, lambda i: tuned_turns[i.conversation] @ qs[id(i)])


def _cross_row(row: dict[str, Any], train: list[Asked], test: list[Asked],
               conversations: dict[str, Conversation], args: Any) -> None:
    began = time.perf_counter()
    ce = train_cross(train, conversations, args.per_dataset, args.epochs)
    row["cross_train_seconds"] = round(time.perf_counter() - began)
    began = time.perf_counter()
    items = [_item(a) for a in test]
    by_item = {id(i): a for i, a in zip(items, test, strict=True)}
    row[f"cross-encoder over plain top {args.rerank}"] = ranked_recall(
        items,
        lambda i: reranked(by_item[id(i)], conversations[i.conversation], ce, args.rerank))
    row["cross_score_seconds_per_question"] = round(
        (time.perf_counter() - began) / len(test), 3)


def _plain(item: Item, conversations: dict[str, Conversation]) -> np.ndarray:
    return np.asarray(conversations[item.conversation].vectors @ item.question)


if __name__ == "__main__":
    main()
