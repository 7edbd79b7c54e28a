"""The background derivation's worker thread: when a conversation's pending layers are derived.

A conversation is derived ``delay`` seconds after its last message (a burst is derived once),
or, when its messages never pause that long, ``max_wait`` seconds after the oldest one still
waiting. While messages keep arriving the worker rests between rounds, so that deriving takes
at most ``share`` of the time; once they stop (``QUIET`` seconds without one), or on a flush,
it derives without rest.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable

from graphmem.telemetry import Actor, set_actor

log = logging.getLogger("graphmem.live")
QUIET = 2.0  # seconds without a message that end the worker's rest


class LiveWorker:
    """A thread that refreshes conversations a little after their last message."""

    def __init__(self, refresh: Callable[[str, str], object], delay: float,
                 share: float = 1.0, max_wait: float | None = None) -> None:
        self._refresh = refresh
        self._delay = delay
        # a conversation that never falls silent for ``delay`` is derived anyway once its
        # oldest waiting message has waited ``max_wait`` (None: no bound)
        self._max_wait = max_wait
        self._first: dict[tuple[str, str], float] = {}  # when each waiting one was submitted
        # after deriving for T seconds while messages kept arriving, the worker rests
        # T * (1 / share - 1): under a steady stream it takes at most ``share`` of the time
        # (and of a core), and a conversation's messages that arrive meanwhile are derived
        # together; once they stop, what is left is derived without rest
        self._rest = 1.0 / share - 1.0 if share > 0 else 0.0
        self._resting_until = 0.0
        self._submitted = 0.0  # when the last message was submitted
        self._flushed = False  # a flush asked for what is due now: no rest after this round
        self._due: dict[tuple[str, str], float] = {}
        self._busy = False
        self._stopped = False
        self._cond = threading.Condition()
        self.errors: list[str] = []
        self._thread = threading.Thread(target=self._run, name="graphmem-live", daemon=True)
        self._thread.start()

    def submit(self, space: str, conversation: str) -> None:
        with self._cond:
            now = self._submitted = time.monotonic()
            key = (space, conversation)
            first = self._first.setdefault(key, now)
            due = now + self._delay
            if self._max_wait is not None:
                due = min(due, first + self._max_wait)
            self._due[key] = due
            self._cond.notify_all()

    def flush(self, timeout: float | None = None) -> bool:
        """Derive what is waiting now; True once nothing is waiting or running."""
        with self._cond:
            self._due = dict.fromkeys(self._due, 0.0)
            self._resting_until, self._flushed = 0.0, True
            self._cond.notify_all()
            return self._cond.wait_for(lambda: not self._due and not self._busy, timeout)

    def backlog(self) -> int:
        with self._cond:
            return len(self._due) + self._busy

    def close(self) -> None:
        self.flush()
        with self._cond:
            self._stopped = True
            self._cond.notify_all()
        self._thread.join(timeout=30)

    def _run(self) -> None:
        set_actor(Actor("background"))  # the history: derived by the worker, not a caller
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._due or self._stopped)
                if self._stopped:
                    return
                now = time.monotonic()
                ready = [k for k, due in self._due.items() if due <= now]
                # the rest gives way to writers still writing: once none has sent a message
                # for QUIET seconds, it ends
                resting_until = min(self._resting_until, self._submitted + QUIET)
                if not ready or now < resting_until:
                    self._cond.wait(max(min(self._due.values()), resting_until) - now)
                    continue
                for key in ready:
                    del self._due[key]
                    self._first.pop(key, None)
                self._busy, self._flushed = True, False
            began = time.monotonic()
            for space, conversation in ready:
                try:
                    self._refresh(space, conversation)
                except Exception as exc:  # kept pending in the graph: the next refresh retries
                    log.exception("deriving the layers of %s/%s failed", space, conversation)
                    self.errors.append(f"{space}/{conversation}: {exc}")
            with self._cond:
                self._busy = False
                if not self._flushed and self._submitted >= began:
                    now = time.monotonic()
                    self._resting_until = now + (now - began) * self._rest
                self._cond.notify_all()
