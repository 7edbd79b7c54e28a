"""Ids stay far below Neo4j's limit on an index entry (about 8 kB) whatever the input."""

from __future__ import annotations

from graphmem.ids import (
    MAX_PART_BYTES,
    MAX_SPACE_CHARS,
    conversation_id,
    part,
    session_id,
    speaker_id,
    turn_id,
)
from graphmem.ingest.inputs.fields import MAX_ID_CHARS, MAX_NAME_CHARS
from graphmem.ingest.layers.edus.layer import argument_id, edu_id
from graphmem.ingest.layers.events.layer import event_id

WIDE = "\U0001f600"  # 4 bytes in UTF-8, 12 once percent-encoded


def test_every_id_is_bounded_at_the_largest_inputs_allowed() -> None:
    space, key = WIDE * MAX_SPACE_CHARS, WIDE * MAX_ID_CHARS
    ids = [conversation_id(space, key), session_id(space, key, key), turn_id(space, key, key),
           speaker_id(space, WIDE * MAX_NAME_CHARS), edu_id(space, key, key + ":1~2"),
           argument_id(space, "kayak " * 10_000), event_id(space, key, key, key)]
    for value in ids:
        assert len(value.encode()) <= 6 * MAX_PART_BYTES
        assert value.isascii()


def test_short_parts_are_plain_percent_encoding_and_long_ones_hashed_apart() -> None:
    assert part("D1:3") == "D1%3A3" and part("a b/c") == "a%20b%2Fc"
    long_a, long_b = "x" * 300 + "a", "x" * 300 + "b"
    assert part(long_a) != part(long_b) and part(long_a) == part(long_a)
    assert len(part(long_a)) <= MAX_PART_BYTES and "%~" in part(long_a)
    # a cut never falls inside a %XX escape
    for n in range(1, 60):
        head = part("\u00e9" * n + "z" * 300).split("%~")[0]
        assert all(len(chunk) >= 2 for chunk in head.split("%")[1:])
    # percent-encoding writes '%' as %25, so no short id can look like a hashed one
    assert "%~" not in part("%~" + "x" * 20)
