"""What the main environment checks of every adapter, for the adapters tested apart: the
operations each says it offers, and its example in docs/integrations.md run as written."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from graphmem.client import Memory
from graphmem.integrations import APART
from graphmem.operations import OPERATIONS

PAGE = Path(__file__).parents[2] / "docs" / "integrations.md"
EXAMPLE = re.compile(r"```python\n# example: (\S+)\n(.*?)```", re.DOTALL)


@pytest.mark.parametrize("adapter", APART)
def test_the_adapter_offers_listed_operations(adapter: str) -> None:
    module = importlib.import_module(f"graphmem.integrations.{adapter}")
    assert module.OFFERS and set(module.OFFERS) <= {op.name for op in OPERATIONS}
    for member in module.OFFERS.values():
        owner, _, attribute = member.partition(".")
        assert not attribute or hasattr(getattr(module, owner), attribute), member


@pytest.mark.parametrize("adapter", APART)
def test_the_example_runs(adapter: str, memory: Memory, space: str) -> None:
    found = [m.group(2) for m in EXAMPLE.finditer(PAGE.read_text()) if m.group(1) == adapter]
    assert len(found) == 1
    exec(compile(found[0], f"docs/integrations.md:{adapter}", "exec"),
         {"memory": memory, "space": space})
