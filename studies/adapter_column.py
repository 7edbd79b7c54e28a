"""The question adapter's closeness as one more ranker column (issue 51, lever 2).

    python studies/adapter_column.py [--conversations 8] [--out adapter_column.json]

Session 29 (`question_adapter.py`) trained a light map of the question vector (rank 8, five
epochs) and found that, as the dense source on its own, it lifts held-out LoCoMo's gathering
questions at the first ranks but costs FriendsQA and LongMemEval as much. Its note left one
thing to try: give the trees the adapted closeness as a column beside the plain one, so that
they use it only where it helps. This measures that on the leave-one-dataset-out matrix with
the cached candidates of `train-ranker` (no re-ingest, stored vectors unchanged).

The adapter never sees the dataset it is judged on, nor, for the rows the trees learn from,
the dataset of those rows (cross-fitting; else the trees would learn to trust a column that
was fitted to their own labels): with dataset D held out, D's candidates get the adapter
trained on the three others, and a training row of dataset E the adapter trained on the two
datasets that are neither D nor E. Adapters are trained as session 29's (contrastive, each
(question, evidence turn) pair against every other turn of the space, each dataset weighing
the same), here on the questions and turn vectors the cached candidates hold. The column is
the cosine between the adapted question and the candidate's turn vector.

Variants (trees, three seeds, span weights, the shipped packing rule, as `question_type.py`):
the shipped recipe; + the adapter column. Each: evidence and answer recall at 1,000 and 2,000
tokens per held-out dataset and category, and the gap with its standard error.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np
import torch
from question_adapter import Adapter, Conversation, Item, train
from question_type import fitter, run, sets

from graphmem.client import Memory
from graphmem.retrieve.fused.features import FEATURES
from graphmem.training import transfer
from graphmem.training.samples import Sample

RANK, EPOCHS = 8, 5  # session 29's light adapter: the one that did not overfit its datasets
# the held-out datasets (the names the samples carry), in the order of the appended columns
DATASETS = sorted(options.get("family", dataset) for dataset, _, options in sets(0))


def spaces(samples: Sequence[Sample], questions: np.ndarray
           ) -> tuple[dict[str, Conversation], list[Item]]:
    """The study's conversations (each space's turn vectors) and items (each question with
    the rows of its evidence turns among them) from the cached candidates."""
    conversations: dict[str, Conversation] = {}
    items: list[Item] = []
    for s, q in zip(samples, questions, strict=True):
        assert s.space_vectors is not None and s.units is not None, "candidates without vectors"
        key = f"{s.dataset}/{s.conversation}"
        if key not in conversations:
            vectors = s.space_vectors / np.maximum(
                np.linalg.norm(s.space_vectors, axis=1, keepdims=True), 1e-9)
            conversations[key] = Conversation([], vectors.astype(np.float32), [], [])
        evidence = sorted({int(u) for u, y in zip(s.units, s.y, strict=True) if y > 0 and u >= 0})
        if evidence:
            items.append(Item(s.dataset, s.category, key, q, evidence))
    return conversations, items


def adapted(adapter: Adapter, q: np.ndarray) -> np.ndarray:
    with torch.no_grad():
        return np.asarray(adapter(torch.from_numpy(q[None, :]))[0].numpy())


def cross_fitted(samples: list[Sample], texts: list[str]) -> list[Sample]:
    """The samples with one adapter column per held-out dataset appended (``DATASETS``
    order): column D of a row of dataset X is the cosine with the adapter trained without D
    and X."""
    with Memory() as memory:
        questions = np.asarray(memory.embedder.embed(list(texts)), dtype=np.float32)
    conversations, items = spaces(samples, questions)
    datasets = sorted({s.dataset for s in samples})
    assert datasets == DATASETS, (datasets, DATASETS)
    adapters: dict[frozenset[str], Adapter] = {}
    for held in datasets:
        for other in datasets:
            left_out = frozenset({held, other})
            if left_out not in adapters:
                print(f"adapter without {sorted(left_out)}")
                adapters[left_out] = train([i for i in items if i.dataset not in left_out],
                                           conversations, RANK, EPOCHS)
    out = []
    for s, q in zip(samples, questions, strict=True):
        vectors = s.vectors
        assert vectors is not None
        columns = np.stack([vectors @ adapted(adapters[frozenset({held, s.dataset})], q)
                            for held in datasets], axis=1)
        out.append(replace(s, x=np.hstack([s.x, columns.astype(np.float32)])))
    return out


def per_fold(shipped: list[int]) -> transfer.Fit:
    """Trees over the shipped columns and the adapter column of the dataset ``part`` lacks."""
    def fit(part: Sequence[Sample]) -> Any:
        held = next(d for d in DATASETS if d not in {s.dataset for s in part})
        return fitter([*shipped, len(FEATURES) + DATASETS.index(held)])(part)
    return fit


def main() -> None:
    run(__doc__, lambda shipped: {"shipped recipe": fitter(shipped),
                                  "+ adapter column": per_fold(shipped)},
        prepare=cross_fitted, rank=RANK, epochs=EPOCHS)


if __name__ == "__main__":
    main()
