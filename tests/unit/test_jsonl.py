"""The JSONL message log: grouping into conversations and sessions, defaults, and errors that
name their line."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import InputError
from graphmem.ingest.inputs.loaders import parse_file


def log(tmp_path: Path, *lines: Any, name: str = "messages.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(line if isinstance(line, str) else json.dumps(line)
                              for line in lines) + "\n")
    return path


def test_lines_group_into_conversations_and_sessions_in_order(tmp_path: Path) -> None:
    path = log(tmp_path,
               {"conversation": "a", "session": "d1", "time": "2024-03-02T18:40:00+01:00",
                "speaker": "Ann", "text": "I got a kayak."},
               {"conversation": "b", "speaker": "Bo", "text": "Hello", "id": 7},
               "",
               {"conversation": "a", "session": "d1", "speaker": "Cy", "text": "Nice!"},
               {"conversation": "a", "session": "d2", "speaker": "Ann", "text": "It leaks.",
                "image_caption": "a kayak with a hole"})
    result = parse_file(path)
    assert result.errors == []
    a, b = result.conversations
    assert (a.key, b.key) == ("a", "b") and a.source_format == "jsonl"
    assert [s.key for s in a.sessions] == ["d1", "d2"]
    assert str(a.sessions[0].started_at) == "2024-03-02 17:40:00"  # UTC
    assert [t.source_id for t in a.sessions[0].turns] == ["d1:1", "d1:2"]
    assert a.sessions[1].turns[0].image_caption == "a kayak with a hole"
    assert b.sessions[0].key == "session_1" and b.sessions[0].turns[0].source_id == "7"


@pytest.mark.parametrize(("line", "words"), [
    ("{not json", "line 2 is not one JSON object"),
    ("[1, 2]", "line 2 is not a JSON object"),
    ({"speaker": "A", "text": "hi"}, "record line 2, field conversation: missing field"),
    ({"conversation": "a", "speaker": 5, "text": "hi"}, "record line 2, field message.speaker"),
    ({"conversation": "a", "speaker": "A", "text": "hi", "time": "soon"}, "unparsable date"),
    ({"conversation": "a", "speaker": "A", "text": "hi", "id": "a-1"}, "duplicate turn id"),
])
def test_a_bad_line_is_named(tmp_path: Path, line: Any, words: str) -> None:
    first = {"conversation": "a", "speaker": "A", "text": "first", "id": "a-1"}
    path = log(tmp_path, first, line)
    try:
        result = parse_file(path)
    except InputError as exc:
        assert words in str(exc)
        return
    assert [c.key for c in result.conversations] == [] and words in str(result.errors[0])


def test_a_bad_line_rejects_only_its_conversation(tmp_path: Path) -> None:
    path = log(tmp_path, {"conversation": "a", "speaker": "A", "text": "fine"},
               {"conversation": "b", "speaker": "B", "text": ""},
               {"conversation": "a", "speaker": "A", "text": "still fine"})
    result = parse_file(path)
    assert [c.key for c in result.conversations] == ["a"]
    assert "line 2" in str(result.errors[0]) and "empty turn" in str(result.errors[0])


def test_an_empty_log_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="holds no conversations"):
        parse_file(log(tmp_path, ""))
