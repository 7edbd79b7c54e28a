"""The first search after Neo4j starts waits for Neo4j to plan every statement a search runs
(measured on two cores: 4.9 s, then 40 ms; a second space's first search 0.1 s), so a server
makes one itself as it starts, beside serving: of the smallest space it serves that holds
something, with its answer thrown away. A search in an empty space plans too little (the next
real one still took 2.8 s), so a server with nothing stored yet makes none."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterable

from graphmem.client import Memory
from graphmem.serve.deps import Searches

log = logging.getLogger("graphmem.serve")
QUESTION = "What was said?"


def warm_neo4j(memory: Memory, searcher: Searches, served: Iterable[str]) -> float | None:
    """Search the smallest of ``served`` that holds something, through ``searcher`` (so a
    search process's own reads are made too); the seconds it took, or None when no served
    space holds anything or the search failed (a caller's own search then says why)."""
    wanted = set(served)
    began = time.perf_counter()
    try:
        held = {row["space"]: row["turns"] for row in memory.spaces()
                if row["space"] in wanted and row["turns"]}
        if not held:
            return None
        searcher.search(QUESTION, space=min(held, key=lambda name: (held[name], name)))
    except Exception as exc:  # a warm-up never stops a server
        log.warning("graphmem: the warm-up search failed (%s)", exc)
        return None
    return time.perf_counter() - began
