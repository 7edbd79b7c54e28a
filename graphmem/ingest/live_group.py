"""Live adds to one conversation that queue up are written together (a group commit).

The adds of one conversation in a process take turns (:class:`~graphmem.ingest.live_writer.
LiveWriter`): under load, several wait while one writes. Each add leaves a :class:`Ticket`
in its conversation's queue before it waits; the add that gets the turn takes every ticket
that can share its transaction and writes them all at once, so the others find their report
ready when their turn comes instead of planning and writing again one by one.

Tickets go together only when nothing about one can change what another gets: every message
carries its own id (so each add's report is its ids' share of the group's), the same session
was asked for and the same layers, and no id is in two of them. A group whose plan does
anything but append to the open session (a new session, a closed one, a backdated message, a
forgotten id refused, a note) is not written: each of its adds is then written alone, as it
would have been, and so is each after any failure of the group, so every add gets the answer,
or the error, of its own messages.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from graphmem.models import LiveReport

if TYPE_CHECKING:
    from graphmem.ingest.live import LivePlan, Message


@dataclass(eq=False)
class Ticket:
    """One add waiting for its conversation's turn, and what became of it."""

    messages: list[Message]
    session: str | None
    now: tuple[str, ...]
    later: tuple[str, ...]
    # set by whoever wrote it: the report, the pending layers read before, whether it added
    report: LiveReport | None = None
    pending: list[str] = field(default_factory=list)
    added: bool = False
    closed: bool = False  # it closed the session open before it (written alone)
    error: BaseException | None = None

    @property
    def done(self) -> bool:
        return self.report is not None or self.error is not None

    def joins(self, other: Ticket) -> bool:
        return (self.session, self.now, self.later) == (other.session, other.now, other.later)

    @property
    def ids(self) -> set[str]:
        return {m.id for m in self.messages if m.id is not None}


def groupable(messages: list[Message]) -> bool:
    """Whether an add may share a transaction with others: every message names its id."""
    return all(m.id is not None for m in messages)


class Queues:
    """The tickets waiting, by (space, conversation)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._waiting: dict[tuple[str, str], list[Ticket]] = {}

    def put(self, key: tuple[str, str], ticket: Ticket) -> None:
        with self._lock:
            self._waiting.setdefault(key, []).append(ticket)

    def take(self, key: tuple[str, str], ticket: Ticket) -> list[Ticket]:
        """``ticket`` and every waiting ticket that can share its transaction (first come
        first), out of the queue; the others stay for their own turn."""
        with self._lock:
            waiting = self._waiting.get(key, [])
            group, seen = [ticket], set(ticket.ids)
            for other in waiting:
                if other is ticket or other.done or not other.joins(ticket) \
                        or other.ids & seen:
                    continue
                group.append(other)
                seen |= other.ids
            rest = [t for t in waiting if t not in group]
            if rest:
                self._waiting[key] = rest
            else:
                self._waiting.pop(key, None)
            return group


def appends_only(live: LivePlan) -> bool:
    """The group's plan only appends its messages to the open session."""
    return not (live.new_session or live.closed_session or live.notes or live.forgotten)


def share(report: LiveReport, live: LivePlan, ticket: Ticket) -> None:
    """``ticket``'s part of a group's ``report``: its own ids, added or known."""
    mine = ticket.ids
    ticket.report = LiveReport(
        report.space, report.conversation, report.session,
        added=[i for i in live.added if i in mine], known=[i for i in live.known if i in mine],
        layers=dict(report.layers), write_seconds=report.write_seconds)
    ticket.pending, ticket.added = list(live.pending), bool(ticket.report.added)
