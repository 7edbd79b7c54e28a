"""Parse input files into :class:`ConversationRecord` objects, validating everything first.

Four formats are understood:

``locomo``
    The LoCoMo release (``locomo10.json``): a list of samples, each with ``sample_id`` and a
    ``conversation`` holding ``session_N`` turn lists and ``session_N_date_time`` strings.
    Only turns and dates are read; the annotation fields are never touched.
``longmemeval``
    LongMemEval (oracle / S / M): a list of questions, each with its own haystack of sessions.
    Each question becomes one conversation keyed by ``question_id``.
``json``
    graphmem's own chat format, documented in ``docs/formats.md``.
``jsonl``
    a message log, one JSON object per line (:mod:`graphmem.ingest.inputs.jsonl`); chosen by the
    ``.jsonl`` / ``.jsonl.gz`` suffix under ``auto``.

Parsing never writes anything. Problems are collected per record as :class:`InputError`
objects that name the file, the record and the field.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from graphmem.errors import InputError
from graphmem.ingest.inputs.fields import (
    BadTurnPolicy,
    Where,
    check_conversation,
    date_text,
    key,
    need,
    shown,
    turn,
    unique,
)
from graphmem.ingest.inputs.jsonl import parse_jsonl
from graphmem.ingest.inputs.reading import ParseResult, parse_iso, read_json
from graphmem.models import ConversationRecord, SessionRecord

__all__ = ["FORMATS", "BadTurnPolicy", "Format", "ParseResult", "parse_file", "read_json"]

Format = Literal["locomo", "longmemeval", "json", "jsonl"]
FORMATS: tuple[str, ...] = ("locomo", "longmemeval", "json", "jsonl")

_LOCOMO_SESSION = re.compile(r"session_(\d+)")
_LOCOMO_DATES = ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y")
_LONGMEMEVAL_DATES = ("%Y/%m/%d (%a) %H:%M", "%Y/%m/%d %H:%M", "%Y/%m/%d")


def detect_format(data: Any) -> Format:
    if isinstance(data, dict) and ("conversations" in data or "sessions" in data):
        return "json"
    if isinstance(data, list) and data and isinstance(data[0], dict):
        if "conversation" in data[0] and "sample_id" in data[0]:
            return "locomo"
        if "haystack_sessions" in data[0]:
            return "longmemeval"
    if data == [] or data == {}:
        raise InputError("the input holds no conversations")
    raise InputError("cannot tell the format; pass --format locomo|longmemeval|json")


def parse_file(
    path: Path | str,
    fmt: Format | Literal["auto"] = "auto",
    *,
    max_turn_chars: int = 50_000,
    max_bytes: int = 1 << 30,
    bad_turns: BadTurnPolicy = "error",
) -> ParseResult:
    path = Path(path)
    if fmt == "jsonl" or (fmt == "auto" and path.name.endswith((".jsonl", ".jsonl.gz"))):
        return parse_jsonl(path, max_turn_chars=max_turn_chars, max_bytes=max_bytes,
                           bad_turns=bad_turns)
    data = read_json(path, max_bytes)
    try:
        chosen = detect_format(data) if fmt == "auto" else fmt
    except InputError as exc:
        raise InputError(exc.reason, file=str(path)) from exc
    parser = _PARSERS[chosen]
    result = ParseResult()
    seen: set[str] = set()
    for label, record in _records(chosen, data, str(path)):
        ctx = Where(str(path), label, max_turn_chars, bad_turns, result.warnings)
        try:
            conversation = parser(record, ctx)
            if conversation.key in seen:
                raise ctx.error(f"duplicate conversation id {shown(conversation.key)}")
            seen.add(conversation.key)
            result.conversations.append(conversation)
        except InputError as exc:
            result.errors.append(exc)
    if not result.conversations and not result.errors:
        raise InputError("the input holds no conversations", file=str(path))
    return result


def _records(fmt: Format, data: Any, file: str) -> Iterable[tuple[str, Any]]:
    if fmt == "json":
        if not isinstance(data, dict):
            raise InputError("expected a JSON object", file=file)
        items = data.get("conversations", [data])
        if not isinstance(items, list):
            raise InputError("must be a list", file=file, field="conversations")
        name_key = "id"
    else:
        if not isinstance(data, list):
            raise InputError(f"a {fmt} file is a JSON list of records", file=file)
        items, name_key = data, ("sample_id" if fmt == "locomo" else "question_id")
    for i, item in enumerate(items):
        name = item.get(name_key) if isinstance(item, dict) else None
        if isinstance(name, (str, int)) and not isinstance(name, bool):
            text = str(name)
            yield f"#{i} ({text if len(text) <= 60 else text[:60] + '...'})", item
        else:
            yield f"#{i}", item


# ------------------------------------------------------------------ dates
def _parse_date(text: str, formats: tuple[str, ...], ctx: Where, where: str) -> datetime:
    text = date_text(text, ctx, where)
    for pattern in formats:
        try:
            return datetime.strptime(text, pattern)
        except ValueError:
            continue
    raise ctx.error(f"unparsable date {shown(text)}", where)


# ------------------------------------------------------------------ the three formats
def _conversation(conv_key: str, sessions: list[SessionRecord], fmt: Format, ctx: Where,
                  session_field: str, turn_field: str) -> ConversationRecord:
    conversation = ConversationRecord(key=conv_key, sessions=tuple(sessions),
                                      source_format=fmt, source_file=ctx.file or "")
    check_conversation(conversation, ctx, session_field, turn_field)
    return conversation


def _parse_locomo(record: Any, ctx: Where) -> ConversationRecord:
    sample_id = key(need(record, "sample_id", ctx, (str, int)), ctx, "sample_id")
    conv = need(record, "conversation", ctx, dict)
    found = [(int(m.group(1)), k) for k in conv if (m := _LOCOMO_SESSION.fullmatch(k))]
    if not found:
        raise ctx.error("no session_N lists", "conversation")
    unique([str(n) for n, _ in found], ctx, "conversation", "session number")
    sessions = []
    for index, (n, name) in enumerate(sorted(found)):
        where = f"conversation.{name}"
        raw_turns = need(conv, name, ctx, list)
        written = need(conv, f"{name}_date_time", ctx)
        started = _parse_date(written, _LOCOMO_DATES, ctx, f"{where}_date_time")
        turns = []
        for i, raw in enumerate(raw_turns):
            tw = f"{where}[{i}]"
            dia_id = key(need(raw, "dia_id", ctx, (str, int), tw), ctx, f"{tw}.dia_id")
            one = turn(i, raw.get("speaker"), raw.get("text"), dia_id, ctx, tw,
                       raw.get("blip_caption"), raw.get("img_url"))
            if one is not None:
                turns.append(one)
        sessions.append(SessionRecord(key=f"session_{n}", index=index, started_at=started,
                                      date_text=written.strip(), turns=tuple(turns)))
    return _conversation(sample_id, sessions, "locomo", ctx, "conversation", "dia_id")


def _parse_longmemeval(record: Any, ctx: Where) -> ConversationRecord:
    qid = key(need(record, "question_id", ctx, (str, int)), ctx, "question_id")
    ids = need(record, "haystack_session_ids", ctx, list)
    dates = need(record, "haystack_dates", ctx, list)
    bodies = need(record, "haystack_sessions", ctx, list)
    if not len(ids) == len(dates) == len(bodies):
        raise ctx.error("session ids, dates and sessions differ in length", "haystack_sessions")
    keys = [key(sid, ctx, f"haystack_session_ids[{i}]") for i, sid in enumerate(ids)]
    unique(keys, ctx, "haystack_session_ids", "session")  # "sa" and "sa " are one id
    sessions = []
    for index, (skey, written, body) in enumerate(zip(keys, dates, bodies, strict=True)):
        if not isinstance(body, list):
            raise ctx.error("expected a list of turns", f"haystack_sessions[{index}]")
        started = _parse_date(written, _LONGMEMEVAL_DATES, ctx, f"haystack_dates[{index}]")
        turns = []
        for i, raw in enumerate(body):
            tw = f"haystack_sessions[{index}][{i}]"
            if not isinstance(raw, dict):
                raise ctx.error("expected an object", tw)
            one = turn(i, raw.get("role"), raw.get("content"), f"{skey}#{i}", ctx, tw)
            if one is not None:
                turns.append(one)
        sessions.append(SessionRecord(key=skey, index=index, started_at=started,
                                      date_text=written.strip(), turns=tuple(turns)))
    return _conversation(qid, sessions, "longmemeval", ctx, "haystack_session_ids",
                         "haystack_sessions")


def _parse_json(record: Any, ctx: Where) -> ConversationRecord:
    conv_key = key(need(record, "id", ctx, (str, int)), ctx, "id")
    raw_sessions = need(record, "sessions", ctx, list)
    sessions = []
    for index, raw in enumerate(raw_sessions):
        where = f"sessions[{index}]"
        if not isinstance(raw, dict):
            raise ctx.error("expected an object", where)
        skey = key(raw.get("id", f"session_{index + 1}"), ctx, f"{where}.id")
        started_text = raw.get("started_at")
        started = None if started_text is None else parse_iso(started_text, ctx,
                                                               f"{where}.started_at")
        raw_turns = need(raw, "turns", ctx, list, where)
        turns = []
        for i, t in enumerate(raw_turns):
            tw = f"{where}.turns[{i}]"
            if not isinstance(t, dict):
                raise ctx.error("expected an object", tw)
            tid = key(t.get("id", f"{skey}:{i + 1}"), ctx, f"{tw}.id")
            one = turn(i, t.get("speaker"), t.get("text"), tid, ctx, tw, t.get("image_caption"))
            if one is not None:
                turns.append(one)
        sessions.append(SessionRecord(key=skey, index=index, started_at=started,
                                      date_text=started_text and started_text.strip(),
                                      turns=tuple(turns)))
    return _conversation(conv_key, sessions, "json", ctx, "sessions[].id", "sessions[].turns[].id")


_PARSERS: dict[str, Callable[[Any, Where], ConversationRecord]] = {
    "locomo": _parse_locomo,
    "longmemeval": _parse_longmemeval,
    "json": _parse_json,
}
