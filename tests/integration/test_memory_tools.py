"""The agent tools' search answer on the real Neo4j: each line numbered with its own memory
ids after the block, the block within the tool's budget (marker and numbers counted), the
question itself never handed back, and a forget of one line's id takes that memory alone."""

from __future__ import annotations

import re

import pytest

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory
from graphmem.markers import OPEN, strip_text
from graphmem.text import count_tokens

from helpers import memory_ids

pytestmark = pytest.mark.neo4j


def test_search_tool_lines_ids_budget_and_the_question_left_out(memory: Memory,
                                                                space: str) -> None:
    chat = AgentMemory(memory, space, "chat")
    chat.add([{"speaker": "user", "text": "My bike is red and lives in the shed.", "id": "a"},
              {"speaker": "user", "text": "My car is blue and lives in the garage.", "id": "b"}])
    chat.add([{"speaker": "user", "text": "What colour is my bike?", "id": "q"}])
    memory.flush()
    search, _, forget = chat.tools()

    answer = search("What colour is my bike?", max_tokens=200)
    block, listed = answer.split("\n\nmemory ids: ")
    assert block.startswith(OPEN) and count_tokens(block) <= 200
    # each piece (a day's header line may come with it) starts with its number
    lines = re.split(r"^\[\d+\] ", block.split("\n", 1)[1], flags=re.MULTILINE)[1:]
    assert re.findall(r"^\[(\d+)\] ", block, re.MULTILINE) == [
        str(n) for n in range(1, len(lines) + 1)] and len(lines) >= 2
    assert not any("What colour" in line for line in lines)
    assert listed.count("[") == len(lines)
    bike = next(n for n, line in enumerate(lines, 1) if "red" in line)
    bike_ids = listed.split("; ")[bike - 1].split("] ", 1)[1].split(", ")
    assert bike_ids == [chat.memory_ids(memory.search("red bike shed", space=space))[0]]
    assert set(memory_ids(answer)) <= {m.turn_id for m in chat.messages()}

    small = search("What colour is my bike?", max_tokens=30)
    assert count_tokens(small.split("\n\nmemory ids: ")[0]) <= 30 or small.startswith("(")

    assert forget(bike_ids) == "forgot 1 of 1 memories"
    assert [m.id for m in chat.messages()] == ["b", "q"]
    assert strip_text(search("bike", max_tokens=200))[0].count("red") == 0
