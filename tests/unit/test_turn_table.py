"""A space's turn table and a page of messages from the rows Neo4j returned while a forget
deletes turns: Neo4j reads each value as committed at that moment, so a turn (or its session)
deleted mid-read comes back with nulls. Such a row is left out; the search or the page that
read it does not fail (a load of writers, readers and forgetters met this as HTTP 500s)."""

from __future__ import annotations

from typing import Any

from graphmem.admin import message_page
from graphmem.retrieve.fused.space_index import turn_table


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
