"""Strategy `graphmem-llm`: an LLM (here a scripted OpenAI-compatible server) reads the best
candidates once; what it marks goes first and so into a small budget; an unusable reply, or
no LLM, leaves `graphmem`'s context as it was, counted as a fallback."""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory

from helpers import SAMPLE, ScriptedServer, scripted_memory

QUESTION = "What does Maya do on Tuesday evenings?"
BUDGET = 40




def listed(body: dict[str, Any]) -> list[str]:
    """The numbered messages of a rerank request, each without its day."""
    user = next(m["content"] for m in body["messages"] if m["role"] == "user")
    return [re.sub(r"^\[[^\]]*\] ", "", line.split("] ", 1)[1])
            for line in user.splitlines() if re.match(r"\[\d+\] ", line)]


def test_what_the_llm_marks_goes_first(memory: Memory, space: str, server: ScriptedServer,
                                       tmp_path: Path,
                                       caplog: pytest.LogCaptureFixture) -> None:
    memory.ingest(SAMPLE, space=space)
    plain = memory.search(QUESTION, space=space, budget=BUDGET)
    # without an LLM, graphmem-llm is graphmem
    same = memory.search(QUESTION, space=space, strategy="graphmem-llm", budget=BUDGET)
    assert same.context == plain.context
    marked: list[str] = []

    def mark_the_last(body: dict[str, Any]) -> tuple[str, str]:
        lines = listed(body)
        marked.append(lines[-1])  # the ranker's last candidate shown
        return json.dumps({"evidence": [len(lines) - 1]}), "stop"

    server.responder = mark_the_last
    mem = scripted_memory(memory, server, tmp_path)
    try:
        with caplog.at_level(logging.DEBUG, logger="graphmem"):
            result = mem.search(QUESTION, space=space, strategy="graphmem-llm", budget=BUDGET)
        assert len(server.requests) == 1 and len(marked) == 1
        assert marked[0] not in plain.context and marked[0] in result.context
        # the debug log names what was marked by its input id, and holds none of its text
        logged = [r.getMessage() for r in caplog.records if "the LLM marked" in r.getMessage()]
        assert len(logged) == 1 and "marked 1 of" in logged[0]
        hit = next(h for h in result.hits if marked[0] in h.text)
        assert logged[0].endswith(f"{hit.source_ids[:1]}") and marked[0] not in logged[0]
        assert mem.llm_usage()["evidence_rerank"].calls == 1
        # graphmem itself never asks
        assert mem.search(QUESTION, space=space, budget=BUDGET).context == plain.context
        assert len(server.requests) == 1

        server.responder = lambda body: ("this is not JSON", "stop")
        other = mem.search("Which race is Jonas training for?", space=space,
                           strategy="graphmem-llm", budget=BUDGET)
        expected = memory.search("Which race is Jonas training for?", space=space,
                                 budget=BUDGET)
        assert other.context == expected.context
        assert mem.llm_usage()["evidence_rerank"].fallbacks == 1
    finally:
        mem.live.close()
