"""The rules every input field obeys, shared by the file parsers and by records handed to
``Memory.ingest`` directly. Each rule raises an :class:`InputError` naming the file, the
record and the field. The limits are listed in ``docs/formats.md``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from graphmem.errors import InputError
from graphmem.markers import strip_marked, strip_value
from graphmem.models import ConversationRecord, IngestReport, SessionRecord, TurnRecord

MAX_ID_CHARS = 200  # conversation, session and turn ids
MAX_NAME_CHARS = 200  # speaker names
MAX_DATE_CHARS = 100  # a date as written
SHOWN_CHARS = 60  # of a bad value, in an error message

BadTurnPolicy = Literal["error", "skip"]


@dataclass
class Where:
    """Where we are, so that every error can say it; plus the limits to enforce."""

    file: str | None  # None: not read from a file (an operation's arguments, live messages)
    record: str | None
    max_turn_chars: int
    bad_turns: BadTurnPolicy
    warnings: list[str]

    def error(self, message: str, field: str | None = None) -> InputError:
        return InputError(message, file=self.file, record=self.record, field=field)


def shown(value: str) -> str:
    """A value as an error message quotes it: its beginning only."""
    return repr(value if len(value) <= SHOWN_CHARS else value[:SHOWN_CHARS] + "...")


def kind(value: Any) -> str:
    return {dict: "object", list: "list", str: "string", bool: "boolean", int: "integer",
            float: "number", type(None): "null"}.get(type(value), type(value).__name__)


def need(obj: Any, key: str, ctx: Where, want: type | tuple[type, ...] = str,
         where: str | None = None) -> Any:
    """``obj[key]``, which must exist and be of type ``want``; ``where`` prefixes the field."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise ctx.error(f"expected an object, got {kind(obj)}", where or key)
    if key not in obj or obj[key] is None:
        raise ctx.error("missing field", name)
    value = obj[key]
    if not isinstance(value, want) or isinstance(value, bool):
        wanted = want if isinstance(want, tuple) else (want,)
        names = " or ".join(kind(w()) for w in wanted)
        raise ctx.error(f"expected {names}, got {kind(value)}", name)
    return value


def text_value(value: Any, ctx: Where, where: str, limit: int, what: str = "text") -> str:
    """A string of at most ``limit`` characters that is valid Unicode."""
    if not isinstance(value, str):
        raise ctx.error(f"expected string, got {kind(value)}", where)
    if len(value) > limit:
        raise ctx.error(f"{what} of {len(value)} characters exceeds the limit of {limit}", where)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ctx.error(f"not valid Unicode: an unpaired surrogate "
                        f"\\u{ord(value[exc.start]):04x} at character {exc.start}", where) from exc
    return value


def printable(value: str, ctx: Where, where: str, limit: int, what: str) -> str:
    """A non-empty single-line string of at most ``limit`` characters, stripped."""
    value = text_value(value, ctx, where, limit, what).strip()
    if not value:
        raise ctx.error(f"empty {what}", where)
    if any(ord(ch) < 32 for ch in value):
        raise ctx.error(f"{what} {shown(value)} holds a control character", where)
    return value


