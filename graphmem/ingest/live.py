"""Live messages: an agent stores each message as it arrives, without re-ingesting.

A message joins its conversation's open session: the last session, while its last message is
less than ``GRAPHMEM_LIVE_SESSION_GAP_MINUTES`` old; otherwise a new session opens. The same
holds inside one call: messages said a gap apart land in sessions of their own. Its turn is
written and embedded at once (searchable when the call returns). The derived layers are
rewritten only where the new turns change them: a layer whose output for a session depends on
that session alone (``Layer.scope == "session"``: EDUs, events, segments) over the sessions
that received messages; a layer that reads the whole conversation (scenes, episodes) over the
conversation. :mod:`graphmem.ingest.live_writer` says when. Once they have caught up, the graph
equals the one a single ingest of the same turns writes (``tests/integration/test_live.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict

from graphmem.errors import InputError
from graphmem.ids import conversation_id, forgotten_digests, session_id, turn_id
from graphmem.ingest.inputs.fields import Where, key, kind, payload, payload_json, turn
from graphmem.ingest.layer import Job
from graphmem.ingest.layers import layer_names
from graphmem.markers import strip_marked
from graphmem.models import (
    ConversationRecord,
    SessionRecord,
    TurnRecord,
    stored_turn,
)
from graphmem.store import GraphStore, Tx
from graphmem.text import naive_utc, native_datetime

# statements of the live path (besides every layer's own)
STATEMENTS = ("ingest/live_session", "ingest/stored_turns", "ingest/mark_live",
              "ingest/clear_pending", "ingest/pending_conversations",
              "ingest/claim_derivation")
FUTURE = timedelta(days=1)  # how far ahead of the clock a message's own time may be
JOINT = ":"  # a message without an id gets "<session key><JOINT><its position from 1>"
_ALIASES = {"role": "speaker", "content": "text", "name": "speaker", "timestamp": "at",
            "time": "at", "message_id": "id"}


class Message(BaseModel):
    """One message as an agent hands it over. Dicts are accepted too, with OpenAI-style
    ``role`` / ``content`` as synonyms of ``speaker`` / ``text``."""

    model_config = ConfigDict(frozen=True)

    speaker: str
    text: str
    id: str | None = None  # when given, adding the same message again changes nothing
    at: datetime | None = None  # when it was said; None: now
    image_caption: str | None = None
    # the caller's own record of the message (any JSON value, e.g. a framework's item): kept
    # with its turn as given, returned with it, never searched or derived from; a correction
    # drops it, since it would still say what the message said before
    payload: Any = None




@dataclass(frozen=True)
class LivePlan:
    """The open session's record with the new turns appended (and any sessions the messages
    open after it), and what to write after."""

    record: ConversationRecord  # the conversation as far as the session-scoped layers go
    session: SessionRecord  # the session open after this call (the last of ``record``'s)
    added: list[str]
    known: list[str]
    new_session: bool
    closed_session: bool  # a session was open before this call and is closed by it
    last_message_at: datetime
    pending: list[str]  # already waiting before this call
    read: dict[str, Any] = field(default_factory=dict)  # what the plan was made from: the
    seen: dict[str, Any] = field(default_factory=dict)  # statement's params and its row
    notes: tuple[str, ...] = ()  # what the caller may not expect (a backdated message)
    forgotten: list[str] = field(default_factory=list)  # ids forgotten before: refused
    ended: dict[str, datetime] = field(default_factory=dict)  # sessions before ``session``
    # that this call wrote and closed, with the time of their last message


class Superseded(Exception):
    """What a write was computed from changed before its transaction held the space's lock
    (another writer, in any process, committed first): the write is abandoned and made again
    from what is stored now."""


def unchanged(tx: Tx, live: LivePlan) -> None:
    """Inside the write transaction, once the lock is held: the conversation still reads as
    when ``live`` was planned, so the positions and ids it gives the new turns are free."""
    if tx.run("ingest/live_session", **live.read) != [live.seen]:
        raise Superseded(f"conversation {live.record.key!r} changed while its messages were "
                         "being prepared")


@dataclass
class Parsed:
    """Messages checked, with the recalled context taken out of them."""

    messages: list[Message]
    stripped: int = 0  # marked blocks of recalled context removed
    emptied: int = 0  # messages that held nothing else, not stored


def parse_messages(messages: Sequence[Message | Mapping[str, Any]], max_chars: int,
                   now: datetime) -> Parsed:
    """Messages checked by the same rules as a file's turns (errors name ``messages[i]``),
    with the marked blocks of recalled context removed (:mod:`graphmem.markers`): a message
    that held nothing else is dropped."""
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise InputError(f"expected a list of messages, got {kind(messages)}",
                         field="messages")
    if not messages:
        raise InputError("no messages to add", field="messages")
    given = [_fields(raw, f"messages[{i}]") for i, raw in enumerate(messages)]
    texts = [f.get("text") for f in given]
    done = strip_marked([t if isinstance(t, str) else "" for t in texts])
    for i in done.touched:
        given[i]["text"] = done.texts[i]
    ctx = Where(None, None, max_chars, "error", [])
    out = Parsed([], stripped=done.blocks)
    seen: set[str] = set()
    for i, fields in enumerate(given):
        where = f"messages[{i}]"
        if i in done.emptied and fields.get("image_caption") is None:
            out.emptied += 1
            continue
        checked = turn(0, fields.get("speaker"), fields.get("text"), "-", ctx, where,
                       fields.get("image_caption"))
        assert checked is not None  # empty turns raise: bad_turns="error"
        ident = None if fields.get("id") is None else key(fields["id"], ctx, f"{where}.id")
        if ident is not None and ident in seen:
            raise InputError(f"message id {ident!r} appears twice", field=f"{where}.id")
        seen.update([ident] if ident else [])
        at = fields.get("at")
        if isinstance(at, str):
            try:
                at = datetime.fromisoformat(at)
            except ValueError as exc:
                raise InputError(f"unparsable time {at!r} (expected ISO 8601)",
                                 field=f"{where}.at") from exc
        if at is not None and not isinstance(at, datetime):
            raise InputError(f"expected an ISO 8601 time, got {kind(at)}", field=f"{where}.at")
        if at is not None and naive_utc(at) > now + FUTURE:
            raise InputError(f"the time {at.isoformat()} is more than a day ahead of now: a "
                             "message that late would hold its session open for every later "
                             "one", field=f"{where}.at")
        kept = payload(fields.get("payload"), f"{where}.payload", max_chars)
        out.messages.append(Message(speaker=checked.speaker, text=checked.text, id=ident,
                                    at=naive_utc(at) if at is not None else now,
                                    image_caption=checked.image_caption, payload=kept))
    return out


def _fields(raw: Any, where: str) -> dict[str, Any]:
    """A message's fields by their canonical names."""
    if isinstance(raw, Message):
        return raw.model_dump()
    if not isinstance(raw, Mapping):
        raise InputError(f"expected a message object, got {kind(raw)}", field=where)
    fields: dict[str, Any] = {}
    for name, value in raw.items():
        canonical = str(_ALIASES.get(name, name))
        if canonical in fields:
            given = sorted(k for k in raw if _ALIASES.get(k, k) == canonical)
            raise InputError(f"{' and '.join(given)} both give the message's "
                             f"{canonical}; give one", field=where)
        fields[canonical] = value
    return fields


