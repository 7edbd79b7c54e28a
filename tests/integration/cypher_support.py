"""What the Cypher file cases share (tests/integration/test_cypher_*.py): the registry each
module keeps its cases in, and the data helpers several folders' cases use."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from graphmem.client import Memory
from graphmem.ids import conversation_id, session_id, turn_id
from graphmem.store import GraphStore

from helpers import query_rows

Case = Callable[[GraphStore, str, Memory], None]
KEY = "maya-jonas"


def registrar(cases: dict[str, Case]) -> Callable[[str], Callable[[Case], Case]]:
    """``@case("folder/name")`` for one module's registry."""
    def case(name: str) -> Callable[[Case], Case]:
        def register(func: Case) -> Case:
            cases[name] = func
            return func

        return register

    return case


def vector(memory: Memory, text: str) -> list[float]:
    return memory.embedder.embed([text])[0].tolist()  # type: ignore[no-any-return]


def _edu_rows(store: GraphStore, space: str) -> list[dict[str, Any]]:
    # exact: the approximate index, shared by every space of the database, may return fewer
    # of this space's EDUs than it holds when other spaces hold many
    return store.read("retrieve/edus_vector", space=space, embedding=[0.05] * 384, k=100,
                      candidates=20_000, exact=True)


def _units(store: GraphStore, space: str, **params: Any) -> list[dict[str, Any]]:
    return store.read("retrieve/mms_units", space=space, **{
        "embedding": [0.05] * 384, "query": "", "bm25": False, "k": 100, "exact": True,
        "candidates": 100, "rrf_k": 60, **params})


def _events(store: GraphStore, space: str) -> list[dict[str, Any]]:
    return store.read("ingest/events/conversation_events", space=space,
                      conversation_id=conversation_id(space, KEY), context=2)


def _scenes(store: GraphStore, space: str, text: str, memory: Memory,
            **params: Any) -> list[dict[str, Any]]:
    return store.read("retrieve/scenes_vector", space=space, **{
        "embedding": vector(memory, text), "k": 10, "exact": True, "candidates": 100,
        **params})


def _episode(space: str, key: str, content: str) -> dict[str, Any]:
    return {"id": f"{conversation_id(space, KEY)}#emu~{key}",
            "conversation_id": conversation_id(space, KEY),
            "session_id": session_id(space, KEY, "s2"), "order": 90, "speaker": "Maya",
            "title": "Maya: pepper",
            "started_at": None, "content": content, "summary": content, "tags": ["pepper"],
            "participants": ["Maya"], "importance": 0.9, "confidence": 1.0,
            "representation": content, "merged_into": None, "source_ids": ["s2:1"],
            "source_turn_ids": [turn_id(space, KEY, "s2:1")]}


def _episodes(store: GraphStore, space: str, text: str, memory: Memory,
              **plan: Any) -> list[dict[str, Any]]:
    return store.read("retrieve/episodes_vector", space=space, **{
        "embedding": vector(memory, text), "k": 50, "exact": True, "candidates": 50, **plan})


def foreign(store: GraphStore, space: str, cid: str) -> None:
    """A plug-in's node (a label graphmem does not know, no conversation id) derived from the
    conversation's first turn, and its layer marked on every session: forgetting finds it by
    its FROM_TURN link alone."""
    query_rows(store, "MATCH (t:Turn {space: $space, conversation_id: $cid}) "
               "WITH t ORDER BY t.seq LIMIT 1 "
               "CREATE (:Foreign {space: $space, id: t.id + '/f', text: t.text})-[:FROM_TURN]->(t)"
               " WITH t MATCH (s:Session {space: $space, conversation_id: $cid}) "
               "SET s.layers = coalesce(s.layers, []) + ['foreign']", space=space, cid=cid)
