"""``search(..., explain=True)`` on the real Neo4j: it changes nothing a search returns, and
what it says is true of the search (each hit's sources and their ranks, the ranker's
probability, what packing spent, why the best of the rest stayed out), for `graphmem` and
for the seed strategies, on the Python API, REST and MCP."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import numpy as np
import pytest
from fastapi.testclient import TestClient
from mcp import Client

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.models import SearchResult
from graphmem.retrieve.fused import load_ranker
from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server
from graphmem.serve.rest import build_app

from helpers import SAMPLE

QUESTION = "What breed of dog did Maya adopt?"


def _bare(result: SearchResult) -> dict[str, Any]:
    """What a search returns, apart from its explanation and timings."""
    return {"hits": [h.model_dump(exclude={"why"}) for h in result.hits],
            "context": result.context, "included": result.included,
            "tokens": result.context_tokens, "omitted": result.omitted}


def test_graphmem_explains_each_hit_and_what_it_left_out(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    plain = memory.search(QUESTION, space=space, budget=60)
    told = memory.search(QUESTION, space=space, budget=60, explain=True)
    assert _bare(told) == _bare(plain)
    assert plain.explanation is None and all(h.why is None for h in plain.hits)
    explanation = told.explanation
    assert explanation is not None and explanation.strategy == "graphmem"
    assert explanation.candidates > len(told.hits) and explanation.ms > 0
    assert set(explanation.detail["sources"]) >= {"bm25", "vector"}
    spent = 0
    for hit in told.hits:
        why = hit.why
        assert why is not None
        assert why.found_by or why.near  # proposed by a source, or beside a turn that was
        assert all(f.rank >= 1 for f in why.found_by)
        assert why.probability is not None and 0 <= why.probability <= 1
        assert why.mixed is not None and why.worth is not None and why.moved_by
        assert why.packed.startswith("shown") and f"of {told.budget} used" in why.packed
        spent += why.tokens
    assert spent == told.context_tokens  # what packing says it spent is the context
    greyhound = next(h for h in told.hits if "greyhound" in h.text)
    assert greyhound.why is not None
    assert {f.source for f in greyhound.why.found_by} >= {"bm25", "vector"}
    # the best left out: each said to need more than was left
    assert explanation.left_out
    for left in explanation.left_out:
        assert left.id not in told.included
        assert left.why.packed.startswith("left out") and left.why.tokens > 0
        assert left.why.probability is not None


def test_the_ranker_contributions_add_up_to_its_score() -> None:
    ranker = load_ranker()
    x = np.random.default_rng(3).random((7, max(ranker.columns) + 1)).astype(np.float32)
    effects, base = ranker.contributions(x)
    logits = ranker.calibrated(ranker.raw(x[:, ranker.columns]))
    assert effects.shape == (7, len(ranker.features))
    assert np.allclose(effects.sum(axis=1) + base, logits, atol=1e-5)


@pytest.mark.parametrize(("strategy", "unit", "search"), [
    ("turns", set(), set()),
    ("emem-g", {"pagerank"}, {"seeds", "mentions"}),
    ("esmem", {"context", "summary"}, {"anchors", "window", "alpha"}),
    ("mms", {"context_unit"}, set()),
])
def test_seed_strategies_explain_rank_score_and_what_they_hold(
        memory: Memory, space: str, strategy: str, unit: set[str], search: set[str]) -> None:
    memory.ingest(SAMPLE, space=space)
    plain = memory.search(QUESTION, space=space, strategy=strategy, budget=80)
    told = memory.search(QUESTION, space=space, strategy=strategy, budget=80, explain=True)
    assert _bare(told) == _bare(plain)
    assert told.explanation is not None and told.explanation.how.startswith(strategy)
    assert set(told.explanation.detail) >= search
    for rank, hit in enumerate(told.hits, 1):
        assert hit.why is not None
        assert [(f.source, f.rank) for f in hit.why.found_by] == [(strategy, rank)]
        assert math.isclose(hit.why.found_by[0].score, hit.score, abs_tol=1e-4)
        assert set(hit.why.detail) >= unit
        shown = hit.id in told.included
        assert hit.why.packed.startswith("left out") != shown
    first = told.hits[0].why
    assert first is not None and first.packed.startswith("1st in the context: 1st by score")
    left = {u.id for u in told.explanation.left_out}
    assert left <= {h.id for h in told.hits} - set(told.included)


def test_explain_is_a_flag(memory: Memory, space: str) -> None:
    with pytest.raises(InputError, match="explain"):
        memory.search(QUESTION, space=space, explain="yes")  # type: ignore[arg-type]


def test_rest_and_mcp_send_the_same_explanation(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    app = build_app(memory, {"t": Spaces.of([space])}, 1_000_000)
    with TestClient(app) as http:
        body = {"question": QUESTION, "budget": 60, "explain": True}
        sent = http.post(f"/v1/spaces/{space}/search", json=body,
                         headers={"Authorization": "Bearer t"})
        assert sent.status_code == 200, sent.text
        rest = sent.json()
        plain = http.post(f"/v1/spaces/{space}/search", json={**body, "explain": False},
                          headers={"Authorization": "Bearer t"}).json()
        refused = http.post(f"/v1/spaces/{space}/search", json={**body, "explain": "yes"},
                            headers={"Authorization": "Bearer t"})
    assert refused.status_code in (400, 422)
    assert plain["explanation"] is None and all(h["why"] is None for h in plain["hits"])
    assert rest["context"] == plain["context"]
    assert rest["explanation"]["strategy"] == "graphmem"
    assert all(h["why"]["found_by"] or h["why"]["near"] for h in rest["hits"])

    async def call() -> Any:
        async with Client(build_server(memory, Spaces.of([space]))) as client:
            return await client.call_tool("search_memory", {
                "question": QUESTION, "budget": 60, "explain": True, "space": space})

    tool = asyncio.run(call())
    assert not tool.is_error
    structured = tool.structured_content
    assert [h["why"]["packed"] for h in structured["hits"]] == \
        [h["why"]["packed"] for h in rest["hits"]]
    text = tool.content[0].text
    assert "Why these (" in text and "- graphmem: every source" in text
    assert "found by:" in text and "Left out" in text
    # what a model reads holds no text beyond what the budget let in: left out by id only
    assert all(left["text"] not in text for left in structured["explanation"]["left_out"])
