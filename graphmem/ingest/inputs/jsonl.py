"""The ``jsonl`` format: a message log, one JSON object per line, as an agent or a chat
service writes it. Lines are grouped into conversations, and within each into sessions, in the
order they first appear; messages keep the file's order.

    {"conversation": "alice", "session": "2024-03-02", "time": "2024-03-02T18:40:00",
     "speaker": "Alice", "text": "I signed up for a pottery class.", "id": "m-1"}

``conversation``, ``speaker`` and ``text`` are required; ``session`` defaults to
``session_1``, ``id`` to ``<session>:<position from 1>``; a session starts at the ``time`` of
its first line that gives one; ``image_caption`` is optional. Every error names its line.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from graphmem.errors import InputError
from graphmem.ingest.inputs.fields import (
    BadTurnPolicy,
    Where,
    check_conversation,
    key,
    need,
    turn,
)
from graphmem.ingest.inputs.reading import ParseResult, parse_iso, read_bytes
from graphmem.models import ConversationRecord, SessionRecord, TurnRecord


@dataclass
class _Session:
    started_at: datetime | None = None
    written: str | None = None
    turns: list[TurnRecord] = field(default_factory=list)


@dataclass
class _Conversation:
    first_line: int
    sessions: dict[str, _Session] = field(default_factory=dict)
    error: InputError | None = None


def parse_jsonl(path: Path, *, max_turn_chars: int, max_bytes: int,
                bad_turns: BadTurnPolicy) -> ParseResult:
    """The conversations of a message log; a bad line rejects its conversation."""
    raw = read_bytes(path, max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        at = raw[: exc.start].count(b"\n") + 1
        raise InputError(f"not valid UTF-8 at line {at}", file=str(path)) from exc
    result = ParseResult()
    conversations: dict[str, _Conversation] = {}
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        here = Where(str(path), f"line {number}", max_turn_chars, bad_turns, result.warnings)
        message = _message(line, number, here)
        conv_key = key(need(message, "conversation", here, (str, int)), here, "conversation")
        conv = conversations.setdefault(conv_key, _Conversation(number))
        if conv.error is None:
            try:
                _add(conv, message, here)
            except InputError as exc:
                conv.error = exc
    for conv_key, conv in conversations.items():
        if conv.error is not None:
            result.errors.append(conv.error)
            continue
        record = ConversationRecord(
            key=conv_key, source_format="jsonl", source_file=str(path), sessions=tuple(
                SessionRecord(key=name, index=i, started_at=s.started_at, date_text=s.written,
                              turns=tuple(s.turns))
                for i, (name, s) in enumerate(conv.sessions.items())))
        try:
            check_conversation(record, Where(str(path), f"line {conv.first_line}",
                                             max_turn_chars, bad_turns, []), "session", "id")
        except InputError as exc:
            result.errors.append(exc)
            continue
        result.conversations.append(record)
    if not result.conversations and not result.errors:
        raise InputError("the input holds no conversations", file=str(path))
    return result


def _message(line: str, number: int, ctx: Where) -> dict[str, Any]:
    try:
        message = json.loads(line)
    except (json.JSONDecodeError, RecursionError) as exc:
        raise InputError(f"line {number} is not one JSON object ({exc})", file=ctx.file) from exc
    if not isinstance(message, dict):
        raise InputError(f"line {number} is not a JSON object", file=ctx.file)
    return message


def _add(conv: _Conversation, message: dict[str, Any], ctx: Where) -> None:
    name = key(message.get("session", "session_1"), ctx, "session")
    session = conv.sessions.setdefault(name, _Session())
    written = message.get("time")
    if written is not None and session.started_at is None:
        session.started_at, session.written = parse_iso(written, ctx, "time"), written.strip()
    position = len(session.turns) + 1
    source_id = key(message.get("id", f"{name}:{position}"), ctx, "id")
    one = turn(position - 1, message.get("speaker"), message.get("text"), source_id, ctx,
               "message", message.get("image_caption"))
    if one is not None:
        session.turns.append(one)
