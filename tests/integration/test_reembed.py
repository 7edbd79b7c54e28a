"""`graphmem reembed` on the real Neo4j: every vector of a space computed again by another
embedder with nothing derived again, searches on the old vectors while it stages, a killed
run that the next one completes, one embedder per space, and a change of dimension that makes
the vector indexes again (on a server of the test's own: the indexes are the database's)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.errors import ConfigurationError, MixedModelsError
from graphmem.ingest.embedding_rows import composed_hash, embedding_hash, mean_vector
from graphmem.ingest.reembed import vector_kinds
from graphmem.neo4j_server.local import LocalNeo4j
from graphmem.providers.embedder import Embedder, HashEmbedder
from graphmem.store import GraphStore, statement_by_statement

from helpers import SAMPLE, query_rows, second_server

QUESTION = "What did Caroline research?"
VECTOR_KEYS = ("embedding", "embedded_hash", "embedder")


def vectors(store: GraphStore, space: str) -> dict[str, dict[str, Any]]:
    """Every embedded node of the space by id: its text as re-embedding rebuilds it (for a
    vector composed from turns: the keys of those turns instead), its vector, hash and
    whatever is staged."""
    out: dict[str, dict[str, Any]] = {}
    for kind in vector_kinds():
        for row in store.read(kind.statement, space=space, kind=kind.label.lower()):
            [node] = query_rows(store, "MATCH (n) WHERE elementId(n) = $key RETURN n.embedding "
                                "AS embedding, n.embedding_next AS next", key=row["key"])
            made = ({"turns": row["turn_keys"], "turn_hashes": row["turn_hashes"]}
                    if kind.composed else {"text": kind.text(row["fields"])})
            out[row["id"]] = {**made, "hash": row["hash"], "staged": row["staged"], **node}
    return out


def texts(found: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in found.items() if "text" in v}


def derived(store: GraphStore, space: str) -> list[dict[str, Any]]:
    """The space's snapshot without what a re-embedding may change."""
    rows = store.read("admin/space_snapshot", space=space)
    return [{**row, "props": [p for p in row["props"] if p[0] not in VECTOR_KEYS]}
            for row in rows]


