"""Parse input files into :class:`ConversationRecord` objects, validating everything first.

Three formats are understood:

``locomo``
    The LoCoMo release (``locomo10.json``): a list of samples, each with ``sample_id`` and a
    ``conversation`` holding ``session_N`` turn lists and ``session_N_date_time`` strings.
    Only turns and dates are read; the annotation fields are never touched.
``longmemeval``
    LongMemEval (oracle / S / M): a list of questions, each with its own haystack of sessions.
    Each question becomes one conversation keyed by ``question_id``.
``json``
    graphmem's own chat format, documented in ``docs/formats.md``.

Parsing never writes anything. Problems are collected per record as :class:`InputError`
objects that name the file, the record and the field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from graphmem.errors import InputError
from graphmem.models import ConversationRecord, SessionRecord, TurnRecord

Format = Literal["locomo", "longmemeval", "json"]
BadTurnPolicy = Literal["error", "skip"]
FORMATS: tuple[str, ...] = ("locomo", "longmemeval", "json")

_LOCOMO_SESSION = re.compile(r"session_(\d+)")
_LOCOMO_DATES = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y")
_LONGMEMEVAL_DATES = ("%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y/%m/%d")


@dataclass
class ParseResult:
    conversations: list[ConversationRecord] = field(default_factory=list)
    errors: list[InputError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass
class _Ctx:
    """Where we are, so that every error can say it; plus the limits to enforce."""

    file: str
    record: str
    max_turn_chars: int
    bad_turns: BadTurnPolicy
    warnings: list[str]

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, file=self.file, record=self.record, field=field)


def read_json(path: Path) -> Any:
    """Read a JSON file strictly as UTF-8; errors say where the bad byte or syntax is."""
    raw = path.read_bytes()
    if path.suffix == ".gz":
        import gzip

        raw = gzip.decompress(raw)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            f"not valid UTF-8: byte 0x{raw[exc.start]:02x} at offset {exc.start} (line {line})",
            file=str(path),
        ) from exc
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            f"malformed JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}", file=str(path)
        ) from exc


def detect_format(data: Any) -> Format:
    if isinstance(data, dict) and ("conversations" in data or "sessions" in data):
        return "json"
    if isinstance(data, list) and data and isinstance(data[0], dict):
        if "conversation" in data[0] and "sample_id" in data[0]:
            return "locomo"
        if "haystack_sessions" in data[0]:
            return "longmemeval"
    raise InputError("cannot tell the format; pass --format locomo|longmemeval|json")


def parse_file(
    path: Path,
    fmt: Format | Literal["auto"] = "auto",
    *,
    max_turn_chars: int = 50_000,
    bad_turns: BadTurnPolicy = "error",
) -> ParseResult:
    data = read_json(path)
    try:
        chosen = detect_format(data) if fmt == "auto" else fmt
    except InputError as exc:
        raise InputError(exc.reason, file=str(path)) from exc
    parser = _PARSERS[chosen]
    result = ParseResult()
    seen: set[str] = set()
    for label, record in _records(chosen, data, str(path)):
        ctx = _Ctx(str(path), label, max_turn_chars, bad_turns, result.warnings)
        try:
            conversation = parser(record, ctx)
            if conversation.key in seen:
                raise ctx.error(f"duplicate conversation id {conversation.key!r}", "id")
            seen.add(conversation.key)
            result.conversations.append(conversation)
        except InputError as exc:
            result.errors.append(exc)
    return result


def _records(fmt: Format, data: Any, file: str) -> Iterable[tuple[str, Any]]:
    if fmt == "json":
        if not isinstance(data, dict):
            raise InputError("expected a JSON object", file=file)
        items = data.get("conversations", [data])
        if not isinstance(items, list):
            raise InputError("must be a list", file=file, field="conversations")
        key = "id"
    else:
        if not isinstance(data, list):
            raise InputError(f"a {fmt} file is a JSON list of records", file=file)
        items, key = data, ("sample_id" if fmt == "locomo" else "question_id")
    for i, item in enumerate(items):
        name = item.get(key) if isinstance(item, dict) else None
        yield (f"#{i} ({name})" if name is not None else f"#{i}"), item


# ------------------------------------------------------------------ field helpers
def _need(
    obj: Any, key: str, ctx: _Ctx, kind: type | tuple[type, ...] = str, where: str | None = None
) -> Any:
    """``obj[key]``, which must exist and be of ``kind``; ``where`` prefixes the field name."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise ctx.error("expected a JSON object", where or key)
    if key not in obj or obj[key] is None:
        raise ctx.error("missing field", name)
    value = obj[key]
    if not isinstance(value, kind) or isinstance(value, bool):
        names = kind.__name__ if isinstance(kind, type) else "/".join(k.__name__ for k in kind)
        raise ctx.error(f"expected {names}, got {type(value).__name__}", name)
    return value


