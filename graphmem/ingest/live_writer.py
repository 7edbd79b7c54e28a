"""Writing live messages, and deriving the layers they leave pending.

``GRAPHMEM_LIVE_DERIVE`` says when the derived layers catch up with new turns:

- ``background`` (default): a call writes the turns (embedded: searchable at once) and returns;
  a worker thread derives every other layer a moment later (``GRAPHMEM_LIVE_DELAY_SECONDS``
  after the last message, so a burst is derived once; a conversation that never pauses that
  long, at most ``GRAPHMEM_LIVE_MAX_WAIT_SECONDS`` after its oldest waiting message): the
  session-scoped layers over the sessions that received messages, the whole-conversation
  layers over the conversation.
- ``inline``: the session-scoped layers are rewritten in the call; the whole-conversation
  layers catch up, in the call, when a session closes.
- ``manual``: only :meth:`LiveWriter.refresh` derives.

Pending work is recorded on the conversation (layers, sessions, and a version that each add
raises), so it survives a crash and a refresh started before a later message never clears
that message's work. Such a refresh still writes what it derived (``ingest/claim_derivation``):
its layers describe the conversation as it was a moment before, the new message's work stays
pending, and a busy conversation's layers follow its messages round by round instead of
never catching up. A refresh writes nothing when a forget or a correction came after its read
(what it derived may quote what was erased), or when a refresh that read a later state has
written already.
"""

from __future__ import annotations

import logging
import random
import threading
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.config import Settings
from graphmem.ids import check_space, conversation_id, turn_id
from graphmem.ingest.inputs.fields import Where
from graphmem.ingest.inputs.fields import key as field_key
from graphmem.ingest.layer import Job, LayerContext
from graphmem.ingest.layers import LAYERS, parse_names, run_order
from graphmem.ingest.live import (
    LivePlan,
    Message,
    Superseded,
    mark,
    parse_messages,
    plan,
    unchanged,
)
from graphmem.ingest.live_group import Queues, Ticket, appends_only, groupable, share
from graphmem.ingest.live_worker import LiveWorker
from graphmem.ingest.stored import stored_conversations
from graphmem.ingest.writer import GraphWriter
from graphmem.models import LiveReport
from graphmem.store import GraphStore, Tx

log = logging.getLogger("graphmem.live")
ATTEMPTS = 50  # a write planned again after other writers committed first, at most


