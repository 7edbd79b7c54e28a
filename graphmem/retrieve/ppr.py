"""Personalized PageRank over one space's EDU-argument graph with GDS.

Projections are per space (only that space's nodes enter), named from the space and a
fingerprint of its graph, reused while the graph is unchanged, replaced when it changes, and
capped in number: the least recently used projections of graphmem are dropped first, and a
space's projections are dropped with the space.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from graphmem.store import GraphStore

PREFIX = "graphmem-ppr-"


def space_tag(space: str) -> str:
    return hashlib.sha1(space.encode()).hexdigest()[:12]


@dataclass(frozen=True)
class PPRConfig:
    damping: float = 0.5  # HippoRAG 2's setting, which EMem-G follows
    iterations: int = 20
    tolerance: float = 1e-7
    concurrency: int = 1


class ProjectionCache:
    """Tracks which projections graphmem made, and keeps at most ``capacity`` of them."""

    def __init__(self, capacity: int = 8) -> None:
        self.capacity = capacity
        self._used: OrderedDict[str, None] = OrderedDict()
        self._lock = threading.Lock()

    def graph_for(self, store: GraphStore, space: str) -> str | None:
        """The projection of ``space``'s current graph (made if needed); None if it is empty."""
        state = store.read("retrieve/ppr_graph_state", space=space)[0]
        if state["edus"] == 0:
            return None
        digest = hashlib.sha1(repr(sorted(state.items())).encode()).hexdigest()[:10]
        name = f"{PREFIX}{space_tag(space)}-{digest}"
        with self._lock:
            existing = {row["graph"] for row in store.read(
                "retrieve/ppr_list", prefix=f"{PREFIX}{space_tag(space)}-")}
            for stale in existing - {name}:
                store.write("retrieve/ppr_drop", graph=stale)
                self._used.pop(stale, None)
            if name not in existing:
                store.write("retrieve/ppr_project", space=space, graph=name)
            self._used[name] = None
            self._used.move_to_end(name)
            self._evict(store)
        return name

    def _evict(self, store: GraphStore) -> None:
        everything = [row["graph"] for row in store.read("retrieve/ppr_list", prefix=PREFIX)]
        extra = len(everything) - self.capacity
        if extra <= 0:
            return
        unknown = [g for g in everything if g not in self._used]  # e.g. left by another client
        for graph in (unknown + list(self._used))[:extra]:
            store.write("retrieve/ppr_drop", graph=graph)
            self._used.pop(graph, None)

    def drop_space(self, store: GraphStore, space: str) -> None:
        with self._lock:
            for row in store.read("retrieve/ppr_list", prefix=f"{PREFIX}{space_tag(space)}-"):
                store.write("retrieve/ppr_drop", graph=row["graph"])
                self._used.pop(row["graph"], None)


def personalized_pagerank(store: GraphStore, graph: str, seeds: list[dict[str, Any]],
                          k: int, config: PPRConfig) -> list[dict[str, Any]]:
    """Top-``k`` EDUs by PageRank personalised to weighted ``seeds`` ({element_id, weight})."""
    if not seeds:
        return []
    return store.read("retrieve/ppr_edus", graph=graph, seeds=seeds, damping=config.damping,
                      iterations=config.iterations, tolerance=config.tolerance,
                      concurrency=config.concurrency, k=k)
