"""EMem / EMem-G against the real Neo4j + GDS: the EDU layer, Personalized PageRank with
weighted seeds, and the life of GDS projections."""

from __future__ import annotations

import time

import numpy as np
import pytest

from graphmem.client import Memory
from graphmem.retrieve.ppr import (
    PREFIX,
    PPRConfig,
    ProjectionCache,
    personalized_pagerank,
    space_tag,
)

from helpers import DATA, SAMPLE, query_rows

QUESTION = "What did Lena buy in Bergen?"


def test_every_edu_links_to_real_turns_of_its_space(memory: Memory, space: str) -> None:
    report = memory.ingest(SAMPLE, space=space)
    assert report.count("edus") >= 17  # at least one statement per turn
    found = query_rows(memory.store, """
        MATCH (s:Session {space: $s})-[:HAS_EDU]->(e:EDU)
        OPTIONAL MATCH (e)-[:FROM_TURN]->(t:Turn)
        RETURN e.id AS id, e.source_ids AS sources, collect(t.source_id) AS turns,
               collect(DISTINCT t.space) AS spaces, size(e.embedding) AS dims""", s=space)
    assert len(found) == report.count("edus")
    for edu in found:
        assert edu["turns"] and sorted(edu["turns"]) == sorted(edu["sources"])
        assert edu["spaces"] == [space] and edu["dims"] == 384
    shared = query_rows(memory.store, """
        MATCH (a:Argument {space: $s})<-[:HAS_ARGUMENT]-(e:EDU)
        WITH a, count(e) AS edus WHERE edus > 1 RETURN a.text AS text""", s=space)
    assert {"lisbon", "sister"} <= {r["text"] for r in shared}


def test_ppr_reaches_an_edu_through_a_shared_argument(memory: Memory, space: str) -> None:
    memory.ingest(DATA / "ppr_conversation.json", space=space)
    # "The wooden kayak needs varnish every spring." shares no word with the question
    dense = memory.search(QUESTION, space=space, strategy="emem", budget=500, k=3)
    assert "s2:1" not in [h.source_ids[0] for h in dense.hits]
    graph = memory.search(QUESTION, space=space, strategy="emem-g", budget=500,
                          k_edus=1, min_argument_similarity=0.7)
    scores = {h.source_ids[0]: h.score for h in graph.hits}
    assert graph.hits[0].source_ids == ["s1:1"]  # the seed: Lena bought a wooden kayak
    assert scores["s2:1"] > 0
    # it ranks above the statements that share no argument with any seed
    assert scores["s2:1"] > scores.get("s1:4", 0.0) and scores["s2:1"] > scores.get("s2:2", 0.0)


def test_weighted_seeds_are_exact(memory: Memory, space: str) -> None:
    """The sum of single-seed GDS runs equals PageRank with the weighted seed vector,
    computed here by power iteration on the same graph."""
    memory.ingest(DATA / "ppr_conversation.json", space=space)
    graph = memory.projections.graph_for(memory.store, space)
    assert graph is not None
    nodes = query_rows(memory.store, """
        MATCH (n {space: $s}) WHERE n:EDU OR n:Argument
        RETURN elementId(n) AS id, n:EDU AS is_edu ORDER BY id""", s=space)
    index = {n["id"]: i for i, n in enumerate(nodes)}
    edges = query_rows(memory.store, """
        MATCH (a {space: $s})-[r:HAS_ARGUMENT|SYNONYM]->(b {space: $s})
        RETURN elementId(a) AS a, elementId(b) AS b, coalesce(r.score, 1.0) AS w""", s=space)
    size = len(nodes)
    weights = np.zeros((size, size))
    for e in edges:
        weights[index[e["a"]], index[e["b"]]] += e["w"]
        weights[index[e["b"]], index[e["a"]]] += e["w"]
    out = weights.sum(axis=1, keepdims=True)
    transition = np.divide(weights, out, out=np.zeros_like(weights), where=out > 0)
    edus = [n["id"] for n in nodes if n["is_edu"]]
    seeds = [{"element_id": edus[0], "weight": 0.8}, {"element_id": edus[3], "weight": 0.3},
             {"element_id": edus[5], "weight": 0.05}]
    personal = np.zeros(size)
    for seed in seeds:
        personal[index[seed["element_id"]]] = seed["weight"]
    damping = 0.5
    expected = personal.copy()
    for _ in range(200):
        expected = (1 - damping) * personal + damping * transition.T @ expected
    got = personalized_pagerank(memory.store, graph, seeds, len(edus),
                                PPRConfig(damping=damping, iterations=100, tolerance=1e-12))
    by_element = {r["element_id"]: r["score"] for r in got}
    for element in edus:
        assert by_element[element] == pytest.approx(expected[index[element]], abs=1e-6)


