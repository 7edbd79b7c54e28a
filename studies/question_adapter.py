"""Would a question-side adapter help gathering questions (issue 51, lever 2)? A study of the
dense signal alone, before any of it goes into `graphmem`'s pipeline.

    python studies/question_adapter.py [--rank 32] [--epochs 30] [--qmsum-conversations 40] \
        [--out question_adapter.json]

For each dev dataset (LoCoMo, LongMemEval oracle, FriendsQA dev, QMSum val), every turn of
every conversation is embedded once as ingestion embeds it (``speaker: text``) and every
question as a search does. The baseline ranks a conversation's turns by cosine with the
question. The adapter maps only the question vector, ``q' = normalise(q + q A B)`` (A: 384 x r,
B: r x 384, zero at the start, so it begins as the identity), trained contrastively: for each
(question, evidence turn) pair, the softmax over all turns of the same conversation (the other
turns are the negatives) should pick the evidence turn. Stored vectors stay as they are.

Judged leave-one-dataset-out: trained on three datasets, measured on the fourth, by the
category of question. The measure is evidence recall within the first k turns of the dense
ranking (k = 10, 25, 50, 100): the share of a question's evidence turns ranked that high,
averaged over questions. This is the dense source only: `graphmem` fuses it with BM25, PPR,
windows and a learned ranker, so a gain here is a reason to try the adapter there, not a
figure of `graphmem` itself.
"""

from __future__ import annotations

import hashlib
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from common import DATA, LOCOMO, make_parser, publish

from graphmem.config import Settings
from graphmem.eval.datasets import Question, locomo_questions, longmemeval_questions
from graphmem.eval.runner import sample
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.text import turn_line

KS = (10, 25, 50, 100)
SOURCES = {
    "locomo": (LOCOMO, "locomo"),
    "longmemeval": (DATA / "longmemeval" / "longmemeval_oracle_dev.json", "longmemeval"),
    "friendsqa": (DATA / "friendsqa" / "friendsqa_dev.json", "locomo"),
    "qmsum": (DATA / "qmsum" / "qmsum_val.json.gz", "locomo"),
}


@dataclass
class Conversation:
    ids: list[str]
    vectors: np.ndarray  # one row per turn, unit length
    speakers: list[str]
    sessions: list[int]


@dataclass
class Item:
    dataset: str
    category: str
    conversation: str
    question: np.ndarray
    evidence: list[int]  # rows of the conversation's turns