def _key(value: Any, ctx: _Ctx, where: str) -> str:
    text = str(value).strip()
    if not text or len(text) > 200 or any(ord(ch) < 32 for ch in text):
        raise ctx.error("ids must be 1-200 printable characters", where)
    return text


def _parse_date(text: str, formats: tuple[str, ...], ctx: _Ctx, where: str) -> datetime:
    for pattern in formats:
        try:
            return datetime.strptime(text.strip(), pattern)
        except ValueError:
            continue
    raise ctx.error(f"unparsable date {text!r}", where)


def _parse_iso(text: str, ctx: _Ctx, where: str) -> datetime:
    try:
        value = datetime.fromisoformat(text.strip())
    except ValueError as exc:
        raise ctx.error(f"unparsable date {text!r} (expected ISO 8601)", where) from exc
    if value.tzinfo is not None:  # stored as naive UTC so that every session orders together
        value = value.astimezone(UTC).replace(tzinfo=None)
    return value


def _turn(
    order: int, speaker: Any, text: Any, source_id: str, ctx: _Ctx, where: str,
    caption: Any = None, url: Any = None,
) -> TurnRecord | None:
    if not isinstance(speaker, str) or not speaker.strip():
        raise ctx.error("missing or empty speaker", f"{where}.speaker")
    if not isinstance(text, str):
        raise ctx.error("missing text", f"{where}.text")
    caption = caption.strip() if isinstance(caption, str) and caption.strip() else None
    if not text.strip() and caption is None:
        if ctx.bad_turns == "skip":
            ctx.warnings.append(f"{ctx.file} record {ctx.record}: skipped empty turn {where}")
            return None
        raise ctx.error("empty turn", f"{where}.text")
    if len(text) > ctx.max_turn_chars:
        raise ctx.error(
            f"turn of {len(text)} characters exceeds the limit of {ctx.max_turn_chars} "
            "(GRAPHMEM_MAX_TURN_CHARS)", f"{where}.text",
        )
    if isinstance(url, list):
        url = url[0] if url else None
    return TurnRecord(
        order=order, speaker=speaker.strip(), text=text.strip(), source_id=source_id,
        image_caption=caption, image_url=url if isinstance(url, str) else None,
    )


def _check_unique(turns: list[TurnRecord], ctx: _Ctx, where: str) -> None:
    seen: set[str] = set()
    for turn in turns:
        if turn.source_id in seen:
            raise ctx.error(f"duplicate turn id {turn.source_id!r}", where)
        seen.add(turn.source_id)


# ------------------------------------------------------------------ the three formats
def _parse_locomo(record: Any, ctx: _Ctx) -> ConversationRecord:
    sample_id = _key(_need(record, "sample_id", ctx), ctx, "sample_id")
    conv = _need(record, "conversation", ctx, dict)
    numbers = sorted(int(m.group(1)) for k in conv if (m := _LOCOMO_SESSION.fullmatch(k)))
    if not numbers:
        raise ctx.error("no session_N lists", "conversation")
    sessions, all_turns = [], []
    for index, n in enumerate(numbers):
        where = f"conversation.session_{n}"
        raw_turns = _need(conv, f"session_{n}", ctx, list)
        date_text = _need(conv, f"session_{n}_date_time", ctx)
        started = _parse_date(date_text, _LOCOMO_DATES, ctx, f"{where}_date_time")
        turns = []
        for i, raw in enumerate(raw_turns):
            tw = f"{where}[{i}]"
            dia_id = _key(_need(raw, "dia_id", ctx, str, tw), ctx, f"{tw}.dia_id")
            turn = _turn(
                i, raw.get("speaker"), raw.get("text"), dia_id, ctx, tw,
                raw.get("blip_caption"), raw.get("img_url"),
            )
            if turn is not None:
                turns.append(turn)
        all_turns.extend(turns)
        sessions.append(SessionRecord(key=f"session_{n}", index=index, started_at=started,
                                      date_text=date_text, turns=tuple(turns)))
    _check_unique(all_turns, ctx, "dia_id")
    return ConversationRecord(key=sample_id, sessions=tuple(sessions), source_format="locomo",
                              source_file=ctx.file)


