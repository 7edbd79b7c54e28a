"""Strategy `graphmem` on the real Neo4j: the answer within a small budget, one date header per
session, every layer the space holds used (and a space with raw turns only still served), and
rankings that do not move when another tenant adds data, where Lucene's BM25 scores do, and a
turn's statement shown in its place when the turn does not fit."""

from __future__ import annotations

import json
import re
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.client import Memory
from graphmem.retrieve.base import Query, RetrievalContext, space_state
from graphmem.retrieve.fused.candidates import gather, optional_layers
from graphmem.retrieve.fused.features import candidate_rows
from graphmem.retrieve.fused.sources import Pools
from graphmem.retrieve.fused.space_index import space_turns
from graphmem.retrieve.fused.space_vectors import read_space_vectors
from graphmem.retrieve.fused.statements import turn_statements
from graphmem.retrieve.packing import count_tokens

from helpers import SAMPLE, query_rows

HEADER = re.compile(r"^\[\d{1,2} \w+ \d{4}\]$", re.MULTILINE)


def test_answers_within_a_small_budget_with_one_header_per_session(memory: Memory,
                                                                  space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    result = memory.search("What breed of dog did Maya adopt?", space=space,
                           strategy="graphmem", budget=60)
    assert "Maya: Big news: we adopted a dog last Saturday! A three-year-old greyhound" \
        in result.context
    assert 0 < result.context_tokens <= 60 and count_tokens(result.context) == \
        result.context_tokens
    sessions = {h.session_id for h in result.hits}
    assert len(HEADER.findall(result.context)) == len(sessions) >= 1
    assert result.included == [h.id for h in result.hits]
    assert len({h.id for h in result.hits}) == len(result.hits)
    assert all(len(h.source_ids) == 1 and h.kind == "turn" for h in result.hits)
    # time order: sessions, then turns as spoken
    starts = [h.started_at for h in result.hits]
    assert starts == sorted(starts)  # type: ignore[type-var]
    big = memory.search("What breed of dog did Maya adopt?", space=space,
                        strategy="graphmem", budget=4000)
    assert len(big.hits) == 17 and len(HEADER.findall(big.context)) == 3  # the whole space


def test_every_layer_the_space_holds_feeds_candidates(memory: Memory, space: str,
                                                      tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)
    query = Query("How did Jonas's knee hold up in Lisbon?", memory.embedder)
    ctx = RetrievalContext(memory.store, memory.embedder, query)
    state = space_state(memory.store, space, ("turns", *optional_layers()))
    signals = gather(ctx, state, space_turns(memory.store, state, memory.caches), Pools())
    assert set(signals.sources) == {"bm25", "vector", "units", "edus", "scenes", "events",
                                    "episodes"}
    assert all(signals.ranks.get(s) for s in ("bm25", "vector", "edus", "units", "scenes"))
    # a space of raw turns only: the layers' sources are skipped, the search still answers
    bare = Memory(memory.settings.model_copy(update={"ingest_layers": ""}),
                  store=memory.store, embedder=memory.embedder)
    other = f"{space}-bare"
    try:
        bare.ingest(SAMPLE, space=other)
        state = space_state(memory.store, other, ("turns", *optional_layers()))
        table = space_turns(memory.store, state, memory.caches)
        assert gather(ctx, state, table, Pools()).sources == ("bm25", "vector")
        found = memory.search("What breed of dog did Maya adopt?", space=other,
                              strategy="graphmem", budget=60)
        assert "greyhound" in found.context
    finally:
        memory.delete_space(other)


def test_vectors_scored_in_the_client_rank_as_neo4j_does(memory: Memory, space: str,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    memory.ingest(SAMPLE, space=space)
    state = space_state(memory.store, space, ("turns", *optional_layers()))
    table = space_turns(memory.store, state, memory.caches)
    dense = ("vector", "units", "edus", "scenes", "episodes")
    for question in ("How did Jonas's knee hold up in Lisbon?", "What breed is the dog?",
                     "What did Maya make in pottery class?"):
        ctx = RetrievalContext(memory.store, memory.embedder, Query(question, memory.embedder),
                               caches=memory.caches)
        held = gather(ctx, state, table, Pools(edus=5, turns=7), dense)
        assert len(memory.caches) >= 2  # the space's table and vectors are now in the client
        with monkeypatch.context() as patched:  # the same space searched by Neo4j's scans
            patched.setattr(memory.store, "settings", memory.settings.model_copy(
                update={"client_vectors_max_turns": 0}))
            scanned = gather(ctx, state, table, Pools(edus=5, turns=7), dense)
        assert held.sources == scanned.sources == dense
        for source in dense:
            assert held.ranks[source].keys() == scanned.ranks[source].keys(), source
            for row, (rank, score) in scanned.ranks[source].items():
                assert held.ranks[source][row][0] == rank, (source, row)
                assert held.ranks[source][row][1] == pytest.approx(score, abs=1e-6)
        assert len(held.ranks["vector"]) == 7  # the pools' depth holds in the client too
    # a change of the space is read afresh: its new turn is found by the client's vectors
    memory.add_messages(space, "later", [{"speaker": "Maya", "text": "Our greyhound learned "
                                          "to fetch frisbees at the beach."}])
    memory.flush()
    state = space_state(memory.store, space, ("turns", *optional_layers()))
    table = space_turns(memory.store, state, memory.caches)
    ctx = RetrievalContext(memory.store, memory.embedder,
                           Query("Which toy does the greyhound fetch?", memory.embedder))
    top = gather(ctx, state, table, Pools(turns=1), ("vector",)).ranks["vector"]
    assert [table.rows[row].text for row in top] == [
        "Our greyhound learned to fetch frisbees at the beach."]
    # that read kept the vectors it held and fetched only the new units' (the live turn,
    # and what its layers re-derived): equal to a read of the whole space
    fetched: list[list[dict[str, str]]] = []
    real_read = memory.store.read_plain

    def spy(name: str, **params: Any) -> list[dict[str, Any]]:
        if name == "retrieve/space_vectors_by_id":
            fetched.append(params["rows"])
        return real_read(name, **params)

    kinds = tuple(sorted(dense))
    before = read_space_vectors(memory.store, space, kinds)
    memory.add_messages(space, "later", [{"speaker": "Jonas", "text": "Frisbees at dawn!"}])
    memory.flush()
    monkeypatch.setattr(memory.store, "read_plain", spy)
    refreshed = read_space_vectors(memory.store, space, kinds, before)
    whole = read_space_vectors(memory.store, space, kinds)
    assert len(fetched) == 1 and 0 < len(fetched[0]) < refreshed.rows // 4
    assert {"kind": "vector", "id": table.rows[-1].id} not in fetched[0]  # an old turn: kept
    for kind in kinds:
        assert refreshed.sources[kind].ids == whole.sources[kind].ids
        assert refreshed.sources[kind].hashes == whole.sources[kind].hashes
        assert refreshed.sources[kind].turn_ids == whole.sources[kind].turn_ids
        assert np.array_equal(refreshed.sources[kind].vectors, whole.sources[kind].vectors)


def test_rankings_do_not_depend_on_other_tenants(memory: Memory, space: str,
                                                 tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)
    questions = ["How far does Jonas run on Sundays?", "What did Maya make in pottery class?",
                 "Where is the rescue dog from?"]

    def rankings(strategy: str) -> list[list[tuple[str, float]]]:
        return [[(h.id, round(h.score, 6)) for h in memory.search(
            q, space=space, strategy=strategy, budget=120).hits] for q in questions]

    before, lucene_before = rankings("graphmem"), rankings("turns-bm25")
    data = json.loads(SAMPLE.read_text())  # another tenant talks a lot about running
    data["conversations"][0]["sessions"] = [
        {"id": f"x{i}", "started_at": f"2024-0{1 + i % 9}-01T10:00:00",
         "turns": [{"speaker": "Ana", "text": f"Running on Sundays again, {i} kilometres."},
                   {"speaker": "Ben", "text": "Pottery and a rescue dog sound nicer."}]}
        for i in range(40)]
    path = tmp_path / "other.json"
    path.write_text(json.dumps(data))
    other = f"test-other-{uuid.uuid4().hex[:8]}"
    try:
        memory.ingest(path, space=other)
        assert rankings("graphmem") == before
        assert rankings("turns-bm25") != lucene_before  # Lucene's statistics are global
    finally:
        memory.delete_space(other)


def test_a_space_too_large_for_the_client_table_is_served_as_turns(
        memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    memory.ingest(SAMPLE, space=space)
    question = "What breed of dog did Maya adopt?"
    fused = memory.search(question, space=space, strategy="graphmem", budget=200)
    monkeypatch.setattr(memory.store, "settings", memory.settings.model_copy(
        update={"client_table_max_turns": 16}))  # the sample holds 17 turns
    with caplog.at_level("WARNING", logger="graphmem"):
        large = memory.search(question, space=space, strategy="graphmem", budget=200)
        again = memory.search(question, space=space, strategy="graphmem", budget=200)
    plain = memory.search(question, space=space, strategy="turns", budget=200)
    # served as `turns` packs: its hits are those `turns` shows in the budget
    assert [h.id for h in large.hits] == plain.included == [h.id for h in again.hits]
    assert large.context == plain.context and "greyhound" in large.context
    assert [h.id for h in fused.hits] != [h.id for h in large.hits]  # the ranker did not run
    warned = [r.getMessage() for r in caplog.records if "CLIENT_TABLE_MAX_TURNS" in r.getMessage()]
    assert len(warned) == 1 and "17 turns" in warned[0]  # once per space


def test_a_statement_stands_in_for_its_turn_when_the_budget_is_tight(memory: Memory,
                                                                     space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    question = "Which rescue did Pepper come from, and how long does she sleep?"
    # 20 tokens: the answer's turn (s2:3) does not fit whole, its statement does
    tight = memory.search(question, space=space, strategy="graphmem-statements", budget=20)
    whole = memory.search(question, space=space, strategy="graphmem", budget=20)
    assert "s2:3" not in {i for h in whole.hits for i in h.source_ids}
    assert all(h.kind == "turn" for h in whole.hits)
    [hit] = tight.hits
    assert (hit.kind, hit.source_ids) == ("edu", ["s2:3"])
    assert tight.context == "[18 March 2024]\nMaya: She sleeps about twenty hours a day."
    assert tight.context_tokens <= 20
    [row] = query_rows(memory.store, "MATCH (e:EDU {id: $id})-[:FROM_TURN]->(t:Turn) "
                                     "RETURN t.source_id AS turn", id=hit.id)
    assert row == {"turn": "s2:3"}
    # 30 tokens: room for the whole turn, which is shown instead
    roomy = memory.search(question, space=space, strategy="graphmem-statements",
                          budget=30)
    assert "Maya: Yes, from a rescue in Bristol. She sleeps about twenty hours a day." \
        in roomy.context and all(h.kind == "turn" for h in roomy.hits)
    # the client's scoring of the statements and Neo4j's choose the same ones
    ctx = RetrievalContext(memory.store, memory.embedder, Query(question, memory.embedder))
    state = space_state(memory.store, space, ("turns", *optional_layers()))
    table = space_turns(memory.store, state, memory.caches)
    signals = gather(ctx, state, table, Pools())
    rows = candidate_rows(table, signals)
    assert signals.held is not None
    held = turn_statements(ctx, state, table, rows, signals.held)
    neo4j = turn_statements(ctx, state, table, rows)
    assert sum(st is not None for st in held) >= 10
    assert [st and (st.id, st.line) for st in held] == [st and (st.id, st.line) for st in neo4j]
    assert all(a is None or b is None or a.score == pytest.approx(b.score, abs=1e-5)
               for a, b in zip(held, neo4j, strict=True))


@pytest.mark.parametrize("budget", [60, 300])
def test_search_and_training_run_one_pipeline(memory: Memory, space: str, budget: int) -> None:
    """What training measures is what a search shows: a question labelled for training (its
    candidates found by the same pipeline, kept as a Sample) packs, under the shipped rule,
    to exactly the turns the search returns."""
    from graphmem.eval.datasets import Question
    from graphmem.retrieve.fused import load_ranker
    from graphmem.retrieve.fused.pipeline import select, shaped
    from graphmem.training.ranker import labelled

    memory.ingest(SAMPLE, space=space)
    ranker = load_ranker()
    for asked in ("What breed of dog did Maya adopt?",
                  "Which cities did Jonas and Maya travel to?",
                  "How did Jonas's knee hold up in Lisbon?"):
        shown = memory.search(asked, space=space, strategy="graphmem", budget=budget)
        sample = labelled(memory, space, Question("maya-jonas", asked, "", "single-hop"),
                          Pools().scaled(budget))
        p = shaped(ranker.probabilities(sample.x), sample, ranker.rule)
        table = space_turns(memory.store, space_state(memory.store, space, ("turns",)),
                            memory.caches)
        chosen = [table.rows[sample.rows[n]].id for n, _ in select(sample, p, budget,
                                                                    ranker.rule)]
        assert sorted(chosen) == sorted(h.id for h in shown.hits), asked
