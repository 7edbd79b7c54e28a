"""A space's turn table and a page of messages from the rows Neo4j returned while a forget
deletes turns: Neo4j reads each value as committed at that moment, so a turn (or its session)
deleted mid-read comes back with nulls. Such a row is left out; the search or the page that
read it does not fail (a load of writers, readers and forgetters met this as HTTP 500s)."""

from __future__ import annotations

from typing import Any

from graphmem.admin import message_page
from graphmem.retrieve.fused.space_index import turn_table, with_appended


def row(i: int, session: str = "s1", **changed: Any) -> dict[str, Any]:
    return {"id": f"t{i}", "speaker": "Ann", "text": f"turn {i} about kayaks",
            "image_caption": None, "source_id": f"D{i}", "position": i, "salience": None,
            "session_id": session, "session_index": 0, "conversation_id": "c",
            "started_at": None, "date_text": None, **changed}


def test_rows_of_turns_deleted_while_read_are_left_out() -> None:
    rows = [row(0), row(1, text=None, speaker=None, source_id=None), row(2, session="s2"),
            row(3, session_id=None), row(4, session="s2")]
    table = turn_table(rows, [{"old": "t1", "newer": ["t2"]}, {"old": "t0", "newer": ["t1"]}])
    assert [r.id for r in table.rows] == ["t0", "t2", "t4"]
    assert [r.session_rank for r in table.rows] == [0, 1, 1]
    assert table.newer == {0: []}  # t1 is gone: superseding nothing, superseded by nothing
    assert table.bm25("kayaks").shape == (3,)  # the index reads every text that is left


def message(n: int, **changed: Any) -> dict[str, Any]:
    return {"id": f"m{n}", "turn_id": f"t{n}", "seq": n, "speaker": "Ann",
            "text": f"message {n}", "image_caption": None, "said_at": None,
            "session": "s1", "session_started_at": None, **changed}


def test_a_page_leaves_out_a_message_deleted_while_read_and_skips_none_after_it() -> None:
    rows = [message(1), message(2, text=None, speaker=None), message(3, seq=None, id=None),
            message(4)]
    page = message_page("sp", "c", rows, limit=3, cursor=None)
    assert [m.id for m in page.messages] == ["m1"]
    assert page.next_cursor == 2  # the next page reads from after the last seq read: m4 stays
    last = message_page("sp", "c", rows[3:], limit=3, cursor=2)
    assert [m.id for m in last.messages] == ["m4"] and last.next_cursor is None


def test_appended_turns_take_their_places_as_a_whole_read_would_give_them() -> None:
    def at(i: int, conversation: str, index: int, position: int) -> dict[str, Any]:
        return row(i, session=f"{conversation}-{index}", conversation_id=conversation,
                   session_index=index, position=position, text=f"turn {i} about kayak {i}")

    stored = [at(0, "b", 0, 0), at(1, "b", 0, 1), at(2, "b", 1, 0), at(3, "d", 0, 0)]
    changed = [{"old": "t1", "newer": ["t3"]}]
    table = turn_table(stored, changed)
    table.bm25("kayaks")  # its terms are carried over
    # a turn after its session's last, a new session, a new conversation whose id sorts
    # first, and t1 again (already held: kept once)
    new = [at(5, "d", 1, 0), at(4, "b", 1, 1), at(6, "a", 0, 0), at(1, "b", 0, 1)]
    grown = with_appended(table, new)
    whole = turn_table(sorted([*stored, *new[:3]], key=lambda r: (
        r["conversation_id"], r["session_index"], r["position"])), changed)
    assert [r.id for r in grown.rows] == ["t6", "t0", "t1", "t2", "t4", "t3", "t5"]
    assert grown.rows == whole.rows  # their session ranks too
    assert grown.keys == whole.keys
    assert grown.newer == whole.newer
    assert grown.grown is not None and not grown.carried  # grows from the built index
    assert grown.bm25("kayak 4").tolist() == whole.bm25("kayak 4").tolist()
    assert grown.grown is None and grown.token_memo() == whole.token_memo()
    # an older table whose index no search built hands over its turns' terms, if it has any
    unbuilt = with_appended(turn_table(stored, changed), new)
    assert unbuilt.grown is None
    assert unbuilt.bm25("kayak 4").tolist() == whole.bm25("kayak 4").tolist()
    assert with_appended(grown, [at(1, "b", 0, 1)]) is grown  # nothing new: the same table
