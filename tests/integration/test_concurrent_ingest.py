"""Two ingests of one space at once, from two clients with their own connections (as two
processes would run them): the graph equals one ingest's, with nothing stored twice."""

from __future__ import annotations

from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore

from helpers import SAMPLE


def snapshot(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return store.read("admin/space_snapshot", space=space)


def kinds(rows: list[dict[str, Any]]) -> Counter[str]:
    return Counter("+".join(sorted(row["labels"])) for row in rows)


def test_two_ingests_of_one_space_at_once_equal_one(
        settings: Settings, store: GraphStore, embedder: SentenceTransformerEmbedder,
        space: str) -> None:
    alone = f"{space}-alone"

    def ingest(target: str) -> int:
        with Memory(settings, embedder=embedder) as memory:  # its own driver
            return memory.ingest(SAMPLE, space=target).turns

    try:
        with ThreadPoolExecutor(max_workers=2) as pool:
            assert list(pool.map(ingest, [space, space])) == [17, 17]
        together = snapshot(store, space)
        ingest(alone)
        assert kinds(together) == kinds(snapshot(store, alone))
        assert len({row["id"] for row in together}) == len(together)  # no duplicates
        ingest(space)  # and a third, after both, changes nothing
        assert snapshot(store, space) == together
    finally:
        store.run_autocommit("admin/delete_space", space=alone)
