"""Embeddings for what ingestion writes, computed only where the embedded text changed.

Every embedded node stores ``embedded_hash``, a digest of the embedder's name and the text it
encodes; a node whose stored hash matches keeps its vector. Rows come out ready for the
``set_*embeddings`` statements: ``{id, embedding, embedded_hash}``.

A unit whose vector is composed from its turns' vectors (a CAST scene: the length-1 mean of
them, no model pass) stores :func:`composed_hash` instead: the embedder's name and the hashes
of the turn vectors it averages, so it changes whenever one of those does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from graphmem.errors import ConfigurationError
from graphmem.providers.embedder import Embedder

BATCH = 256


def embedding_hash(embedder: Embedder, text: str) -> str:
    return hashlib.sha256(f"{embedder.name}\n{text}".encode()).hexdigest()[:24]


def composed_hash(embedder: Embedder, turn_hashes: Iterable[str | None]) -> str:
    """The hash of a vector averaged from turn vectors with these hashes (in any order)."""
    joined = "\n".join(sorted(h or "" for h in turn_hashes))
    return hashlib.sha256(
        f"{embedder.name}\nmean of turn vectors\n{joined}".encode()).hexdigest()[:24]


def mean_vector(vectors: Sequence[Any] | np.ndarray) -> np.ndarray:
    """The mean of ``vectors`` scaled to length 1 (float32; a zero mean stays zero)."""
    mean: np.ndarray = np.asarray(vectors, dtype=np.float32).mean(axis=0)
    norm = float(np.linalg.norm(mean))
    return mean / np.float32(norm) if norm > 0 else mean


def changed(embedder: Embedder, texts: Mapping[str, str],
            known: Mapping[str, str | None]) -> list[str]:
    """Ids whose text is not embedded yet, or was embedded from another text or model."""
    return [i for i, text in texts.items() if known.get(i) != embedding_hash(embedder, text)]


def embedding_rows(embedder: Embedder, ids: list[str], texts: Mapping[str, str],
                   progress: Callable[[int], object] | None = None) -> list[dict[str, Any]]:
    """Embed ``texts[i]`` for each id, in batches; ``progress`` hears each batch's size."""
    rows: list[dict[str, Any]] = []
    for start in range(0, len(ids), BATCH):
        batch = ids[start : start + BATCH]
        vectors = embedder.embed([texts[i] for i in batch])
        if vectors.shape != (len(batch), embedder.dimensions):
            raise ConfigurationError(f"embedder {embedder.name!r} returned shape {vectors.shape}")
        rows.extend({"id": i, "embedding": v.tolist(),
                     "embedded_hash": embedding_hash(embedder, texts[i])}
                    for i, v in zip(batch, vectors, strict=True))
        if progress is not None:
            progress(len(batch))
    return rows