def test_projections_are_per_space_reused_replaced_and_dropped(memory: Memory,
                                                               space: str) -> None:
    other = space + "-other"
    memory.ingest(SAMPLE, space=space)
    memory.ingest(DATA / "ppr_conversation.json", space=other)
    memory.projections = ProjectionCache(grace=0.05)  # outdated projections may go at once
    try:
        first = memory.projections.graph_for(memory.store, space)
        assert first is not None and first.startswith(f"{PREFIX}{space_tag(space)}-")
        assert memory.projections.graph_for(memory.store, space) == first  # reused
        [info] = query_rows(memory.store,
                            "CALL gds.graph.list($g) YIELD nodeCount RETURN nodeCount", g=first)
        [own] = query_rows(memory.store, "MATCH (n {space: $s}) WHERE n:EDU OR n:Argument "
                                   "RETURN count(n) AS n", s=space)
        assert info["nodeCount"] == own["n"]  # nothing of the other space entered
        memory.ingest(DATA / "mini_locomo.json", space=space)  # the graph changes
        time.sleep(0.1)
        second = memory.projections.graph_for(memory.store, space)
        listed = {r["graph"] for r in memory.store.read("retrieve/ppr_usage",
                                                        prefix=f"{PREFIX}{space_tag(space)}-")}
        assert second != first and listed == {second}  # the stale one was dropped
        memory.delete_space(space)
        assert memory.store.read("retrieve/ppr_usage", prefix=f"{PREFIX}{space_tag(space)}-") == []
    finally:
        memory.delete_space(other)


def test_projections_above_the_cap_go_unless_in_use(memory: Memory, space: str) -> None:
    spaces = [space, space + "-b", space + "-c"]
    mine = {f"{PREFIX}{space_tag(name)}-" for name in spaces}

    def held() -> list[str]:
        return [r["graph"] for r in memory.store.read("retrieve/ppr_usage", prefix=PREFIX)
                if r["graph"][:len(PREFIX) + 13] in mine]

    patient = ProjectionCache(capacity=1, grace=3600)  # everything counts as in use
    hasty = ProjectionCache(capacity=1, grace=0.05)
    try:
        for name in spaces:
            memory.ingest(SAMPLE, space=name)
        for name in spaces[:2]:
            patient.graph_for(memory.store, name)
        assert len(held()) == 2  # over the cap, but the second client would not drop one in use
        time.sleep(0.1)
        hasty.graph_for(memory.store, spaces[2])
        assert held() == [hasty.graph_for(memory.store, spaces[2])]  # the unused ones went
        assert len(memory.store.read("retrieve/ppr_usage", prefix=PREFIX)) <= 1
    finally:
        for name in spaces[1:]:
            memory.delete_space(name)


def test_a_projection_that_vanished_is_made_again(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    before = memory.search("What breed is Maya's dog?", space=space, strategy="emem-g")
    graph = memory.projections.graph_for(memory.store, space)
    query_rows(memory.store, "CALL gds.graph.drop($g)", g=graph)  # e.g. a server restart
    after = memory.search("What breed is Maya's dog?", space=space, strategy="emem-g")
    assert [h.id for h in after.hits] == [h.id for h in before.hits]


def test_emem_renders_dated_statements_with_speakers(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    result = memory.search("What breed is Maya's dog?", space=space, strategy="emem",
                           budget=1000)
    assert len(result.hits) == 10  # K
    texts = [h.text for h in result.hits]
    assert "[18 March 2024] Maya: A three-year-old greyhound called Pepper." in texts
    assert all(h.kind == "edu" and len(h.source_ids) == 1 for h in result.hits)
