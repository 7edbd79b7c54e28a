"""A live message's payload on the real Neo4j: the caller's own JSON kept with its message as
given, through derivation, export and restore; recalled context taken out of it; a correction
drops it; a bad one is refused naming its place, storing nothing."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.markers import mark

pytestmark = pytest.mark.neo4j

ITEM = {"type": "message", "role": "assistant", "id": "msg-1", "status": "completed",
        "content": [{"type": "output_text", "text": "Ada lives in Porto.", "annotations": []}],
        "n": 3, "ok": True, "none": None, "nested": {"π": [1.5, "ü", {"x": []}]}}


def payloads(memory: Memory, space: str, conversation: str = "chat") -> list[Any]:
    return [m.payload for m in memory.messages(space, conversation).messages]


def test_payload_comes_back_as_given_after_derivation_and_restore(memory: Memory, space: str,
                                                                   tmp_path: Path) -> None:
    memory.add_messages(space, "chat", [
        {"speaker": "user", "text": "Where does Ada live?"},
        {"speaker": "assistant", "text": "Ada lives in Porto.", "id": "m1", "payload": ITEM},
        {"speaker": "user", "text": "Thanks.", "payload": "plain text is JSON too"}])
    memory.flush()  # the derived layers write the session again: the payloads stay
    assert payloads(memory, space) == [None, ITEM, "plain text is JSON too"]
    # the same message again changes nothing, whatever payload it now carries
    memory.add_messages(space, "chat", [{"speaker": "assistant", "text": "Ada lives in Porto.",
                                         "id": "m1", "payload": {"other": 1}}])
    assert payloads(memory, space)[1] == ITEM
    # a payload is the caller's, never searched: its words find nothing of their own
    assert not any("π" in h.text for h in memory.search("π nested", space=space).hits)

    memory.export_space(space, tmp_path / "space.jsonl.gz")
    memory.import_space(tmp_path / "space.jsonl.gz", replace=True)
    assert payloads(memory, space) == [None, ITEM, "plain text is JSON too"]


def test_recalled_context_is_taken_out_of_a_payload(memory: Memory, space: str) -> None:
    recalled = mark("Ada's bank PIN is 4417.")
    memory.add_messages(space, "chat", [{
        "speaker": "tool", "text": f"{recalled}\nfound one memory",
        "payload": {"output": recalled, "parts": [f"before {recalled} after"]}}])
    stored = memory.messages(space, "chat").messages[0]
    assert stored.text == "found one memory"
    assert stored.payload == {"output": "", "parts": ["before\nafter"]}


def test_a_correction_drops_the_payload(memory: Memory, space: str) -> None:
    memory.add_messages(space, "chat", [{"speaker": "user", "text": "I live in Lyon.",
                                         "payload": {"text": "I live in Lyon."}}])
    turn = memory.messages(space, "chat").messages[0].turn_id
    memory.correct(space, turn, "I live in Lille.")
    stored = memory.messages(space, "chat").messages[0]
    assert stored.text == "I live in Lille." and stored.payload is None


@pytest.mark.parametrize("bad, says", [
    ({"a": {1, 2}}, "not JSON"),
    ({"a": float("nan")}, "not JSON"),
    ("x" * 200_001, "more than 200,000"),
])
def test_a_bad_payload_is_refused_naming_its_place(memory: Memory, space: str, bad: Any,
                                                   says: str) -> None:
    memory.add_messages(space, "chat", [{"speaker": "user", "text": "kept"}])
    with pytest.raises(InputError, match=says) as raised:
        memory.add_messages(space, "chat", [{"speaker": "user", "text": "fine"},
                                            {"speaker": "user", "text": "bad", "payload": bad}])
    assert raised.value.field == "messages[1].payload"
    assert [m.text for m in memory.messages(space, "chat").messages] == ["kept"]
