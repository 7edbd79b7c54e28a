"""The Neo4j Browser kit: the style captions every kind of node graphmem writes with a
property that node has, and every saved query under cypher/browser/ runs as written against a
small space and returns a graph drawn only with styled kinds."""

from __future__ import annotations

import re
from typing import Any

import pytest
from click.testing import CliRunner
from neo4j.graph import Node

from graphmem import cypher
from graphmem.cli import STYLE, main
from graphmem.client import Memory

from helpers import SAMPLE, query_rows

RULE = re.compile(r"node\.(\w+)\s*\{((?:[^{}]|\{\w+\})*)\}")  # a caption holds '{prop}'
CAPTION = re.compile(r"caption:\s*'\{(\w+)\}'")
QUERIES = sorted(n for n in cypher.names() if n.startswith("browser/"))


def style() -> dict[str, str]:
    """Label -> the property its caption shows."""
    rules = {}
    for label, body in RULE.findall(STYLE.read_text()):
        found = CAPTION.search(body)
        assert found, f"node.{label} has no property caption"
        rules[label] = found.group(1)
    return rules


@pytest.fixture()
def sample(memory: Memory, space: str) -> str:
    memory.ingest(SAMPLE, space=space)
    return space


def test_every_node_of_a_space_gets_a_caption_it_has(memory: Memory, sample: str) -> None:
    rules = style()
    rows = query_rows(memory.store, "MATCH (n) WHERE n.space = $s OR (n:Space AND n.id = $s) "
                      "RETURN labels(n) AS labels, properties(n) AS props", s=sample)
    kinds = {label for row in rows for label in row["labels"]}
    assert {"Space", "Conversation", "Session", "Speaker", "Turn", "EDU", "Argument", "Event",
            "Boundary"} <= kinds
    for row in rows:
        for label in row["labels"]:
            assert label in rules, f"no style for {label}"
            caption = row["props"].get(rules[label])
            assert isinstance(caption, str) and caption.strip(), (label, rules[label])


@pytest.mark.parametrize("name", QUERIES)
def test_saved_query_draws_a_styled_graph(memory: Memory, sample: str, name: str) -> None:
    rules = style()
    turn = query_rows(memory.store, "MATCH (t:Turn {space: $s}) RETURN t.id AS id "
                      "ORDER BY t.seq LIMIT 1", s=sample)[0]["id"]
    with memory.store.driver.session(database=memory.store.database) as session:
        records = list(session.run(cypher.load(name),  # type: ignore[arg-type]
                                   space=sample, word="dog", id=turn))
    nodes: list[Node] = [v for r in records for v in r.values() if isinstance(v, Node)]
    assert len(nodes) >= 2, name
    for node in nodes:
        assert set(node.labels) <= set(rules), (name, node.labels)
        assert all(node.get(rules[label]) for label in node.labels), (name, node.labels)
    if name != "browser/01_spaces":
        assert all(n.get("space", n.get("id")) == sample for n in nodes)  # one space only


def test_the_browser_command_says_where_and_how(neo4j_server: Any) -> None:
    result = CliRunner().invoke(main, ["browser"])
    assert result.exit_code == 0
    assert "http://127.0.0.1:" in result.output and "graphmem.grass" in result.output
    assert ":style node { diameter" in result.output  # one line to paste
    for name in QUERIES:
        assert name.split("/")[1] + ".cypher" in result.output
