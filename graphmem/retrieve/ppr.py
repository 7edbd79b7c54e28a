"""Personalized PageRank over one space's EDU-argument graph with GDS.

Projections are per space (only that space's nodes enter), named from the space and its
revision (new with every change of the space, ``ingest/lock_space``), and shared by every
graphmem client of the server, in any process:

- **made once**: ``ppr_project.cypher`` locks a ``Projection`` bookkeeping node before it looks
  in the catalog, so clients racing to make the same projection wait for the first;
- **used safely**: each use records its time on that node (at most ten times per grace period
  and process), and no client drops a projection used within the grace period
  (``GRAPHMEM_PROJECTION_GRACE``); the cap (``GRAPHMEM_MAX_PROJECTIONS``) is soft: when every
  projection is in use, none is dropped;
- **retried**: a projection that vanished between lookup and use (evicted after its grace,
  the server restarted, the space changed) is made again and the search repeated.

A space's projections are replaced when its graph changes and dropped with the space.
"""

from __future__ import annotations

import hashlib
import threading
import time
from dataclasses import dataclass
from typing import Any

from neo4j.exceptions import ClientError

from graphmem.store import GraphStore

PREFIX = "graphmem-ppr-"
ATTEMPTS = 8  # a projection evicted between claim and run is made again; under heavy churn
#              (tests: grace 1 s, 9 searchers) five attempts were once not enough
TOUCHES = 10  # a projection in use has its use recorded this many times per grace period


def space_tag(space: str) -> str:
    return hashlib.sha1(space.encode()).hexdigest()[:12]


def _says(exc: ClientError, *phrases: str) -> bool:
    text = str(exc.message or exc)
    return any(phrase in text for phrase in phrases)


@dataclass(frozen=True)
class PPRConfig:
    damping: float = 0.5  # HippoRAG 2's setting, which EMem-G follows
    iterations: int = 20
    tolerance: float = 1e-7
    concurrency: int = 1


class ProjectionCache:
    """Finds, makes, shares and evicts the GDS projections of graphmem's spaces."""

    def __init__(self, capacity: int = 8, grace: float = 30.0) -> None:
        self.capacity = capacity
        self.grace = grace
        self._touched: dict[str, float] = {}  # projection -> when this process last recorded use
        self.stats = {"made": 0, "evicted": 0, "retried": 0}  # by this client
        self._lock = threading.Lock()

    def graph_for(self, store: GraphStore, space: str) -> str | None:
        """The projection of ``space``'s current graph (made if needed); None if it is empty."""
        graph, made = self._claim(store, space)
        if made and graph is not None:
            self._evict(store, graph)
        return graph

    def pagerank(self, store: GraphStore, space: str, seeds: list[dict[str, Any]], k: int,
                 config: PPRConfig) -> list[dict[str, Any]]:
        """Top-``k`` EDUs of ``space`` by PPR from ``seeds``, on its projection; a projection
        that vanishes meanwhile is made again and the run repeated. Eviction, when a
        projection was made, comes after the run."""
        made_one = ""
        for attempt in range(ATTEMPTS):
            graph, made = self._claim(store, space)
            if graph is None:
                return []
            made_one = graph if made else made_one
            try:
                rows = personalized_pagerank(store, graph, seeds, k, config)
                break
            except ClientError as exc:
                if attempt == ATTEMPTS - 1 or not _says(exc, "does not exist", "not found"):
                    raise
                with self._lock:
                    self._touched.pop(graph, None)
                    self.stats["retried"] += 1
        if made_one:
            self._evict(store, made_one)
        return rows

    def _claim(self, store: GraphStore, space: str) -> tuple[str | None, bool]:
        """The name of ``space``'s current projection, recorded as in use (made if absent),
        and whether this call made it."""
        state = store.read("retrieve/ppr_graph_state", space=space)[0]
        if state["edus"] == 0:
            return None, False
        digest = hashlib.sha1(str(state["revision"]).encode()).hexdigest()[:10]
        name = f"{PREFIX}{space_tag(space)}-{digest}"
        now = time.monotonic()
        with self._lock:
            if now - self._touched.get(name, -1e18) < self.grace / TOUCHES:
                return name, False
            self._touched[name] = now
        try:
            made = bool(store.write("retrieve/ppr_project", space=space, graph=name)[0]["made"])
        except ClientError as exc:
            if not _says(exc, "already exists"):  # made meanwhile by a client of an older kind
                raise
            made = False
        with self._lock:
            self.stats["made"] += made
        return name, made

    def _evict(self, store: GraphStore, keep: str) -> None:
        """Drop the outdated projections of ``keep``'s space and, above the cap, the least
        recently used others, skipping any used within the grace period."""
        stale_prefix = keep[:keep.rindex("-") + 1]
        names = [row["graph"] for row in store.read("retrieve/ppr_usage", prefix=PREFIX)]
        stale = [g for g in names if g.startswith(stale_prefix) and g != keep]
        others = [g for g in names if g != keep and g not in stale]
        extra = len(names) - len(stale) - self.capacity
        grace_ms = int(self.grace * 1000)
        for graph in stale + others[:max(extra, 0)]:
            if store.write("retrieve/ppr_evict", graph=graph, grace_ms=grace_ms):
                with self._lock:
                    self._touched.pop(graph, None)
                    self.stats["evicted"] += 1
        store.write("retrieve/ppr_forget", grace_ms=grace_ms)

    def drop_space(self, store: GraphStore, space: str) -> None:
        """Drop every projection of ``space``, in use or not (the space is being deleted)."""
        for row in store.read("retrieve/ppr_usage", prefix=f"{PREFIX}{space_tag(space)}-"):
            store.write("retrieve/ppr_drop", graph=row["graph"])
            with self._lock:
                self._touched.pop(row["graph"], None)


def personalized_pagerank(store: GraphStore, graph: str, seeds: list[dict[str, Any]],
                          k: int, config: PPRConfig) -> list[dict[str, Any]]:
    """Top-``k`` EDUs by PageRank personalised to weighted ``seeds`` ({element_id, weight})."""
    if not seeds:
        return []
    return store.read("retrieve/ppr_edus", graph=graph, seeds=seeds, damping=config.damping,
                      iterations=config.iterations, tolerance=config.tolerance,
                      concurrency=config.concurrency, k=k)