def plan(store: GraphStore, space: str, conversation: str, messages: list[Message],
         session: str | None, gap: timedelta, whole: bool = True) -> LivePlan:
    """Read where the messages go and build the open session's record with them appended.
    Without ``whole`` the record holds only the new turns (numbered after the stored ones):
    enough for the turns layer, which then writes and embeds those alone, so an add costs
    the same in a session of ten turns and of a thousand; layers that re-read the session
    need it ``whole``."""
    cid = conversation_id(space, conversation)
    given = [m.id for m in messages if m.id is not None]
    ids = {g: turn_id(space, conversation, g) for g in given}
    key = store.settings.forget_secret
    read = {"space": space, "conversation_id": cid, "session": session,
            "turn_ids": list(ids.values()),
            "digests": [forgotten_digests(i, key) for i in ids.values()], "whole": whole}
    [row] = store.read("ingest/live_session", **read)
    stored, refused = set(row["stored_turn_ids"]), set(row["forgotten_turn_ids"])
    known = [g for g in given if ids[g] in stored]
    forgotten = [g for g in given if ids[g] in refused and ids[g] not in stored]
    fresh = [m for m in messages if m.id is None or ids[m.id] not in stored | refused]
    current = row["session"]
    first_at = fresh[0].at if fresh else messages[0].at
    assert first_at is not None
    open_now = current is not None and (session is not None or _is_open(current, first_at, gap))
    runs = (_runs(fresh, gap, _last_time(current) if open_now else None) if session is None
            else [fresh])
    stored_turns: list[dict[str, Any]] = (sorted(current["turns"], key=lambda t: t["order"])
                                          if open_now else [])
    if open_now:
        base = SessionRecord(key=current["key"], index=current["index"],
                             started_at=native_datetime(current["started_at"]),
                             date_text=current["date_text"],
                             turns=tuple(stored_turn(t) for t in stored_turns) if whole else ())
    else:
        base = SessionRecord(key=session or f"session_{row['last_index'] + 2}",
                             index=row["last_index"] + 1, started_at=first_at, turns=())
    # ids a message without one may not get: the session's stored ones when they were read
    # (else ingest/stored_turns finds them below) and every id given in this call
    taken = {t["source_id"] for t in stored_turns} | set(given)
    for _ in range(100):  # each round takes at least one more id out of the way
        chosen = [_appended(base, runs[0], current["last_order"] + 1 if open_now else 0,
                            taken)]
        for run in runs[1:]:  # a gap inside the messages themselves opens a session of its own
            index = chosen[-1].index + 1
            chosen.append(_appended(SessionRecord(key=f"session_{index + 1}", index=index,
                                                  started_at=run[0].at, turns=()), run, 0,
                                    taken))
        # an id made for a message without one may be another session's message's own id
        made = {turn_id(space, conversation, t.source_id): t.source_id
                for c in chosen for t in c.turns[len(base.turns) if c is chosen[0] else 0:]
                if t.source_id not in ids}
        [clash] = store.read("ingest/stored_turns", ids=list(made)) if made else [
            {"stored": []}]
        if not clash["stored"]:
            break
        taken |= {made[i] for i in clash["stored"]}
    else:
        raise InputError(f"no free id for the messages without one in conversation "
                         f"{conversation!r}: give each message its own id", field="messages")
    notes = _backdated(runs[0], base, gap) if open_now and session is None else ()
    if len(runs) > 1:
        notes = (*notes, f"the messages span {len(runs)} sessions (a gap of more than "
                 f"{gap.total_seconds() / 60:g} minutes between two of them opens a new one): "
                 + ", ".join(repr(c.key) for c in chosen))
    record = ConversationRecord(key=conversation, sessions=tuple(chosen), source_format="live",
                                source_file="(messages)")
    added = [t.source_id for c in chosen for t in c.turns][len(base.turns):]  # after the base's own
    previous = native_datetime(current["last_message_at"]) if open_now and current else None
    last = [max((m.at for m in run if m.at is not None), default=first_at) for run in runs]
    last[0] = max(last[0], previous) if previous else last[0]
    return LivePlan(record, chosen[-1], added, known,
                    new_session=not open_now or len(runs) > 1,
                    closed_session=current is not None and (not open_now or len(runs) > 1),
                    last_message_at=last[-1],
                    pending=list(row["pending"]), read=read, seen=row, notes=notes,
                    forgotten=forgotten,
                    ended={c.key: at for c, at in zip(chosen[:-1], last[:-1], strict=True)})


