"""How the agent surfaces name things: a framework's identifiers map to one space each and
back, a memory id names one message and reads back as it, and a coding agent's transcript
gives its people's words only, whatever else a line holds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from graphmem.errors import InputError
from graphmem.ids import turn_id, turn_parts
from graphmem.integrations.adk import default_space
from graphmem.integrations.core import joined, split
from graphmem.integrations.transcripts import read_transcript


def test_identifiers_map_to_spaces_one_to_one() -> None:
    tuples = [("memories", "alice/bank"), ("memories", "alice", "bank"), ("a%2Fb",),
              ("a/b",), ("100%",), ("x", "y/z"), ("x/y", "z"),
              ("alice\n",), ("alice",), ("tab\there", "\x7f")]  # control characters too
    names = [joined(t) for t in tuples]
    assert len(set(names)) == len(tuples)  # no two share a space
    assert [split(n) for n in names] == tuples  # and each reads back
    assert joined(("alice", "memories")) == "alice/memories"  # plain labels read as before
    assert default_space("helper/x", "y") != default_space("helper", "x/y")
    for bad in ((), ("",), ("a", 7)):
        with pytest.raises(InputError):
            joined(bad)  # type: ignore[arg-type]


def test_a_memory_id_reads_back_as_its_message() -> None:
    for space, conversation, message in [("alice", "chat", "m1"), ("a/b", "c#d", "e/f#g%"),
                                         ("ü space", "x y", "ñ")]:
        assert turn_parts(space, turn_id(space, conversation, message)) == (conversation,
                                                                            message)
    assert turn_parts("alice", turn_id("bob", "chat", "m1")) is None  # another space's
    assert turn_parts("alice", "m1") is None and turn_parts("alice", "alice/x#y#z") is None
    assert turn_parts("x", turn_id("x", "c", "z" * 300)) is None  # hashed: the graph knows


def write(path: Path, lines: list[object]) -> Path:
    path.write_text("".join((line if isinstance(line, str) else json.dumps(line)) + "\n"
                            for line in lines), encoding="utf-8")
    return path


def said(n: int, role: str, text: str, **extra: object) -> dict[str, object]:
    return {"type": role, "uuid": f"u{n}", "timestamp": "2026-11-20T10:00:00Z",
            "message": {"role": role, "content": text}, **extra}


def test_bad_lines_cost_nothing_else(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [
        said(1, "user", "Keep the API on port 8080."), "[]", "7", "null", '"text"', "{",
        said(2, "assistant", "Port 8080 it is."),
        {**said(3, "user", "From the far future."), "timestamp": "2999-01-01T00:00:00Z"}])
    messages = read_transcript(path)
    assert [m["text"] for m in messages] == ["Keep the API on port 8080.", "Port 8080 it is.",
                                             "From the far future."]
    assert "at" in messages[0] and "at" not in messages[2]  # the impossible time dropped


def test_the_harness_own_text_is_not_the_user_s(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [
        said(1, "user", "<command-name>/clear</command-name>\n<command-message>clear"),
        said(2, "user", "<local-command-stdout>cleared</local-command-stdout>"),
        said(3, "user", "Review the billing module.", isSidechain=True),
        said(4, "user", "This session is being continued...", isCompactSummary=True),
        said(5, "user", "The deploy window is Thursday mornings."),
        {"timestamp": "2026-11-20T10:00:00Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "# AGENTS.md instructions for /repo\n..."}]}},
        {"timestamp": "2026-11-20T10:00:00Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "<environment_context>cwd</environment_context>"}]}},
        {"timestamp": "2026-11-20T10:00:01Z", "type": "response_item", "payload": {
            "type": "message", "role": "user", "content": [
                {"type": "input_text", "text": "Use tabs in the Makefile."}]}}])
    assert [m["text"] for m in read_transcript(path)] == [
        "The deploy window is Thursday mornings.", "Use tabs in the Makefile."]
