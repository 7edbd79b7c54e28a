"""MMS on the real Neo4j: one retrieval unit per context unit, both linked to the round's turns;
re-ingest and adding the layer later change nothing; `mms` shows context units, `mms-turns`
the rounds' turns; a question phrased like a generated perspective finds its round."""

from __future__ import annotations

from typing import Any

from graphmem.client import Memory
from graphmem.ingest.layer import with_options
from graphmem.store import GraphStore

from helpers import SAMPLE, query_rows


def with_segments(memory: Memory, **options: Any) -> Memory:
    """A client writing EDUs and MMS units, with the segments layer's ``options``."""
    settings = memory.settings.model_copy(update={"ingest_layers": "edus,segments"})
    return Memory(with_options(settings, "segments", **options), store=memory.store,
                  embedder=memory.embedder)


def units(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return query_rows(store, """
        MATCH (s:Session {space: $space})-[:HAS_UNIT]->(r:RetrievalUnit)
        OPTIONAL MATCH (r)-[:SHOWS]->(c:ContextUnit)
        OPTIONAL MATCH (r)-[:FROM_TURN]->(rt:Turn)
        WITH s, r, collect(DISTINCT c) AS shown, collect(DISTINCT rt.source_id) AS r_turns
        UNWIND shown AS c
        OPTIONAL MATCH (c)-[:FROM_TURN]->(ct:Turn)
        WITH s, r, size(shown) AS contexts, r_turns, c, collect(DISTINCT ct.source_id) AS c_turns
        RETURN r.id AS id, s.key AS session, contexts, r_turns, c_turns, r.source_ids AS ids,
               r.embedding IS NOT NULL AS embedded, c.text AS context, r.text AS retrieval,
               COUNT { (other:RetrievalUnit)-[:SHOWS]->(c) } AS shared
        ORDER BY s.key, r.order""", space=space)


def test_one_retrieval_unit_per_context_unit_both_from_the_rounds_turns(
        memory: Memory, space: str) -> None:
    report = with_segments(memory).ingest(SAMPLE, space=space)
    found = units(memory.store, space)
    assert len(found) == report.turns == 17  # a round is one turn by default
    assert report.count("retrieval units") == report.count("context units") == 17
    for unit in found:
        assert unit["contexts"] == 1 and unit["shared"] == 1 and unit["embedded"]
        assert sorted(unit["r_turns"]) == sorted(unit["c_turns"]) == sorted(unit["ids"])
    contexts = query_rows(memory.store, "MATCH (c:ContextUnit {space: $space}) RETURN count(c) "
                          "AS n", space=space)
    assert contexts == [{"n": 17}]


def test_rounds_of_a_turn_and_its_reply(memory: Memory, space: str) -> None:
    with_segments(memory, round="pair").ingest(SAMPLE, space=space)
    found = units(memory.store, space)
    assert sum(len(u["ids"]) for u in found) == 17
    assert all(1 <= len(u["ids"]) <= 2 for u in found) and len(found) == 9  # sessions 6+6+5
    first = found[0]["context"].splitlines()
    assert first[1].startswith("[2 March 2024] Maya: Hi Jonas!") and first[2].startswith(
        "Jonas: Nice!")


def test_reingest_and_adding_the_layer_later_change_nothing(memory: Memory, space: str) -> None:
    mms = with_segments(memory)
    mms.ingest(SAMPLE, space=space, layers="edus")
    added = mms.add_layers(space, "segments")
    assert added.count("retrieval units") == 17
    before = memory.store.read("admin/space_snapshot", space=space)
    again = mms.ingest(SAMPLE, space=space)
    assert memory.store.read("admin/space_snapshot", space=space) == before
    assert again.layers["segments"].embedded == 0


def test_mms_shows_context_units_and_mms_turns_the_rounds(memory: Memory, space: str) -> None:
    mms = with_segments(memory)
    mms.ingest(SAMPLE, space=space)
    shown = mms.search("Who is Maya's sister?", space=space, strategy="mms", budget=400)
    top = shown.hits[0]
    assert top.kind == "unit" and top.source_ids == ["s1:3"]  # "mugs for my sister"
    assert "Perspectives: Who is Maya's sister?" in top.text and "Keywords:" in top.text
    turns = mms.search("Who is Maya's sister?", space=space, strategy="mms-turns", budget=400)
    assert turns.hits[0].kind == "round" and turns.hits[0].source_ids == ["s1:3"]
    assert turns.hits[0].text == ("[2 March 2024] Maya: Yes, Tuesdays at seven. My first "
                                  "project is going to be a set of mugs for my sister.")
    assert len(turns.hits) > len(shown.hits)  # turns are shorter: more of them fill a budget
    assert shown.context_tokens <= 400 and turns.context_tokens <= 400
