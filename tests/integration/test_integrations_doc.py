"""docs/integrations.md runs as written: its examples, in order, each on its own (a reader
copies one, not the page: nothing it uses may come from another), against the real Neo4j
(each framework's model scripted where an agent runs)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graphmem.client import Memory
from graphmem.integrations import ADAPTERS, APART

pytestmark = pytest.mark.neo4j
PAGE = Path(__file__).parents[2] / "docs" / "integrations.md"
EXAMPLE = re.compile(r"```python\n# example: (\S+)\n(.*?)```", re.DOTALL)


def test_the_page_has_an_example_per_adapter() -> None:
    names = [m.group(1).replace("-", "_") for m in EXAMPLE.finditer(PAGE.read_text())]
    assert names == ["core", *ADAPTERS, *APART]


def test_the_examples_run(memory: Memory, space: str) -> None:
    for match in EXAMPLE.finditer(PAGE.read_text()):
        if match.group(1) in APART:
            continue  # run in their own environment (tests/apart/)
        scope: dict[str, object] = {"memory": memory, "space": space}  # what the page says
        exec(compile(match.group(2), f"docs/integrations.md:{match.group(1)}", "exec"), scope)
    assert {c.conversation for c in memory.conversations(space)} >= {
        "chat-1", "chat-2", "chat-3", "chat-4", "chat-5"}
