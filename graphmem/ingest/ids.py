"""Stable ids: built from the space, the conversation key and the ids the input gives, so the
same input always maps to the same nodes (MERGE makes re-ingesting a no-op)."""

from __future__ import annotations

from urllib.parse import quote

from graphmem.errors import InputError

MAX_SPACE_CHARS = 128


def check_space(space: str) -> str:
    """A space id: 1-128 printable characters."""
    if not isinstance(space, str) or not space.strip():
        raise InputError("a space id must be a non-empty string", field="space")
    if len(space) > MAX_SPACE_CHARS or any(ord(ch) < 32 for ch in space):
        raise InputError(f"a space id must be 1-{MAX_SPACE_CHARS} printable characters",
                         field="space")
    return space


def conversation_id(space: str, key: str) -> str:
    return f"{quote(space, safe='')}/{quote(key, safe='')}"


def session_id(space: str, conversation: str, key: str) -> str:
    return f"{conversation_id(space, conversation)}/{quote(key, safe='')}"


def turn_id(space: str, conversation: str, source_id: str) -> str:
    return f"{conversation_id(space, conversation)}#{quote(source_id, safe='')}"


def speaker_id(space: str, name: str) -> str:
    return f"{quote(space, safe='')}/@{quote(name, safe='')}"
