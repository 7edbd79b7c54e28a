"""Tenant isolation on every read: another space holds the best answer to the question, and
no strategy, and no vector query behind one, returns anything of it."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.retrieve.registry import strategy_names
from graphmem.store import GraphStore

from helpers import SAMPLE

QUESTION = "When did Zoltan take the zebra and the dog to the Reykjavik planetarium?"
ANSWER = "Zoltan took his zebra Ziggy to the planetarium in Reykjavik, it loved the stars."


@pytest.fixture(scope="module")
def spaces(settings: Settings, store: GraphStore, embedder: SentenceTransformerEmbedder,
           tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Memory, str, str]]:
    """``mine`` holds the sample; ``theirs`` holds it too, plus a session with the answer."""
    memory = Memory(settings, store=store, embedder=embedder)
    mine, theirs = (f"test-iso-{uuid.uuid4().hex[:8]}-{s}" for s in ("mine", "theirs"))
    data = json.loads(SAMPLE.read_text())
    data["conversations"][0]["sessions"].append(
        {"id": "s9", "started_at": "2024-05-02T10:00:00",
         "turns": [{"speaker": "Jonas", "text": ANSWER},
                   {"speaker": "Maya", "text": "A zebra at the planetarium, Zoltan is wild!"}]})
    path: Path = tmp_path_factory.mktemp("iso") / "theirs.json"
    path.write_text(json.dumps(data))
    memory.ingest(SAMPLE, space=mine)
    memory.ingest(path, space=theirs)
    yield memory, mine, theirs
    memory.delete_space(mine)
    memory.delete_space(theirs)


def ids_of(rows: list[dict[str, Any]]) -> list[str]:
    return [str(r.get("id")) for r in rows]


@pytest.mark.parametrize("strategy", strategy_names())
def test_no_strategy_returns_another_spaces_answer(spaces: tuple[Memory, str, str],
                                                   strategy: str) -> None:
    memory, mine, theirs = spaces
    found = memory.search(QUESTION, space=mine, strategy=strategy, budget=2000)
    assert found.hits, "the space itself still answers something"
    for hit in found.hits:
        assert hit.id.startswith(f"{mine}/") and "Zoltan" not in hit.text
        assert all(t.startswith(f"{mine}/") for t in hit.source_turn_ids)
    # the answer is there to be found: the other space's own search finds it
    theirs_found = memory.search(QUESTION, space=theirs, strategy=strategy, budget=2000)
    assert any("Zoltan" in hit.text for hit in theirs_found.hits)


VECTOR_QUERIES = {
    "retrieve/turns_vector": {"k": 50},
    "retrieve/turns_rrf": {"k": 50, "query": "zoltan zebra reykjavik planetarium", "rrf_k": 60},
    "retrieve/edus_vector": {"k": 100},
    "retrieve/esmem": {"k": 50, "w": 3, "alpha": 0.7, "limit": 50},
    "retrieve/esmem_turns": {"k": 50, "w": 3, "alpha": 0.7, "beta": 0.5, "limit": 50},
}


@pytest.mark.parametrize("exact", [False, True], ids=["index", "exact"])
@pytest.mark.parametrize("statement", sorted(VECTOR_QUERIES))
def test_no_vector_query_crosses_spaces(spaces: tuple[Memory, str, str], statement: str,
                                        exact: bool) -> None:
    memory, mine, theirs = spaces
    embedding = memory.embedder.embed([ANSWER])[0].tolist()
    params = {**VECTOR_QUERIES[statement], "embedding": embedding, "candidates": 20_000,
              "exact": exact}
    rows = memory.store.read(statement, space=mine, **params)
    assert rows and all(i.startswith(f"{mine}/") for i in ids_of(rows))
    theirs_rows = memory.store.read(statement, space=theirs, **params)
    assert all(i.startswith(f"{theirs}/") for i in ids_of(theirs_rows))
    assert any("Zoltan" in json.dumps(r, default=str) for r in theirs_rows)


@pytest.mark.parametrize("exact", [False, True], ids=["index", "exact"])
def test_argument_vectors_stay_in_their_space(spaces: tuple[Memory, str, str],
                                              exact: bool) -> None:
    memory, mine, theirs = spaces
    mentions = [{"text": m, "embedding": memory.embedder.embed([m])[0].tolist()}
                for m in ("zoltan", "planetarium")]
    rows = memory.store.read("retrieve/arguments_vector", space=mine, mentions=mentions, k=10,
                             candidates=20_000, exact=exact)
    assert rows and all(i.startswith(f"{mine}/") for i in ids_of(rows))
    theirs_rows = memory.store.read("retrieve/arguments_vector", space=theirs,
                                    mentions=mentions, k=10, candidates=20_000,
                                    exact=exact)
    assert {"zoltan", "planetarium"} <= {r["text"] for r in theirs_rows}


def test_a_small_space_finds_the_same_among_many_as_alone(
        memory: Memory, space: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Exact scans for small spaces: crowding the vector indexes with other spaces' near
    duplicates changes nothing of what a small space finds, nor its scores. (The index may
    fetch only 60 neighbours here: three rival copies then fill what it can fetch, as a
    database thousands of times larger would.)"""
    import graphmem.retrieve.base as base

    from helpers import SAMPLE

    monkeypatch.setattr(base, "MAX_VECTOR_CANDIDATES", 60)
    memory.ingest(SAMPLE, space=space)
    questions = ["What dog did Maya adopt?", "Which city was the half marathon in?"]

    def found() -> list[list[tuple[str, float]]]:
        return [[(h.id, round(h.score, 6)) for h in memory.search(
            q, space=space, strategy=name, budget=300).hits]
            for q in questions for name in ("turns-vector", "emem", "emem-g", "esmem")]

    alone = found()
    crowd = [f"{space}-crowd-{n}" for n in range(3)]
    try:
        for other in crowd:  # the same conversation again, thrice: the closest rivals there are
            memory.ingest(SAMPLE, space=other)
        assert found() == alone
    finally:
        for other in crowd:
            memory.delete_space(other)