class LiveWriter:
    """The live write path of one :class:`~graphmem.client.Memory`."""

    def __init__(self, store: GraphStore, settings: Settings,
                 context: Callable[[], LayerContext]) -> None:
        self.store, self.settings, self._context = store, settings, context
        self._worker: LiveWorker | None = None
        self._lock = threading.Lock()
        # one conversation's write transactions, from the calls and the worker, take turns:
        # interleaved they deadlock in Neo4j (retried, but a second later)
        self._writing: dict[tuple[str, str], threading.Lock] = {}
        self._queues = Queues()

    def writing(self, space: str, conversation: str) -> threading.Lock:
        with self._lock:
            return self._writing.setdefault((space, conversation), threading.Lock())

    def add(self, space: str, conversation: str,
            messages: Sequence[Message | Mapping[str, Any]], session: str | None,
            layers: str | Sequence[str] | None) -> LiveReport:
        began = time.perf_counter()
        check_space(space)
        where = Where(None, None, self.settings.max_turn_chars, "error", [])
        conversation = field_key(conversation, where, "conversation")
        session = None if session is None else field_key(session, where, "session")
        parsed = parse_messages(messages, self.settings.max_turn_chars,
                                datetime.now(UTC).replace(tzinfo=None))
        if not parsed.messages:
            return LiveReport(space, conversation, session or "", stripped=parsed.stripped,
                              emptied=parsed.emptied, seconds=time.perf_counter() - began,
                              notes=["every message held only recalled context (marked "
                                     "<graphmem-context>): nothing was stored"])
        order = run_order(["turns", *parse_names(self.settings.ingest_layers if layers is None
                                                 else layers)])
        mode = self.settings.live_derive
        now = [n for n in order if n == "turns" or (mode == "inline"
                                                     and LAYERS[n].scope == "session")]
        later = [n for n in order if n not in now]
        # Writers of one conversation in this client take turns, and those that queue up are
        # written together (live_group); writers in other clients or processes are
        # serialised by the database: the write transaction takes the space's lock, then
        # checks that the conversation still reads as planned, and when another writer
        # committed first the messages are planned again from what is stored now.
        ticket = Ticket(parsed.messages, session, tuple(now), tuple(later))
        where_to = (space, conversation)
        grouped = mode == "background" and groupable(parsed.messages)
        if grouped:
            self._queues.put(where_to, ticket)
        with self.writing(space, conversation):
            if not ticket.done:
                group = self._queues.take(where_to, ticket) if grouped else [ticket]
                self._place(space, conversation, group)
        if ticket.error is not None:
            raise ticket.error
        assert ticket.report is not None
        report = ticket.report
        pending = (list(dict.fromkeys([*ticket.pending, *later])) if ticket.added
                   else ticket.pending)
        if mode == "background" and pending:
            self.worker().submit(space, conversation)
        elif mode == "inline" and ticket.closed and pending:
            report.refreshed = self.refresh(space, conversation).get(conversation, [])
        report.pending = [n for n in pending if n not in report.refreshed]
        report.stripped, report.emptied = parsed.stripped, parsed.emptied
        report.seconds = time.perf_counter() - began
        return report

    def _place(self, space: str, conversation: str, group: list[Ticket]) -> None:
        """Write the tickets' messages: a group in one transaction when its plan only appends
        to the open session, else (or after any failure of it) each ticket alone."""
        if len(group) > 1:
            try:
                found = self._planned(space, conversation, group[0],
                                      [m for t in group for m in t.messages], appends_only)
            except Exception:  # each add is written alone below, and gets its own answer
                log.debug("a group of %d adds to %r is written add by add", len(group),
                          conversation, exc_info=True)
                found = None
            if found is not None:
                live, report = found
                for ticket in group:
                    share(report, live, ticket)
                return
        for ticket in group:
            try:
                found = self._planned(space, conversation, ticket, ticket.messages)
                assert found is not None
                live, ticket.report = found
                ticket.pending, ticket.added = list(live.pending), bool(live.added)
                ticket.closed = live.closed_session
            except Exception as exc:
                ticket.error = exc

    def _planned(self, space: str, conversation: str, ticket: Ticket, messages: list[Message],
                 only: Callable[[LivePlan], bool] | None = None,
                 ) -> tuple[LivePlan, LiveReport] | None:
        """Plan ``messages`` and write them (planned again while another writer commits
        first); None, with nothing written, when the plan is not one ``only`` allows."""
        gap = timedelta(minutes=self.settings.live_session_gap_minutes)
        now, later = list(ticket.now), list(ticket.later)
        for attempt in range(ATTEMPTS):
            live = plan(self.store, space, conversation, messages, ticket.session, gap,
                        whole=now != ["turns"])
            if only is not None and not only(live):
                return None
            try:
                return live, self._write(live, now, later)
            except Superseded:
                if attempt == ATTEMPTS - 1:
                    raise
                time.sleep(random.uniform(0, 0.01 * (attempt + 1)))
        raise AssertionError("unreachable")  # the last attempt returns or raises

    def _write(self, live: LivePlan, now: list[str], later: list[str]) -> LiveReport:
        """Write the planned turns with the ``now`` layers and mark ``later`` pending; raises
        :class:`Superseded` when the conversation changed since it was planned."""
        space, conversation = live.read["space"], live.record.key
        report = LiveReport(space, conversation, live.session.key, live.added, live.known,
                            live.new_session, live.forgotten, notes=list(live.notes))
        if not live.added:
            return report
        waiting = ([] if self.settings.live_derive == "inline"
                   else [c.key for c in live.record.sessions])
        # turns and nothing else: readers of the space may read just these (note_appends)
        appended = ([turn_id(space, conversation, source) for source in live.added]
                    if now == ["turns"] else None)

        def finish(tx: Tx, job: Job) -> None:
            mark(tx, job, live, later, waiting)
            tx.appended = appended

        try:
            done = GraphWriter(self._context(), now, "messages added").write(
                space, [live.record], check=lambda tx, _job: unchanged(tx, live),
                finish=finish)
        except Superseded:
            raise
        except Exception as exc:
            shown = ", ".join(live.added[:5]) + (", ..." if len(live.added) > 5 else "")
            exc.add_note(f"none of the {len(live.added)} new messages ({shown}) of "
                         f"conversation {conversation!r} was stored; adding them again "
                         "stores them (by id, once)")
            raise
        report.layers = {name: t.seconds for name, t in done.layers.items()}
        report.write_seconds = done.write_seconds
        return report

    def worker(self) -> LiveWorker:
        with self._lock:
            if self._worker is None:
                self._worker = LiveWorker(self._refresh_once, self.settings.live_delay_seconds,
                                          self.settings.live_derive_share,
                                          self.settings.live_max_wait_seconds)
            return self._worker

    def _refresh_once(self, space: str, conversation: str) -> None:
        """The worker's refresh: a derivation that a forget, a correction or a newer
        derivation overtook is dropped rather than started again at once, because that change
        submitted the conversation anew (here, or to the worker of the process that made it).
        Messages that arrive meanwhile do not drop it (:class:`_Clear`)."""
        try:
            self.refresh(space, conversation, attempts=1)
        except Superseded as exc:
            log.debug("left for the next round: %s", exc)

    def refresh(self, space: str, conversation: str | None = None,
                attempts: int = ATTEMPTS) -> dict[str, list[str]]:
        """Derive every pending layer of one conversation (or of all in ``space``): the
        session-scoped ones over the sessions that received messages, the others over the
        whole conversation; a derivation a new message overtook starts again, up to
        ``attempts`` times. Returns the layers derived, by conversation key."""
        check_space(space)
        cid = None if conversation is None else conversation_id(space, conversation)
        done: dict[str, list[str]] = {}
        for row in self.store.read("ingest/pending_conversations", space=space,
                                   conversation_id=cid):
            key = row["conversation"]
            for attempt in range(attempts):
                try:
                    done[key] = self._derive(space, row)
                    break
                except Superseded:  # a message arrived meanwhile: derive from what is now
                    if attempt == attempts - 1:
                        raise
                    again = self.store.read("ingest/pending_conversations", space=space,
                                            conversation_id=conversation_id(space, key))
                    if not again:  # another client derived it all
                        break
                    row = again[0]
        return done

    def _derive(self, space: str, row: dict[str, Any]) -> list[str]:
        """One conversation's pending layers, from the stored turns as of ``row`` (its
        pending work and versions); each write checks, once it holds the space's lock, that
        nothing was forgotten or corrected since and that no derivation of a later state was
        written (:class:`_Clear`), so a derivation never overwrites a newer state. A failure
        while the conversation changed under it (a forget in another process) is
        :class:`Superseded` too: it starts again."""
        try:
            return self._derive_once(space, row)
        except Superseded:
            raise
        except Exception as exc:
            now = self.store.read("ingest/pending_conversations", space=space,
                                  conversation_id=conversation_id(space, row["conversation"]))
            if now and now[0]["version"] == row["version"]:
                raise
            raise Superseded(f"conversation {row['conversation']!r} changed while its layers "
                             f"were being derived ({type(exc).__name__})") from exc

    def _derive_once(self, space: str, row: dict[str, Any]) -> list[str]:
        key = row["conversation"]
        names = [n for n in run_order(row["pending"], present=["turns"]) if n != "turns"]
        [record] = stored_conversations(self.store, space, conversation_id(space, key))
        waiting = set(row["sessions"])
        per_session = [n for n in names if LAYERS[n].scope == "session"]
        whole = [n for n in names if n not in per_session]
        opened = record.model_copy(update={"sessions": tuple(
            s for s in record.sessions if s.key in waiting)})
        turn = self.writing(space, key)
        clear = _Clear(row["pending"], row["sessions"], row["version"], row["erased"],
                       row["node"])
        if per_session and opened.sessions:
            GraphWriter(self._context(), per_session, "layers derived").write(
                space, [opened], lock=turn, check=clear.check)
        GraphWriter(self._context(), whole, "layers derived").write(
            space, [record], finish=clear, lock=turn, check=clear.check)
        return names

    def flush(self, timeout: float | None = None) -> bool:
        return self._worker.flush(timeout) if self._worker is not None else True

    def backlog(self) -> int:
        """Conversations waiting for (or in) the background derivation."""
        return self._worker.backlog() if self._worker is not None else 0

    def close(self) -> None:
        if self._worker is not None:
            self._worker.close()


