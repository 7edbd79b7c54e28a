"""The messages of a coding agent's session transcript, for the capture hooks.

Two JSON Lines shapes are read, one object per line:

* **Claude Code**: ``{"type": "user" | "assistant", "uuid": ..., "timestamp": ...,
  "message": {"role": ..., "content": str | [blocks]}}``. Text blocks are kept; tool calls,
  tool results and thinking are not memories. A line's ``uuid`` is the message id.
* **Codex**: ``{"timestamp": ..., "type": "response_item", "payload": {"type": "message",
  "role": "user" | "assistant", "content": [{"type": "input_text" | "output_text",
  "text": ...}]}}``. Lines carry no id, and the file only grows, so the id is the line's number.

Lines of any other shape (summaries, tool events, session metadata) are skipped, as is a line
that is not JSON (a line being written while the hook reads). Every id is prefixed by
nothing: the conversation is the session, so ids only need to be unique within it.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

ROLES = ("user", "assistant")


def read_transcript(path: Path) -> list[dict[str, Any]]:
    """The user and assistant text messages of ``path`` in order, as ``add_messages``
    takes them (speaker, text, id, at)."""
    out: list[dict[str, Any]] = []
    with path.open(encoding="utf-8", errors="replace") as lines:
        for number, line in enumerate(lines, start=1):
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            message = _claude(entry) if "uuid" in entry else _codex(entry, number)
            if message is not None:
                out.append(message)
    return out


def _claude(entry: dict[str, Any]) -> dict[str, Any] | None:
    body = entry.get("message")
    if entry.get("type") not in ROLES or not isinstance(body, dict) or entry.get("isMeta"):
        return None
    return _message(body.get("role"), body.get("content"), str(entry["uuid"]),
                    entry.get("timestamp"))


def _codex(entry: dict[str, Any], number: int) -> dict[str, Any] | None:
    payload = entry.get("payload")
    if entry.get("type") != "response_item" or not isinstance(payload, dict) or \
            payload.get("type") != "message":
        return None
    return _message(payload.get("role"), payload.get("content"), f"line-{number}",
                    entry.get("timestamp"))


def _message(role: Any, content: Any, ident: str, at: Any) -> dict[str, Any] | None:
    if role not in ROLES:
        return None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(block["text"] for block in content if isinstance(block, dict)
                         and block.get("type") in ("text", "input_text", "output_text")
                         and isinstance(block.get("text"), str))
    else:
        return None
    if not text.strip():
        return None
    message: dict[str, Any] = {"speaker": role, "text": text, "id": ident}
    when = _time(at)
    if when is not None:
        message["at"] = when
    return message


def _time(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
