"""Retrieval over raw turns against the real Neo4j: ranking, budgets, tenant isolation."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.client import Memory
from graphmem.errors import InputError, UnknownStrategyError
from graphmem.markers import mark, mark_tokens
from graphmem.retrieve.packing import count_tokens

from helpers import SAMPLE, ScriptedServer


@pytest.fixture()
def sample_space(memory: Memory, space: str) -> str:
    memory.ingest(SAMPLE, space=space)
    return space


@pytest.mark.parametrize("strategy", ["turns", "turns-bm25", "turns-vector"])
def test_the_answering_turn_ranks_first(memory: Memory, sample_space: str, strategy: str) -> None:
    result = memory.search("What breed of dog did Maya adopt?", space=sample_space,
                           strategy=strategy, budget=200)
    top = result.hits[0]
    assert "greyhound" in top.text and top.kind == "turn"
    assert top.source_ids == ["s2:1"] and top.speaker == "Maya"
    assert top.started_at is not None and top.started_at.day == 18
    assert top.text.startswith("[18 March 2024] Maya: ")


def test_context_respects_the_budget_and_rank_order(memory: Memory, sample_space: str) -> None:
    result = memory.search("How did the Lisbon half marathon go?", space=sample_space, budget=60,
                           strategy="turns")
    assert 0 < result.context_tokens <= 60 == result.budget
    assert count_tokens(result.context) == result.context_tokens
    ranked = [h.id for h in result.hits if h.id in set(result.included)]
    assert ranked == result.included
    # the turn naming both "Lisbon" and "half marathon" leads both rankings
    assert result.hits[0].source_ids == ["s1:4"] and result.hits[0].text in result.context
    scores = [h.score for h in result.hits]
    assert scores == sorted(scores, reverse=True)


@pytest.mark.parametrize("strategy", ["graphmem", "turns"])
def test_a_marked_context_fits_the_budget_marker_and_all(memory: Memory, sample_space: str,
                                                        strategy: str) -> None:
    """``marked``: the budget is for the context in its marker, as a prompt is given it (the
    agents' context and TypeScript's withMemory ask so); a budget with no room inside the
    marker is refused, naming it."""
    for budget in (40, 200, 1000):
        result = memory.search("How did the Lisbon half marathon go?", space=sample_space,
                               budget=budget, strategy=strategy, marked=True)
        assert result.context and count_tokens(mark(result.context)) <= budget
        assert result.budget == budget - mark_tokens()
    with pytest.raises(InputError, match="no room inside the marker") as caught:
        memory.search("Lisbon?", space=sample_space, budget=mark_tokens(), marked=True)
    assert caught.value.field == "budget"
    with pytest.raises(InputError, match="marked is true or false"):
        memory.search("Lisbon?", space=sample_space, marked="yes")  # type: ignore[arg-type]


def test_spaces_never_see_each_other(memory: Memory, space: str, tmp_path: Path) -> None:
    other = space + "-other"
    data = json.loads(SAMPLE.read_text())
    memory.ingest(SAMPLE, space=space)
    data["conversations"][0]["sessions"][1]["turns"][0]["text"] = "We adopted a greyhound too!"
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    memory.ingest(path, space=other)
    try:
        for strategy in ("turns", "turns-bm25", "turns-vector"):
            mine = memory.search("greyhound adopted", space=space, strategy=strategy, budget=2000)
            theirs = memory.search("greyhound adopted", space=other, strategy=strategy,
                                   budget=2000)
            assert mine.hits and all(h.id.startswith(f"{space}/") for h in mine.hits)
            assert theirs.hits and all(h.id.startswith(f"{other}/") for h in theirs.hits)
        assert memory.search("greyhound", space=space + "-nobody", budget=500).hits == []
    finally:
        memory.delete_space(other)


def test_delete_removes_one_space_only(memory: Memory, space: str) -> None:
    other = space + "-keep"
    memory.ingest(SAMPLE, space=space)
    memory.ingest(SAMPLE, space=other)
    try:
        memory.delete_space(space)
        listed = {row["space"]: row for row in memory.spaces()}
        assert space not in listed
        assert (listed[other]["sessions"], listed[other]["turns"]) == (3, 17)
        assert memory.search("greyhound", space=space, budget=200).hits == []
        assert memory.search("greyhound", space=other, budget=200).hits
    finally:
        memory.delete_space(other)


def test_bad_requests_are_clear_errors(memory: Memory, sample_space: str) -> None:
    with pytest.raises(UnknownStrategyError, match="turns"):
        memory.search("anything", space=sample_space, strategy="telepathy")
    with pytest.raises(InputError, match="question"):
        memory.search("   ", space=sample_space)
    with pytest.raises(InputError, match="budget"):
        memory.search("anything", space=sample_space, budget=0)
    # punctuation-only questions have no BM25 terms; dense search still answers
    assert memory.search("???", space=sample_space, budget=100).hits
    assert memory.search("what is the", space=sample_space, budget=100).hits  # stop words only
    assert memory.search("what is the", space=sample_space, strategy="turns-bm25").hits == []


def test_answer_sends_the_context_to_the_llm(memory: Memory, sample_space: str,
                                             tmp_path: Path) -> None:
    from graphmem.config import Settings
    from graphmem.providers.llm import OpenAICompatibleLLM

    server = ScriptedServer()
    try:
        server.script = [('{"answer": "a greyhound called Pepper"}', "stop")]
        settings = Settings(home=tmp_path, llm_base_url=server.url, llm_model="scripted")
        answering = Memory(memory.settings, store=memory.store, embedder=memory.embedder,
                           llm=OpenAICompatibleLLM(settings))
        reply = answering.answer("What dog did Maya adopt?", space=sample_space, budget=120)
        assert reply.answer == "a greyhound called Pepper" and reply.model == "scripted"
        prompt = server.requests[0]["messages"][1]["content"]  # type: ignore[index]
        assert "greyhound called Pepper" in prompt
        assert "Question: What dog did Maya adopt?" in prompt
        assert reply.search.context_tokens <= 120
    finally:
        server.httpd.shutdown()