class _Clear:
    """The checks and the last step of a refresh. Each of its write transactions first claims
    the conversation (``ingest/claim_derivation``): messages added since the refresh read it
    do not stop the write, since the layers describe an earlier state of the conversation and
    the new messages' work stays pending; a forget or a correction since the read, or a
    derivation of a later state already written, does. The last transaction then clears the
    work done, unless a message arrived since the read (the live version moved)."""

    def __init__(self, layers: list[str], sessions: list[str], version: int,
                 erased: int, node: str) -> None:
        self.layers, self.sessions, self.version = layers, sessions, version
        self.erased, self.node = erased, node
        self.round = uuid.uuid4().hex  # this refresh's own claims pass each other

    def check(self, tx: Tx, job: Job) -> None:
        """Raise :class:`Superseded` when what this refresh derived must not be written."""
        [row] = tx.run("ingest/claim_derivation", space=job.space,
                       conversation_id=job.conversation_id, node=self.node,
                       version=self.version,
                       erased=self.erased, round=self.round)
        if row["status"] != "claimed":
            raise Superseded(f"conversation {job.conversation.key!r} was "
                             f"{WHY[row['status']]} while its layers were being derived")

    def __call__(self, tx: Tx, job: Job) -> None:
        tx.run("ingest/clear_pending", space=job.space, conversation_id=job.conversation_id,
               layers=self.layers, sessions=self.sessions, version=self.version)


WHY = {"gone": "deleted or restored", "erased": "forgotten in part or corrected",
       "overtaken": "derived again from a later state"}
