"""Input at the edge of every limit is stored; input past one is refused before anything is
written; the report counts what is stored; the Python API checks its arguments like the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.ids import MAX_SPACE_CHARS
from graphmem.ingest.inputs.fields import MAX_ID_CHARS, MAX_NAME_CHARS
from graphmem.models import ConversationRecord, SessionRecord, TurnRecord

from helpers import DATA, query_rows

WIDE = "\U0001f600"


def stored(memory: Memory, space: str) -> dict[str, int]:
    [row] = query_rows(memory.store, """
        CALL () { MATCH (n:Conversation {space: $s}) RETURN count(n) AS conversations }
        CALL () { MATCH (n:Session {space: $s}) RETURN count(n) AS sessions }
        CALL () { MATCH (n:Turn {space: $s}) RETURN count(n) AS turns }
        CALL () { MATCH (n:EDU {space: $s}) RETURN count(n) AS edus }
        CALL () { MATCH (n:Argument {space: $s}) RETURN count(n) AS arguments }
        RETURN conversations, sessions, turns, edus, arguments""", s=space)
    return row  # type: ignore[no-any-return]


def two_records(second_turn: dict[str, Any], key: str = "second") -> dict[str, Any]:
    first = {"id": "first", "sessions": [{"id": "s1", "turns": [
        {"speaker": "Ana", "text": "I bought a kayak in Bergen."}]}]}
    second = {"id": key, "sessions": [{"id": key, "turns": [second_turn]}]}
    return {"conversations": [first, second]}


def test_values_at_every_limit_are_stored(memory: Memory, tmp_path: Path) -> None:
    space = "test-" + WIDE * (MAX_SPACE_CHARS - 5)
    wide_key = WIDE * MAX_ID_CHARS
    long_turn = {"id": wide_key, "speaker": WIDE * MAX_NAME_CHARS,
                 "text": "I saw a " + "Z" * 10_000 + " boat and a huge old wooden kayak.",
                 "image_caption": "a photo of " + WIDE * 5_000}
    path = tmp_path / "edge.json"
    path.write_text(json.dumps(two_records(long_turn, key=wide_key)))
    try:
        report = memory.ingest(path, space=space)
        counts = stored(memory, space)
        assert (counts["conversations"], counts["turns"]) == (2, 2)
        [turn] = query_rows(memory.store, "MATCH (t:Turn {space: $s, source_id: $k}) "
                            "RETURN t.speaker AS speaker", s=space, k=wide_key)
        assert turn["speaker"] == WIDE * MAX_NAME_CHARS
        assert report.count("new arguments") == counts["arguments"]
        hits = memory.search("wooden kayak", space=space, strategy="emem-g").hits
        assert hits
    finally:
        memory.delete_space(space)


@pytest.mark.parametrize("bad_turn", [
    {"speaker": "B" * (MAX_NAME_CHARS + 1), "text": "hi"},
    {"speaker": "B", "text": "hi", "image_caption": "c" * 1_000_001},
    {"id": WIDE * (MAX_ID_CHARS + 1), "speaker": "B", "text": "hi"},
])
def test_a_file_with_one_bad_record_writes_nothing(memory: Memory, space: str, tmp_path: Path,
                                                   bad_turn: dict[str, Any]) -> None:
    path = tmp_path / "two.json"
    path.write_text(json.dumps(two_records(bad_turn)))
    with pytest.raises(InputError, match="record #1 "):
        memory.ingest(path, space=space)
    assert stored(memory, space)["turns"] == 0  # record #0 was not written either
    assert not memory.has_space(space)


def test_the_report_counts_what_is_stored(memory: Memory, space: str) -> None:
    first = memory.ingest(DATA / "mini_locomo.json", space=space)
    second = memory.ingest(DATA / "mini_longmemeval.json", space=space)
    counts = stored(memory, space)
    assert first.turns + second.turns == counts["turns"]
    assert first.sessions + second.sessions == counts["sessions"]
    assert first.count("edus") + second.count("edus") == counts["edus"]
    assert first.count("new arguments") + second.count("new arguments") == counts["arguments"]
    again = memory.ingest(DATA / "mini_longmemeval.json", space=space)
    assert again.count("new arguments") == 0 and stored(memory, space) == counts


def test_longmemeval_ids_that_differ_only_by_spaces_are_refused(memory: Memory, space: str,
                                                                tmp_path: Path) -> None:
    data = json.loads((DATA / "mini_longmemeval.json").read_text())
    data[0]["haystack_session_ids"] = ["sa", "sa "]
    path = tmp_path / "lme.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match="duplicate session id 'sa'"):
        memory.ingest(path, space=space)
    assert stored(memory, space)["sessions"] == 0


def record(session_keys: list[str], key: str = "c", speaker: str = "Ana") -> ConversationRecord:
    return ConversationRecord(key=key, source_format="code", source_file="-", sessions=tuple(
        SessionRecord(key=k, index=i, turns=(TurnRecord(order=0, speaker=speaker, text="hello",
                                                        source_id=f"t{i}"),))
        for i, k in enumerate(session_keys)))


@pytest.mark.parametrize(("records", "words"), [
    ([record(["sa", "sa "])], "duplicate session id 'sa'"),
    ([record(["s"], key="k" * 300)], "id of 300 characters exceeds the limit of 200"),
    ([record(["s"], speaker="a\nb")], "control character"),
    ([record(["s"]), record(["t"])], "duplicate conversation id"),
    ([], "no conversations"),
    (42, "expected a file path or a list"),
    (["not a record"], "expected a ConversationRecord, got str"),
])
def test_records_from_code_obey_the_file_rules(memory: Memory, space: str, records: Any,
                                               words: str) -> None:
    with pytest.raises(InputError, match=words):
        memory.ingest(records, space=space)
    assert stored(memory, space)["turns"] == 0


def test_records_from_code_are_stored_normalised(memory: Memory, space: str) -> None:
    memory.ingest([record([" s1 ", "s2"], key=" c ")], space=space)
    rows = query_rows(memory.store, "MATCH (s:Session {space: $s}) RETURN s.key AS key "
                      "ORDER BY key", s=space)
    assert [r["key"] for r in rows] == ["s1", "s2"]


@pytest.mark.parametrize(("arguments", "words"), [
    ({"budget": "100"}, "budget must be a positive whole number"),
    ({"budget": True}, "budget must be a positive whole number"),
    ({"budget": 0}, "budget must be a positive whole number"),
    ({"strategy": "emem", "k": "5"}, "option k='5' is not int | None"),
    ({"strategy": "esmem", "alpha": "high"}, "option alpha='high' is not float"),
    ({"strategy": "emem-g", "graph": 1}, "option graph=1 is not bool"),
    ({"strategy": 3}, "strategy is named by a string"),
])
def test_search_arguments_are_checked(memory: Memory, space: str, arguments: dict[str, Any],
                                      words: str) -> None:
    with pytest.raises(InputError, match=words):
        memory.search("what?", space=space, **arguments)


def test_a_question_longer_than_a_turn_is_refused(memory: Memory, space: str) -> None:
    with pytest.raises(InputError, match="question of"):
        memory.search("why " * 20_000, space=space)


def test_a_database_failure_midway_says_what_is_stored_and_a_rerun_completes(
        memory: Memory, space: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from neo4j.exceptions import TransientError

    path = tmp_path / "two.json"
    path.write_text(json.dumps(two_records({"speaker": "Bo", "text": "A canoe in Oslo."})))
    real = memory.store.write_tx
    calls: list[int] = []

    def failing_second(work: Any, name: str) -> Any:
        calls.append(1)
        if len(calls) == 2:
            raise TransientError("the database went away")
        return real(work, name)

    monkeypatch.setattr(memory.store, "write_tx", failing_second)
    with pytest.raises(TransientError) as info:
        memory.ingest(path, space=space, layers="")
    assert "1 of 2 conversations were stored before conversation 'second' failed" in \
        "".join(info.value.__notes__)
    assert stored(memory, space)["conversations"] == 1
    monkeypatch.setattr(memory.store, "write_tx", real)
    memory.ingest(path, space=space, layers="")
    assert stored(memory, space)["conversations"] == 2


def test_a_long_question_without_spaces_is_answered(memory: Memory, space: str) -> None:
    """50,000 emoji (within the length limit): the search analyses its beginning only."""
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I adopted a cat."}], layers="")
    result = memory.search(WIDE * 50_000, space=space, budget=100)
    assert result.question == WIDE * 50_000 and len(result.hits) == 1