def assert_all_from(store: GraphStore, space: str, embedder: Embedder,
                    sample: int = 12) -> None:
    found = vectors(store, space)
    embedded = texts(found)
    assert embedded and all(v["hash"] == embedding_hash(embedder, v["text"])
                            for v in embedded.values())
    assert all(v["staged"] is None and v["next"] is None for v in found.values())
    some = list(embedded.values())[::max(1, len(embedded) // sample)]
    expected = embedder.embed([v["text"] for v in some])
    assert np.allclose(np.array([v["embedding"] for v in some]), expected, atol=1e-6)
    keys = sorted({t for v in found.values() for t in v.get("turns", [])})
    by_key = {row["key"]: row["embedding"] for row in store.read(
        "admin/reembed/turn_vectors", space=space, keys=keys)}
    for v in found.values():  # a scene's vector: the mean of its turns' new vectors
        if "turns" in v:
            assert v["hash"] == composed_hash(embedder, v["turn_hashes"])
            expected = mean_vector([by_key[t] for t in v["turns"]])
            assert np.allclose(v["embedding"], expected, atol=1e-5)


def hit_ids(memory: Memory, space: str) -> list[str]:
    return [hit.id for hit in memory.search(QUESTION, space=space, budget=400).hits]


def test_a_space_moves_to_another_embedder_and_derives_nothing_again(
        memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    before, found = derived(memory.store, space), hit_ids(memory, space)
    total = len(vectors(memory.store, space))
    scenes = total - len(texts(vectors(memory.store, space)))
    assert total > 100  # every layer's kinds: turns, EDUs, arguments, events, units, ...
    assert scenes > 0
    other = Memory(memory.settings, store=memory.store, embedder=HashEmbedder(384))
    try:
        # one embedder per space: the other one neither searches nor writes there
        with pytest.raises(MixedModelsError, match="graphmem reembed --space"):
            other.search(QUESTION, space=space)
        with pytest.raises(MixedModelsError):
            other.add_messages(space, "sample", [{"role": "user", "content": "A new one."}])
        during: list[list[str]] = []

        def search_meanwhile(batch: int) -> None:  # the old vectors serve while it stages
            during.append(hit_ids(memory, space))

        report = other.reembed(space, after_batch=search_meanwhile)
        [tally] = report.spaces
        assert (tally.vectors, tally.embedded, tally.swapped, tally.resumed,
                tally.composed) == (total, total - scenes, total - scenes, 0, scenes)
        assert during and all(ids == found for ids in during)
        assert_all_from(memory.store, space, HashEmbedder(384))
        assert derived(memory.store, space) == before  # nothing derived again
        assert other.search(QUESTION, space=space).hits
        with pytest.raises(MixedModelsError):  # the first embedder is the other one now
            memory.search(QUESTION, space=space)
        assert memory.history(space)[0].what == "re-embedded with hash-384"
        again = other.reembed([space])
        assert (again.spaces[0].current, again.spaces[0].embedded,
                again.spaces[0].composed) == (total, 0, 0)
        other.add_messages(space, "sample", [{"role": "user", "content": "A new one."}])
        other.flush()
        assert_all_from(memory.store, space, HashEmbedder(384))
    finally:
        other.live.close()


def test_what_changes_while_staged_is_computed_at_the_swap(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space, layers="turns,scenes")
    other = Memory(memory.settings, store=memory.store, embedder=HashEmbedder(384))
    turn = sorted(t for t in vectors(memory.store, space) if "#scene" not in t
                  and "#profile" not in t)[0]
    corrected: list[bool] = []

    def correct_once(batch: int) -> None:  # the old embedder's writer changes a staged turn
        if not corrected:
            memory.correct(space, turn, "I changed my mind about the painting.")
            memory.flush()  # its scenes derived again, still with the old embedder
            corrected.append(True)

    try:
        report = other.reembed(space, after_batch=correct_once)
        [tally] = report.spaces
        assert tally.refreshed >= 1 and tally.composed > 0
        assert tally.swapped == tally.vectors - tally.refreshed - tally.composed
        # the corrected turn's scenes are averaged from its vector of the new text
        assert_all_from(memory.store, space, HashEmbedder(384), sample=1000)
        assert "I changed my mind" in vectors(memory.store, space)[turn]["text"]
    finally:
        other.live.close()


def run_reembed(space: str, *extra: str) -> subprocess.Popen[str]:
    env = {**os.environ, "GRAPHMEM_EMBEDDING_MODEL": "hash", "GRAPHMEM_LLM_BASE_URL": "",
           "GRAPHMEM_LLM_API_KEY": ""}
    return subprocess.Popen([sys.executable, "-m", "graphmem", "reembed", "--space", space,
                             "--batch", "8", *extra], env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_killed_reembed_goes_on_where_it_stopped(memory: Memory, space: str,
                                                   store: GraphStore) -> None:
    memory.ingest(SAMPLE, space=space, layers="turns,edus")
    total = len(vectors(store, space))
    with store.driver.session(database=store.database) as session:
        # hold one argument's write lock: the run stages the turns, then waits for it
        held = session.begin_transaction()
        held.run("MATCH (a:Argument {space: $space}) WITH a ORDER BY a.id DESC LIMIT 1 "
                 "SET a.held = true", space=space).consume()
        process = run_reembed(space)
        assert process.stdout is not None
        staged = [process.stdout.readline() for _ in range(2)]
        assert all(line.startswith("staged 8 vectors") for line in staged), staged
        time.sleep(1.0)
        assert process.poll() is None  # waiting for the lock
        process.send_signal(signal.SIGKILL)
        process.wait(30)
        held.rollback()
    kept = vectors(store, space)
    assert sum(v["staged"] is not None for v in kept.values()) >= 16
    assert all(v["hash"] == embedding_hash(memory.embedder, v["text"]) for v in kept.values())
    assert hit_ids(memory, space)  # killed while staging: the space searches as before

    process = run_reembed(space)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    assert f"{total} vectors" in out and "staged by an earlier run" in out
    resumed = int(out.split(" staged by an earlier run")[0].rsplit(", ", 1)[1])
    assert resumed >= 16
    assert_all_from(store, space, HashEmbedder(384))


@pytest.fixture()
def own_server(settings: Settings, neo4j_server: object, tmp_path: Path) -> Iterator[LocalNeo4j]:
    """A second server, so that changing the dimension of its vector indexes leaves the
    suite's database as it is."""
    with second_server(settings, tmp_path) as server:
        yield server


def test_a_new_dimension_reembeds_every_space_and_makes_the_indexes_again(
        own_server: LocalNeo4j, embedder: Embedder) -> None:
    with Memory(own_server.settings, embedder=embedder) as first:
        first.ingest(SAMPLE, space="alpha", layers="turns,edus")
        first.ingest(SAMPLE, space="beta", layers="turns")
    smaller = own_server.settings.model_copy(update={"embedding_dimensions": 256,
                                                     "embedding_model": "hash"})
    with Memory(smaller) as second:
        assert second.embedder.name == "hash-256"
        with pytest.raises(ConfigurationError, match="graphmem reembed --all"):
            second.reembed("alpha")
        with pytest.raises(ConfigurationError, match="384"):
            second.search(QUESTION, space="alpha")  # the indexes still hold 384-d vectors
        report = second.reembed()
        assert report.indexes_rebuilt and [t.space for t in report.spaces] == ["alpha", "beta"]
        indexes = second.store.read("admin/vector_indexes")
        assert len(indexes) == 9 and {row["dimensions"] for row in indexes} == {256}
        for space in ("alpha", "beta"):
            assert_all_from(second.store, space, HashEmbedder(256))
        [turn] = query_rows(second.store, "MATCH (t:Turn {space: 'alpha'}) RETURN t.text AS text "
                            "ORDER BY t.id LIMIT 1")
        vector = HashEmbedder(256).embed([turn["text"]])[0].tolist()
        near = query_rows(second.store, "CALL db.index.vector.queryNodes('turn_embedding', 3, "
                          "$vector) YIELD node RETURN node.space AS space", vector=vector)
        assert len(near) == 3  # the new index holds the new vectors
        assert second.search(QUESTION, space="alpha").hits
        second.ingest(SAMPLE, space="gamma", layers="turns")  # new spaces get 256-d vectors
        assert_all_from(second.store, "gamma", HashEmbedder(256))


def test_a_scene_embedded_from_its_summary_is_averaged_from_its_turns(
        memory: Memory, space: str) -> None:
    """A space ingested while scenes embedded their summaries gets turn means from a
    re-embedding with the same model, and only the scenes change."""
    memory.ingest(SAMPLE, space=space, layers="turns,scenes")
    [scene] = query_rows(memory.store, "MATCH (s:Scene {space: $space}) RETURN s.id AS id, "
                         "s.summary AS summary ORDER BY s.id LIMIT 1", space=space)
    old = memory.embedder.embed([scene["summary"]])[0].tolist()
    key = query_rows(memory.store, "MATCH (s:Scene {id: $id}) RETURN elementId(s) AS k",
                     id=scene["id"])[0]["k"]
    with statement_by_statement():  # the old vector put back by hand
        memory.store.write("admin/reembed/set_vectors", space=space, rows=[{
            "key": key, "embedding": old,
            "hash": embedding_hash(memory.embedder, scene["summary"])}])
    report = memory.reembed(space)
    [tally] = report.spaces
    assert (tally.composed, tally.embedded, tally.current) == (1, 0, tally.vectors - 1)
    assert "1 averaged from their turns" in report.summary()
    assert_all_from(memory.store, space, memory.embedder, sample=1000)
    assert vectors(memory.store, space)[scene["id"]]["embedding"] != pytest.approx(old)