def _runs(fresh: list[Message], gap: timedelta, latest: datetime | None) -> list[list[Message]]:
    """The messages in the order given, cut wherever one was said more than ``gap`` after
    the latest before it (the open session's last message, ``latest``, counts as one; a
    message dated earlier never cuts). One run when there is no such gap."""
    runs: list[list[Message]] = [[]]
    for m in fresh:
        if m.at is None:
            runs[-1].append(m)
            continue
        if latest is not None and m.at - latest > gap and runs[-1]:
            runs.append([])
        runs[-1].append(m)
        latest = m.at if latest is None else max(latest, m.at)
    return runs


def _appended(session: SessionRecord, run: list[Message], start: int,
              stored: set[str]) -> SessionRecord:
    """``session`` with ``run``'s messages as its next turns, numbered from ``start`` (a
    message without an id gets ``<session key>:<position>``, made unique among the session's
    ``stored`` source ids and the new ones)."""
    taken = set(stored)
    turns = list(session.turns)
    for n, message in enumerate(run):
        source = message.id or _free_id(f"{session.key}{JOINT}{start + n + 1}", taken)
        taken.add(source)
        turns.append(TurnRecord(order=start + n, speaker=message.speaker, text=message.text,
                                said_at=message.at, source_id=source,
                                image_caption=message.image_caption,
                                payload=None if message.payload is None
                                else payload_json(message.payload)))
    return session.model_copy(update={"turns": tuple(turns)})