def _parse_longmemeval(record: Any, ctx: _Ctx) -> ConversationRecord:
    qid = _key(_need(record, "question_id", ctx), ctx, "question_id")
    ids = _need(record, "haystack_session_ids", ctx, list)
    dates = _need(record, "haystack_dates", ctx, list)
    bodies = _need(record, "haystack_sessions", ctx, list)
    if not len(ids) == len(dates) == len(bodies):
        raise ctx.error("session ids, dates and sessions differ in length", "haystack_sessions")
    if len(set(map(str, ids))) != len(ids):
        raise ctx.error("duplicate session id", "haystack_session_ids")
    sessions = []
    for index, (sid, date_text, body) in enumerate(zip(ids, dates, bodies, strict=True)):
        key = _key(sid, ctx, f"haystack_session_ids[{index}]")
        if not isinstance(body, list):
            raise ctx.error("expected a list of turns", f"haystack_sessions[{index}]")
        started = _parse_date(str(date_text), _LONGMEMEVAL_DATES, ctx, f"haystack_dates[{index}]")
        turns = []
        for i, raw in enumerate(body):
            tw = f"haystack_sessions[{index}][{i}]"
            role = raw.get("role") if isinstance(raw, dict) else None
            turn = _turn(i, role, raw.get("content") if isinstance(raw, dict) else None,
                         f"{key}#{i}", ctx, tw)
            if turn is not None:
                turns.append(turn)
        sessions.append(SessionRecord(key=key, index=index, started_at=started,
                                      date_text=str(date_text), turns=tuple(turns)))
    return ConversationRecord(key=qid, sessions=tuple(sessions), source_format="longmemeval",
                              source_file=ctx.file)


def _parse_json(record: Any, ctx: _Ctx) -> ConversationRecord:
    key = _key(_need(record, "id", ctx, (str, int)), ctx, "id")
    raw_sessions = _need(record, "sessions", ctx, list)
    sessions, session_keys, all_turns = [], set(), []
    for index, raw in enumerate(raw_sessions):
        where = f"sessions[{index}]"
        if not isinstance(raw, dict):
            raise ctx.error("expected a JSON object", where)
        skey = _key(raw.get("id", f"session_{index + 1}"), ctx, f"{where}.id")
        if skey in session_keys:
            raise ctx.error(f"duplicate session id {skey!r}", f"{where}.id")
        session_keys.add(skey)
        started_text = raw.get("started_at")
        started = None
        if started_text is not None:
            if not isinstance(started_text, str):
                raise ctx.error("expected an ISO 8601 string", f"{where}.started_at")
            started = _parse_iso(started_text, ctx, f"{where}.started_at")
        raw_turns = _need(raw, "turns", ctx, list, where)
        turns = []
        for i, t in enumerate(raw_turns):
            tw = f"{where}.turns[{i}]"
            if not isinstance(t, dict):
                raise ctx.error("expected a JSON object", tw)
            tid = _key(t.get("id", f"{skey}:{i + 1}"), ctx, f"{tw}.id")
            turn = _turn(i, t.get("speaker"), t.get("text"), tid, ctx, tw, t.get("image_caption"))
            if turn is not None:
                turns.append(turn)
        all_turns.extend(turns)
        sessions.append(SessionRecord(key=skey, index=index, started_at=started,
                                      date_text=started_text, turns=tuple(turns)))
    _check_unique(all_turns, ctx, "sessions[].turns[].id")
    return ConversationRecord(key=key, sessions=tuple(sessions), source_format="json",
                              source_file=ctx.file)


_PARSERS: dict[str, Callable[[Any, _Ctx], ConversationRecord]] = {
    "locomo": _parse_locomo,
    "longmemeval": _parse_longmemeval,
    "json": _parse_json,
}
