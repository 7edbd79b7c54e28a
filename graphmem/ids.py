"""Stable ids: built from the space, the conversation key and the ids the input gives, so the
same input always maps to the same nodes (MERGE makes re-ingesting a no-op).

Each component is percent-encoded; a component longer than ``MAX_PART_BYTES`` once encoded
keeps its beginning and ends in a hash of the whole, so that no id (all are indexed by
uniqueness constraints) comes near Neo4j's limit on an index entry (about 8 kB), whatever
the input's characters.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import quote, unquote

from graphmem.errors import InputError

MAX_SPACE_CHARS = 128
MAX_PART_BYTES = 200
_HASHED = "%~"  # never made by percent-encoding, which writes every '%' as %25


def check_space(space: str) -> str:
    """A space id: 1-128 printable characters."""
    if not isinstance(space, str) or not space.strip():
        raise InputError("a space id must be a non-empty string", field="space")
    if len(space) > MAX_SPACE_CHARS or any(ord(ch) < 32 for ch in space):
        raise InputError(f"a space id must be 1-{MAX_SPACE_CHARS} printable characters",
                         field="space")
    if not space.isascii():
        try:
            space.encode("utf-8")
        except UnicodeEncodeError:
            raise InputError("a space id must be valid Unicode (it holds an unpaired "
                             "surrogate)", field="space") from None
    return space


def part(text: str, safe: str = "") -> str:
    """One component of an id: percent-encoded, and at most ``MAX_PART_BYTES`` long."""
    encoded = quote(text, safe=safe)
    if len(encoded) <= MAX_PART_BYTES:
        return encoded
    digest = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:40]
    head = encoded[:MAX_PART_BYTES - len(digest) - len(_HASHED)]
    cut = head.rfind("%")
    if cut >= len(head) - 2:  # do not end inside a %XX escape
        head = head[:cut]
    return f"{head}{_HASHED}{digest}"


def space_prefix(space: str) -> str:
    """What the id of every node of ``space`` (but its ``Space`` node) starts with: no other
    space's ids do, since a space's own part never holds a '/'."""
    return f"{part(space)}/"


def conversation_id(space: str, key: str) -> str:
    return f"{part(space)}/{part(key)}"


def session_id(space: str, conversation: str, key: str) -> str:
    return f"{conversation_id(space, conversation)}/{part(key)}"


def turn_id(space: str, conversation: str, source_id: str) -> str:
    return f"{conversation_id(space, conversation)}#{part(source_id)}"


def speaker_id(space: str, name: str) -> str:
    return f"{part(space)}/@{part(name)}"


def forgotten_digest(turn: str, key: str | None = None) -> str:
    """What a space keeps of a forgotten message (``ingest/forget_ids``): a digest of its Turn
    id, enough to refuse the id when a history is sent again, and nothing of what was said.
    With ``key`` (``GRAPHMEM_FORGET_KEY``, a secret of the deployment) it is keyed, so that
    one who holds an export file cannot tell, by hashing a guess, which ids were forgotten."""
    said = turn.encode("utf-8", "surrogatepass")
    if key:
        return hmac.new(key.encode("utf-8"), said, hashlib.sha256).hexdigest()[:32]
    return hashlib.sha256(said).hexdigest()[:32]


def forgotten_digests(turn: str, key: str | None) -> list[str]:
    """The digests that refuse ``turn``: the keyed one first (what a forget writes), then the
    plain one, which a space forgotten in before the key was set still holds."""
    plain = forgotten_digest(turn)
    return [forgotten_digest(turn, key), plain] if key else [plain]


def turn_parts(space: str, turn: str) -> tuple[str, str] | None:
    """The conversation key and message id a Turn id of ``space`` names (the inverse of
    :func:`turn_id`), or None when ``turn`` is not one, or one of its parts was too long and
    is hashed (then only the graph knows them)."""
    prefix = f"{part(space)}/"
    if not turn.startswith(prefix) or turn.count("#") != 1:
        return None
    conversation, _, message = turn[len(prefix):].partition("#")
    if not conversation or not message or "/" in conversation or "/" in message:
        return None
    if _HASHED in conversation or _HASHED in message:
        return None
    return unquote(conversation), unquote(message)
