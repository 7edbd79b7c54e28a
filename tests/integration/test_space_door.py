"""One door for changing a space (``GraphStore.change``): it takes the space's lock, gives
the space a new revision (so every cache and projection reads afresh) and records the change
in its history; a statement that writes a space's data anywhere else raises before it runs,
and nothing of its transaction is stored."""

from __future__ import annotations

import pytest

from graphmem import cypher
from graphmem.client import Memory
from graphmem.store import OUTSIDE_THE_DOOR, changes_a_space


def test_a_write_outside_the_door_raises_and_stores_nothing(memory: Memory,
                                                            space: str) -> None:
    memory.add_messages(space, "chat", [{"speaker": "Ana", "text": "I moved to Porto."}])
    history = [c.what for c in memory.history(space)]
    with pytest.raises(RuntimeError, match=r"ingest/lock_space changes a space outside "
                                           r"GraphStore\.change"):
        memory.store.write("ingest/lock_space", space=space, embedder=None)
    with pytest.raises(RuntimeError, match="ingest/forget_conversation changes a space"):
        memory.store.write_tx(lambda tx: tx.run(
            "ingest/forget_conversation", space=space, conversation_id="x"), "test")
    assert [c.what for c in memory.history(space)] == history
    assert [m.text for m in memory.messages(space, "chat").messages] == ["I moved to Porto."]


def test_the_door_gives_a_new_revision_and_one_history_entry(memory: Memory,
                                                            space: str) -> None:
    memory.add_messages(space, "chat", [{"speaker": "Ana", "text": "I moved to Porto."}])
    memory.flush()
    before = [c.what for c in memory.history(space)]
    [old] = memory.store.read("admin/space_exists", space=space)
    assert old["exists"]
    seen: list[str] = []
    revisions = []
    for what in ("first", "second"):
        out = memory.store.change(space, what, lambda tx: seen.append(tx.lock["revision"])
                                  or "done", "test")
        assert out == "done"
        revisions.append(seen[-1])
    assert len(set(revisions)) == 2  # every change a new revision
    assert [c.what for c in memory.history(space)][:2] == ["second", "first"]
    assert len(memory.history(space)) == len(before) + 2


def test_what_needs_the_door() -> None:
    assert changes_a_space("ingest/lock_space") and changes_a_space("admin/record_change")
    assert changes_a_space("ingest/forget_orphans") and changes_a_space("admin/clear_space")
    assert not changes_a_space("retrieve/space_turns") and not changes_a_space("admin/history")
    assert not any(changes_a_space(n) for n in OUTSIDE_THE_DOOR)
    assert set(OUTSIDE_THE_DOOR) <= set(cypher.names())  # none left behind by a rename
