"""Reading input files: bounded in size, strict UTF-8 JSON with distinct keys, and the
result of parsing one (records plus the errors and warnings met)."""

from __future__ import annotations

import gzip
import json
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from graphmem.errors import InputError
from graphmem.ingest.inputs.fields import Where, date_text, shown
from graphmem.models import ConversationRecord

CHUNK = 1 << 20


@dataclass
class ParseResult:
    conversations: list[ConversationRecord] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


class _DuplicateKey(Exception):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object whose keys all differ (json's default keeps the last silently)."""
    obj: dict[str, Any] = {}
    for name, value in pairs:
        if name in obj:
            raise _DuplicateKey(f"duplicate key {shown(name)} in an object with keys "
                                f"{', '.join(map(shown, list(obj)[:5]))}")
        obj[name] = value
    return obj


def read_bytes(path: Path, max_bytes: int) -> bytes:
    """The file's bytes (gunzipped for ``.gz``), refusing to read past ``max_bytes``."""
    limit = f"the input limit of {max_bytes / 2**20:g} MiB (GRAPHMEM_MAX_INPUT_MB)"
    try:
        with (gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb")) as handle:
            chunks, size = [], 0
            while chunk := handle.read(min(CHUNK, max_bytes + 1 - size)):
                chunks.append(chunk)
                size += len(chunk)
                if size > max_bytes:
                    unpacked = " once decompressed" if path.suffix == ".gz" else ""
                    raise InputError(f"larger than {limit}{unpacked}", file=str(path))
    except (gzip.BadGzipFile, EOFError, zlib.error) as exc:
        raise InputError(f"not a readable gzip file ({exc or type(exc).__name__})",
                         file=str(path)) from exc
    except OSError as exc:
        raise InputError(f"cannot read: {exc.strerror or exc}", file=str(path)) from exc
    return b"".join(chunks)


def read_json(path: Path, max_bytes: int = 1 << 30) -> Any:
    """Read a JSON file strictly as UTF-8, with distinct keys in every object; errors say
    where the bad byte or syntax is."""
    raw = read_bytes(path, max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} (line {line})",
            file=str(path),
        ) from exc
    del raw
    try:
        return json.loads(text, object_pairs_hook=_object)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=str(path)
        ) from exc
    except _DuplicateKey as exc:
        raise InputError(str(exc), file=str(path)) from exc
    except RecursionError as exc:
        raise InputError("JSON nested too deeply", file=str(path)) from exc



def parse_iso(text: str, ctx: Where, where: str) -> datetime:
    text = date_text(text, ctx, where)
    try:
        value = datetime.fromisoformat(text)
    except ValueError as exc:
        raise ctx.error(f"unparsable date {shown(text)} (expected ISO 8601)", where) from exc
    if value.tzinfo is not None:  # stored as naive UTC so that every session orders together
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value
