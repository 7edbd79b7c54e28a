"""Embeddings for what ingestion writes, computed only where the embedded text changed.

Every embedded node stores ``embedded_hash``, a digest of the embedder's name and the text it
encodes; a node whose stored hash matches keeps its vector. Rows come out ready for the
``set_*embeddings`` statements: ``{id, embedding, embedded_hash}``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from graphmem.errors import ConfigurationError
from graphmem.providers.embedder import Embedder

BATCH = 256


def embedding_hash(embedder: Embedder, text: str) -> str:
    return hashlib.sha256(f"{embedder.name}\n{text}".encode()).hexdigest()[:24]


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
