"""Settings that mean what they say: the embedding dimension is checked against the indexes
that exist, and the write batch size reaches every layer's statements."""

from __future__ import annotations

from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import ConfigurationError
from graphmem.providers.embedder import HashEmbedder
from graphmem.store import GraphStore, Tx

from helpers import SAMPLE


def test_a_dimension_mismatch_is_a_clear_error(memory: Memory, space: str) -> None:
    # the setting and the embedder agree on 64-d, but the database's indexes hold 384-d vectors
    settings = memory.settings.model_copy(update={"embedding_dimensions": 64})
    store = GraphStore(settings, driver=memory.store.driver)
    other = Memory(settings, store=store, embedder=HashEmbedder(64))
    with pytest.raises(ConfigurationError, match=r"turn_embedding \(384-d\).*64-d"):
        other.ingest(SAMPLE, space=space)
    with pytest.raises(ConfigurationError, match="GRAPHMEM_EMBEDDING_DIMENSIONS"):
        other.search("anything", space=space)
    # an embedder that disagrees with the setting is refused before anything is read
    wrong = Memory(memory.settings, store=memory.store, embedder=HashEmbedder(64))
    with pytest.raises(ConfigurationError, match="64-d vectors but GRAPHMEM_EMBEDDING_DIM"):
        wrong.search("anything", space=space)
    assert memory.store.read("admin/space_state", space=space, layers=[])[0]["sessions"] == 0


def test_every_layer_honours_the_write_batch_size(memory: Memory, space: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    sizes: dict[str, list[int]] = {}
    real = Tx.run

    def spy(self: Tx, name: str, **params: Any) -> list[dict[str, Any]]:
        for value in params.values():
            if isinstance(value, list) and value and isinstance(value[0], dict):
                sizes.setdefault(name, []).append(len(value))
        return real(self, name, **params)

    monkeypatch.setattr(Tx, "run", spy)
    settings = memory.settings.model_copy(update={"write_batch_size": 3})
    Memory(settings, store=memory.store, embedder=memory.embedder).ingest(SAMPLE, space=space)
    batched = {"ingest/turns/merge_turns", "ingest/set_vectors",
               "ingest/edus/merge_edus", "ingest/edus/merge_arguments",
               "ingest/edus/link_arguments", "ingest/events/merge_events",
               "ingest/events/merge_boundaries"}
    assert batched <= set(sizes)
    for name in batched:
        assert max(sizes[name]) <= 3, name
    assert sum(sizes["ingest/turns/merge_turns"]) == 17
