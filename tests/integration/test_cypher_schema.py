"""The files under cypher/schema/, one case each: the statement runs on the real Neo4j as
written, with parameters only, and does what its comment says."""

from __future__ import annotations

import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.store import GraphStore

from cypher_support import (
    Case,
    registrar,
)
from helpers import SAMPLE

CASES: dict[str, Case] = {}
case = registrar(CASES)


def _schema_file(name: str) -> Case:
    def check(store: GraphStore, space: str, memory: Memory) -> None:
        with store.driver.session(database=store.database) as session:
            for statement in cypher.statements(name):
                summary = session.run(statement,  # type: ignore[arg-type]
                                      dimensions=384).consume()
                assert summary.counters.indexes_added == 0  # already there: a no-op
                assert summary.counters.constraints_added == 0

    return check


for _name in ("schema/constraints", "schema/range_indexes", "schema/fulltext_indexes",
              "schema/vector_indexes"):
    CASES[_name] = _schema_file(_name)


def test_every_cypher_file_has_a_case() -> None:
    """A new file without a case fails; the Browser's saved queries are run by
    test_browser.py."""
    from test_cypher_admin import CASES as ADMIN
    from test_cypher_ingest import CASES as INGEST
    from test_cypher_reembed import CASES as REEMBED
    from test_cypher_retrieve import CASES as RETRIEVE

    every = [*CASES, *ADMIN, *INGEST, *REEMBED, *RETRIEVE]
    assert len(every) == len(set(every))  # one case per file
    assert sorted(every) == sorted(n for n in cypher.names() if not n.startswith("browser/"))


@pytest.mark.parametrize("name", sorted(CASES))
def test_cypher_file(name: str, memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    CASES[name](memory.store, space, memory)
