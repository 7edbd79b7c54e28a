"""A retrieval model of our own (issue 70): MiniLM tuned on question -> evidence pairs, and a
cross-encoder started from the same MiniLM, both trained leave-one-dataset-out. A study of
the dense signal and of a second stage over it, before either goes into `graphmem`.

    python benchmarks/tuned_models.py [--per-dataset 1200] [--epochs 1] [--rerank 50] \
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
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import make_parser, publish
from question_adapter import SOURCES, Item, ranked_recall
from transformers import AutoModelForSequenceClassification, AutoTokenizer

from graphmem.config import Settings
from graphmem.eval.datasets import Question, locomo_questions, longmemeval_questions
from graphmem.eval.runner import sample
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import packaged_minilm_path
from graphmem.text import turn_line

HARD = 30  # hard negatives come from plain MiniLM's first HARD non-evidence turns


@dataclass
class Conversation:
    lines: list[str]
    vectors: np.ndarray  # plain MiniLM, unit rows


@dataclass
class Asked:
    item: Item
    text: str


def encode(model: Any, texts: list[str]) -> np.ndarray:
    return np.asarray(model.encode(texts, batch_size=64, normalize_embeddings=True,
                                   convert_to_numpy=True), dtype=np.float32)


def load(model: Any, qmsum_conversations: int, cache: Path
         ) -> tuple[dict[str, Conversation], list[Asked]]:
    conversations: dict[str, Conversation] = {}
    asked: list[Asked] = []
    for name, (path, form) in SOURCES.items():
        parsed = parse_file(path, form, bad_turns="skip")  # type: ignore[arg-type]
        questions: list[Question] = (longmemeval_questions(path) if form == "longmemeval"
                                     else locomo_questions(path))
        keys = sorted({q.conversation for q in questions})
        if name == "qmsum":
            keys = sample(keys, qmsum_conversations, 0)
        wanted = set(keys)
        rows: dict[str, dict[str, int]] = {}
        for conv in parsed.conversations:
            if conv.key not in wanted:
                continue
            turns = [t for s in conv.sessions for t in s.turns]
            lines = [turn_line(t.speaker, t.text, t.image_caption) for t in turns]
            key = f"{name}/{conv.key}"
            conversations[key] = Conversation(lines, cached(model, lines, cache))
            rows[key] = {t.source_id: i for i, t in enumerate(turns)}
        kept = [q for q in questions if f"{name}/{q.conversation}" in conversations]
        vectors = cached(model, [q.question for q in kept], cache)
        for q, v in zip(kept, vectors, strict=True):
            key = f"{name}/{q.conversation}"
            evidence = sorted({rows[key][e] for e in q.evidence if e in rows[key]})
            if evidence:
                asked.append(Asked(Item(name, q.category, key, v, evidence), q.question))
    return conversations, asked


def cached(model: Any, texts: list[str], cache: Path) -> np.ndarray:
    import hashlib
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = cache / f"{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path))
    vectors = encode(model, texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def hard_negatives(a: Asked, conv: Conversation) -> list[int]:
    order = np.argsort(-(conv.vectors @ a.item.question), kind="stable")
    evidence = set(a.item.evidence)
    return [int(r) for r in order[:HARD + len(evidence)] if int(r) not in evidence][:HARD]


def balanced(asked: list[Asked], per_dataset: int, seed: int) -> list[tuple[Asked, int]]:
    """(question, evidence row) pairs, at most ``per_dataset`` of each dataset."""
    by_set: dict[str, list[tuple[Asked, int]]] = defaultdict(list)
    for a in asked:
        for e in a.item.evidence:
            by_set[a.item.dataset].append((a, e))
    rng = random.Random(seed)
    out = []
    for pairs in by_set.values():
        out += rng.sample(pairs, min(per_dataset, len(pairs)))
    rng.shuffle(out)
    return out


def tune_embedder(asked: list[Asked], conversations: dict[str, Conversation],
                  per_dataset: int, epochs: int, seed: int = 0) -> Any:
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(seed)
    model = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    model.max_seq_length = 128
    optimiser = torch.optim.AdamW(model.parameters(), lr=2e-5, weight_decay=0.01)
    rng = random.Random(seed)
    model.train()
    for epoch in range(epochs):
        pairs = balanced(asked, per_dataset, seed + epoch)
        for start in range(0, len(pairs), 32):
            batch = pairs[start:start + 32]
            negs = [rng.choice(hard_negatives(a, conversations[a.item.conversation]))
                    for a, _ in batch]
            q = _embed(model, [a.text for a, _ in batch])
            turns = [(a.item.conversation, e) for a, e in batch] + [
                (a.item.conversation, n) for (a, _), n in zip(batch, negs, strict=True)]
            d = _embed(model, [conversations[c].lines[r] for c, r in turns])
            logits = q @ d.T * 20.0
            mask = torch.zeros_like(logits, dtype=torch.bool)
            for i, (a, _) in enumerate(batch):
                evidence = set(a.item.evidence)
                for j, (c, r) in enumerate(turns):
                    if j != i and c == a.item.conversation and r in evidence:
                        mask[i, j] = True
            logits = logits.masked_fill(mask, -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(batch)))
            _step(optimiser, loss)
    model.eval()
    model.max_seq_length = 256
    return model


def _step(optimiser: torch.optim.Optimizer, loss: torch.Tensor) -> None:
    optimiser.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    optimiser.step()


def _embed(model: Any, texts: list[str]) -> torch.Tensor:
    features = (model.preprocess if hasattr(model, "preprocess") else model.tokenize)(texts)
    out = model(features)["sentence_embedding"]
    return torch.nn.functional.normalize(out, dim=-1)


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
            conv = conversations[a.item.conversation]
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
    base = conv.vectors @ a.item.question
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
    args = parser.parse_args()
    torch.set_num_threads(2)
    plain = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    cache = Settings().cache_dir / "bench" / "tuned_models"
    conversations, asked = load(plain, args.qmsum_conversations, cache)
    result: dict[str, Any] = {"options": vars(args) | {"out": str(args.out)},
                              "questions": {d: sum(a.item.dataset == d for a in asked)
                                            for d in SOURCES}, "held_out": {}}
    for held in args.only or list(SOURCES):
        train = [a for a in asked if a.item.dataset != held]
        test = [a for a in asked if a.item.dataset == held]
        if held != "locomo":
            test = sample(test, args.eval_questions, 0)
        row: dict[str, Any] = {"questions": len(test)}
        row["plain"] = ranked_recall([a.item for a in test], lambda i: _plain(i, conversations))
        if "embedder" in args.models:
            _embedder_row(row, train, test, conversations, args)
        if "cross" in args.models:
            _cross_row(row, train, test, conversations, args)
        result["held_out"][held] = row
        print(held, {k: v.get("all") if isinstance(v, dict) else v for k, v in row.items()},
              flush=True)
    publish(result, args.out)


def _embedder_row(row: dict[str, Any], train: list[Asked], test: list[Asked],
                  conversations: dict[str, Conversation], args: Any) -> None:
    began = time.perf_counter()
    tuned = tune_embedder(train, conversations, args.per_dataset, args.epochs)
    row["embedder_train_seconds"] = round(time.perf_counter() - began)
    keys = sorted({a.item.conversation for a in test})
    tuned_turns = {k: encode(tuned, conversations[k].lines) for k in keys}
    tuned_q = encode(tuned, [a.text for a in test])
    qs = {id(a.item): v for a, v in zip(test, tuned_q, strict=True)}
    row["tuned embedder"] = ranked_recall(
        [a.item for a in test], lambda i: tuned_turns[i.conversation] @ qs[id(i)])


def _cross_row(row: dict[str, Any], train: list[Asked], test: list[Asked],
               conversations: dict[str, Conversation], args: Any) -> None:
    began = time.perf_counter()
    ce = train_cross(train, conversations, args.per_dataset, args.epochs)
    row["cross_train_seconds"] = round(time.perf_counter() - began)
    began = time.perf_counter()
    by_item = {id(a.item): a for a in test}
    row[f"cross-encoder over plain top {args.rerank}"] = ranked_recall(
        [a.item for a in test],
        lambda i: reranked(by_item[id(i)], conversations[i.conversation], ce, args.rerank))
    row["cross_score_seconds_per_question"] = round(
        (time.perf_counter() - began) / len(test), 3)


def _plain(item: Item, conversations: dict[str, Conversation]) -> np.ndarray:
    return np.asarray(conversations[item.conversation].vectors @ item.question)


if __name__ == "__main__":
    main()