def key(value: Any, ctx: Where, where: str) -> str:
    """An id: a string or an integer, 1-200 printable characters once stripped."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ctx.error(f"an id is a string or an integer, got {kind(value)}", where)
    return printable(value, ctx, where, MAX_ID_CHARS, "id")


def id_field(value: Any, field: str) -> str:
    """An id handed to an operation (a conversation, a message, a unit): the rules of
    :func:`key`, its errors naming ``field`` alone."""
    return key(value, Where(None, None, 0, "error", []), field)


MAX_NODE_ID_CHARS = 4000  # a stored node's id joins the space's, conversation's... own ids


def node_id(value: Any, field: str) -> str:
    """The id of a stored node (a turn id, as hits give them): a non-empty string that is
    valid Unicode, its errors naming ``field``."""
    text = given_text(value, field, MAX_NODE_ID_CHARS, "id").strip()
    if not text:
        raise InputError("empty id", field=field)
    return text


def given_text(value: Any, field: str, limit: int, what: str = "text") -> str:
    """A text handed to an operation: a string of at most ``limit`` characters that is valid
    Unicode, its errors naming ``field`` alone."""
    return text_value(value, Where(None, None, limit, "error", []), field, limit, what)


def date_text(value: Any, ctx: Where, where: str) -> str:
    return printable(value, ctx, where, MAX_DATE_CHARS, "date")


def turn(order: int, speaker: Any, text: Any, source_id: str, ctx: Where, where: str,
         caption: Any = None, url: Any = None) -> TurnRecord | None:
    """One turn, or None when it is empty and empty turns are skipped."""
    if speaker is None:
        raise ctx.error("missing field", f"{where}.speaker")
    speaker = printable(speaker, ctx, f"{where}.speaker", MAX_NAME_CHARS, "speaker name")
    if text is None:
        raise ctx.error("missing field", f"{where}.text")
    text = text_value(text, ctx, f"{where}.text", ctx.max_turn_chars, "turn").strip()
    if caption is not None:
        caption = text_value(caption, ctx, f"{where}.image_caption", ctx.max_turn_chars,
                             "image caption").strip() or None
    if isinstance(url, list):  # LoCoMo gives a list of addresses
        url = url[0] if url else None
    if url is not None:
        url = text_value(url, ctx, f"{where}.img_url", ctx.max_turn_chars,
                         "image address").strip()
    if not text and caption is None:
        if ctx.bad_turns == "skip":
            ctx.warnings.append(f"{ctx.file} record {ctx.record}: skipped empty turn {where}")
            return None
        raise ctx.error("empty turn", f"{where}.text")
    return TurnRecord(order=order, speaker=speaker, text=text, source_id=source_id,
                      image_caption=caption, image_url=url or None)


def unique(keys: list[str], ctx: Where, where: str, what: str) -> None:
    """Ids, as stored (stripped), must differ: two that do not would merge silently."""
    seen: set[str] = set()
    for value in keys:
        if value in seen:
            raise ctx.error(f"duplicate {what} id {shown(value)}", where)
        seen.add(value)


def check_record(record: ConversationRecord, ctx: Where) -> ConversationRecord:
    """Apply the file rules to a record built in code; returns it normalised (stripped)."""
    if not isinstance(record, ConversationRecord):
        raise ctx.error(f"expected a ConversationRecord, got {type(record).__name__}")
    sessions = []
    for i, session in enumerate(record.sessions):
        where = f"sessions[{i}]"
        turns = [t for j, raw in enumerate(session.turns) if (t := turn(
            raw.order, raw.speaker, raw.text,
            key(raw.source_id, ctx, f"{where}.turns[{j}].source_id"), ctx,
            f"{where}.turns[{j}]", raw.image_caption, raw.image_url)) is not None]
        sessions.append(session.model_copy(update={
            "key": key(session.key, ctx, f"{where}.key"), "turns": tuple(turns),
            "date_text": None if session.date_text is None
            else date_text(session.date_text, ctx, f"{where}.date_text")}))
    checked = record.model_copy(update={"key": key(record.key, ctx, "key"),
                                        "sessions": tuple(sessions)})
    check_conversation(checked, ctx, "sessions[].key", "sessions[].turns[].source_id")
    return checked


def check_conversation(record: ConversationRecord, ctx: Where, session_field: str,
                       turn_field: str) -> None:
    """What holds for a whole conversation: distinct session ids, distinct turn ids, and at
    least one turn."""
    unique([s.key for s in record.sessions], ctx, session_field, "session")
    unique([t.source_id for s in record.sessions for t in s.turns], ctx, turn_field, "turn")
    if record.n_turns == 0:
        raise ctx.error("the conversation holds no turns", session_field.split("[")[0])


def strip_recalled(records: Sequence[ConversationRecord],
                   report: IngestReport) -> list[ConversationRecord]:
    """Records without graphmem's marked blocks of recalled context (:mod:`graphmem.markers`),
    read turn after turn within each session, so a block split over turns goes too. A turn
    that held nothing else is not stored, nor a session or conversation left with no turns;
    ``report`` counts what was taken out."""
    out: list[ConversationRecord] = []
    for record in records:
        sessions: list[SessionRecord] = []
        for session in record.sessions:
            done = strip_marked([t.text for t in session.turns])
            report.stripped += done.blocks
            if not done.touched:
                sessions.append(session)
                continue
            turns: list[TurnRecord] = []
            for i, t in enumerate(session.turns):
                if i in done.emptied and t.image_caption is None:
                    report.emptied += 1
                    continue
                turns.append(t.model_copy(update={"order": len(turns), "text": done.texts[i]}))
            if turns:
                sessions.append(session.model_copy(update={"turns": tuple(turns)}))
        if sessions:
            out.append(record if len(sessions) == len(record.sessions) and all(
                a is b for a, b in zip(sessions, record.sessions, strict=True))
                else record.model_copy(update={"sessions": tuple(sessions)}))
        else:
            report.warnings.append(f"conversation {record.key!r} held only recalled context "
                                   "(marked <graphmem-context>): not stored")
    return out


PAYLOAD_TIMES = 4  # a payload's JSON text may hold this many turns' characters


def payload(value: Any, where: str, max_turn_chars: int) -> Any:
    """A message's payload (any JSON value the caller keeps with it) checked, with the marked
    blocks of recalled context removed from its strings; None for none."""
    if value is None:
        return None
    value, _ = strip_value(value)
    try:
        text = payload_json(value)
    except (TypeError, ValueError) as exc:
        raise InputError(f"the payload is not JSON ({exc})", field=where) from exc
    most = PAYLOAD_TIMES * max_turn_chars
    if len(text) > most:
        raise InputError(f"the payload's JSON text has {len(text):,} characters, more than "
                         f"{most:,} ({PAYLOAD_TIMES} times GRAPHMEM_MAX_TURN_CHARS)", field=where)
    return value


def payload_json(value: Any) -> str:
    """A payload's JSON text as stored (a lone surrogate kept as its escape)."""
    text = json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":"))
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        text = json.dumps(value, allow_nan=False, separators=(",", ":"))
    return text