def _last_time(session: dict[str, Any]) -> datetime | None:
    """When a stored session's last message was said (else when it began; None: undated)."""
    return native_datetime(session["last_message_at"]) or native_datetime(session["started_at"])


def _is_open(session: dict[str, Any], at: datetime, gap: timedelta) -> bool:
    """A session is open while its last message (or its start) is recent; an undated one is
    closed (it came from a file)."""
    last = _last_time(session)
    return last is not None and at - last <= gap


def _backdated(fresh: list[Message], open_session: SessionRecord,
               gap: timedelta) -> tuple[str, ...]:
    """Messages dated more than the session gap before the open session began: they join it
    (their own time is kept on the turn), and the caller is told, since a later session then
    holds an earlier message (``session=`` places a message in a session of the caller's
    choice)."""
    began = open_session.started_at
    if began is None:
        return ()
    return tuple(f"message {m.id or '#' + str(n)} is dated {m.at:%Y-%m-%d %H:%M}, before the "
                 f"open session {open_session.key!r} began ({began:%Y-%m-%d %H:%M}): it joined "
                 "that session, its own time kept; name a session to place it elsewhere"
                 for n, m in enumerate(fresh) if m.at is not None and began - m.at > gap)


def _free_id(wanted: str, taken: set[str]) -> str:
    candidate, n = wanted, 1
    while candidate in taken:
        n += 1
        candidate = f"{wanted}.{n}"
    return candidate


def mark(tx: Tx, job: Job, live: LivePlan, pending: list[str], sessions: list[str]) -> None:
    """Inside the write transaction: the session's last message time, and the work left for
    a refresh (``pending`` layers; ``sessions`` whose session-scoped layers wait). The session
    counts as holding the pending layers, so strategies that need them keep working; the
    conversation's ``pending_layers`` says they lag behind."""
    tx.run("ingest/mark_layers", space=job.space, session_ids=job.session_ids, layers=pending,
           known=layer_names())
    for name, last in [*live.ended.items(), (live.session.key, live.last_message_at)]:
        tx.run("ingest/mark_live", space=job.space, conversation_id=job.conversation_id,
               session_id=session_id(job.space, job.conversation.key, name),
               last_message_at=last, pending=pending, sessions=sessions)