def _cached_embed(embedder: SentenceTransformerEmbedder, texts: list[str],
                  cache: Path) -> np.ndarray:
    digest = hashlib.sha256(("\n".join(texts) + embedder.name).encode()).hexdigest()[:16]
    path = cache / f"{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path))
    vectors = embedder.embed(texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def load(name: str, embedder: SentenceTransformerEmbedder, cache: Path,
         qmsum_conversations: int) -> tuple[dict[str, Conversation], list[Item]]:
    path, form = SOURCES[name]
    parsed = parse_file(path, form, bad_turns="skip")  # type: ignore[arg-type]
    questions: list[Question] = (longmemeval_questions(path) if form == "longmemeval"
                                 else locomo_questions(path))
    keys = sorted({q.conversation for q in questions})
    if name == "qmsum":
        keys = sample(keys, qmsum_conversations, 0)
    wanted = set(keys)
    conversations: dict[str, Conversation] = {}
    for conv in parsed.conversations:
        if conv.key not in wanted:
            continue
        turns = [(n, t) for n, s in enumerate(conv.sessions) for t in s.turns]
        lines = [turn_line(t.speaker, t.text, t.image_caption) for _, t in turns]
        conversations[conv.key] = Conversation([t.source_id for _, t in turns],
                                               _cached_embed(embedder, lines, cache),
                                               [t.speaker for _, t in turns],
                                               [n for n, _ in turns])
    kept = [q for q in questions if q.conversation in conversations]
    vectors = _cached_embed(embedder, [q.question for q in kept], cache)
    items = []
    for q, vector in zip(kept, vectors, strict=True):
        rows = {tid: i for i, tid in enumerate(conversations[q.conversation].ids)}
        evidence = sorted({rows[e] for e in q.evidence if e in rows})
        if evidence:
            items.append(Item(name, q.category, q.conversation, vector, evidence))
    return conversations, items


def load_all(qmsum_conversations: int) -> tuple[dict[str, Conversation], list[Item]]:
    """Every dev dataset's conversations (keyed ``dataset/key``) and questions, embedded once
    (the vectors are cached under GRAPHMEM_HOME/cache/bench)."""
    settings = Settings()
    embedder = SentenceTransformerEmbedder.from_settings(settings)
    cache = settings.cache_dir / "bench" / "question_adapter"
    conversations: dict[str, Conversation] = {}
    items: list[Item] = []
    for name in SOURCES:
        convs, found = load(name, embedder, cache, qmsum_conversations)
        conversations.update({f"{name}/{k}": v for k, v in convs.items()})
        items += [Item(i.dataset, i.category, f"{name}/{i.conversation}", i.question,
                       i.evidence) for i in found]
    return conversations, items


def ranked_recall(items: list[Item],
                  score: Callable[[Item], np.ndarray]) -> dict[str, dict[str, Any]]:
    """Evidence recall within the first k turns ranked by ``score(item)``, by category and
    overall (percent)."""
    found: dict[str, dict[int, list[float]]] = defaultdict(lambda: defaultdict(list))
    for item in items:
        order = np.argsort(-score(item), kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        for k in KS:
            share = float(np.mean([rank[e] < k for e in item.evidence]))
            found[item.category][k].append(share)
            found["all"][k].append(share)
    return {cat: {f"@{k}": round(100 * float(np.mean(v)), 1) for k, v in ks.items()}
            | {"questions": len(next(iter(ks.values())))} for cat, ks in sorted(found.items())}


def recall(items: list[Item], conversations: dict[str, Conversation],
           questions: np.ndarray) -> dict[str, dict[str, Any]]:
    """:func:`ranked_recall` of the dense ranking for the given question vectors."""
    vectors = {id(item): q for item, q in zip(items, questions, strict=True)}
    return ranked_recall(items, lambda item: conversations[item.conversation].vectors
                         @ vectors[id(item)])


class Adapter(torch.nn.Module):
    def __init__(self, dimensions: int, rank: int) -> None:
        super().__init__()
        self.a = torch.nn.Parameter(torch.randn(dimensions, rank) * 0.01)
        self.b = torch.nn.Parameter(torch.zeros(rank, dimensions))

    def forward(self, q: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.normalize(q + q @ self.a @ self.b, dim=-1)


def train(items: list[Item], conversations: dict[str, Conversation], rank: int, epochs: int,
          temperature: float = 0.05, seed: int = 0) -> Adapter:
    """Contrastive: each (question, evidence turn) pair against the conversation's other turns;
    every dataset weighs the same (its questions sampled to equal counts per epoch)."""
    torch.manual_seed(seed)
    rng = np.random.default_rng(seed)
    dims = items[0].question.shape[0]
    adapter = Adapter(dims, rank)
    optimiser = torch.optim.AdamW(adapter.parameters(), lr=2e-3, weight_decay=1e-2)
    turns = {key: torch.from_numpy(c.vectors) for key, c in conversations.items()}
    by_set: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        by_set[item.dataset].append(item)
    per_set = min(500, max(len(v) for v in by_set.values()))
    for _ in range(epochs):
        chosen = [group[i] for group in by_set.values()
                  for i in rng.choice(len(group), per_set, replace=len(group) < per_set)]
        rng.shuffle(chosen)
        for start in range(0, len(chosen), 64):
            batch = chosen[start:start + 64]
            q = adapter(torch.from_numpy(np.stack([i.question for i in batch])))
            losses = []
            for row, item in enumerate(batch):
                logits = turns[item.conversation] @ q[row] / temperature
                log_p = torch.log_softmax(logits, dim=0)
                losses.append(-log_p[item.evidence].mean())
            loss = torch.stack(losses).mean()
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
    return adapter


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--rank", type=int, default=32)
    parser.add_argument("--epochs", type=int, default=30)
    parser.add_argument("--qmsum-conversations", type=int, default=40)
    parser.add_argument("--out", type=Path)
    args = parser.parse_args()
    began = time.perf_counter()
    conversations, items = load_all(args.qmsum_conversations)
    loaded = time.perf_counter() - began
    result: dict[str, Any] = {"rank": args.rank, "epochs": args.epochs, "ks": KS,
                              "embed_seconds": round(loaded, 1), "held_out": {}}
    for held in SOURCES:
        train_items = [i for i in items if i.dataset != held]
        test_items = [i for i in items if i.dataset == held]
        began = time.perf_counter()
        adapter = train(train_items, conversations, args.rank, args.epochs)
        with torch.no_grad():
            plain = np.stack([i.question for i in test_items])
            adapted = adapter(torch.from_numpy(plain)).numpy()
        result["held_out"][held] = {
            "baseline": recall(test_items, conversations, plain),
            "adapter": recall(test_items, conversations, adapted),
            "train_seconds": round(time.perf_counter() - began, 1)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
