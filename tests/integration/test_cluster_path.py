"""The path onto a Neo4j cluster: every statement runs in a managed read or write transaction
tagged with its name, and the whole client works over a ``neo4j://`` routing URI (here
against our single server, which routes to itself)."""

from __future__ import annotations

import threading
from typing import Any

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.store import GraphStore, Tx

from helpers import SAMPLE


def running_transactions(store: GraphStore) -> list[dict[str, Any]]:
    records, _, _ = store.driver.execute_query(
        "SHOW TRANSACTIONS YIELD metaData, currentQuery RETURN metaData, currentQuery",
        database_=store.database)
    return [record.data() for record in records]


def test_transactions_carry_the_statement_name(store: GraphStore) -> None:
    seen: list[dict[str, Any]] = []
    inside = threading.Event()

    def work(tx: Tx) -> None:
        tx.run("admin/space_exists", space="nobody")
        seen.extend(running_transactions(store))  # asked from another session meanwhile
        inside.set()

    store.read_tx(work, "retrieve/a-named-read")
    assert inside.is_set()
    assert {"graphmem": "retrieve/a-named-read"} in [row["metaData"] for row in seen]

    seen.clear()
    store.write_tx(work, "ingest/a-named-write")
    assert {"graphmem": "ingest/a-named-write"} in [row["metaData"] for row in seen]


def test_the_client_works_over_a_routing_uri(settings: Settings, store: GraphStore,
                                             embedder: SentenceTransformerEmbedder,
                                             space: str) -> None:
    routed = settings.model_copy(update={
        "neo4j_uri": settings.neo4j_uri.replace("bolt://", "neo4j://")})
    assert routed.neo4j_uri.startswith("neo4j://")
    with Memory(routed, embedder=embedder) as memory:
        report = memory.ingest(SAMPLE, space=space)
        assert report.turns > 0
        found = memory.search("What is the name of the dog?", space=space, budget=300)
        assert "Pepper" in found.context
        assert memory.has_space(space)
        assert memory.delete_space(space)
        assert not memory.has_space(space)
