"""Coding-agent transcripts read as messages: text only, ids from the transcript."""

from datetime import UTC, datetime

import pytest

from graphmem.errors import InputError
from graphmem.integrations.hooks import event_name, read_payload
from graphmem.integrations.transcripts import read_transcript

from helpers import TESTS

HOOKS = TESTS / "data" / "hooks"


def test_claude_code_transcript() -> None:
    messages = read_transcript(HOOKS / "claude_transcript.jsonl")
    assert [(m["id"], m["speaker"]) for m in messages] == [
        ("u-001", "user"), ("a-002", "assistant"), ("u-005", "user"), ("a-006", "assistant")]
    assert messages[1]["text"].startswith("Understood: I will keep")  # no thinking, no tools
    assert messages[2]["text"].startswith("<graphmem-context>")  # add_messages strips it
    assert messages[0]["at"] == datetime(2026, 11, 20, 9, 0, tzinfo=UTC)


def test_codex_transcript() -> None:
    messages = read_transcript(HOOKS / "codex_transcript.jsonl")
    assert [(m["id"], m["speaker"]) for m in messages] == [("line-2", "user"),
                                                           ("line-5", "assistant")]
    assert "billing_invoices" in messages[1]["text"]


def test_event_names_and_payloads() -> None:
    assert event_name(None, {"hook_event_name": "UserPromptSubmit"}) == "prompt"
    assert event_name("PreCompact", {}) == "pre-compact"
    assert event_name("stop", {"hook_event_name": "SessionStart"}) == "stop"
    with pytest.raises(InputError, match="unknown hook event"):
        event_name("PreToolUse", {})
    with pytest.raises(InputError, match="not JSON"):
        read_payload("{oops")
    assert read_payload("") == {}
