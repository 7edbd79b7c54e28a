"""The background derivation's worker: a conversation is derived a moment after its last
message, or after a bounded wait when its messages never pause; while messages keep arriving it
rests between rounds so that deriving takes at most
its share of the time (the writers and readers need the rest); once they stop, or on a
flush, it derives without rest."""

from __future__ import annotations

import threading
import time

from graphmem.ingest.live_worker import QUIET, LiveWorker

WORK = 0.4  # seconds a round of deriving takes here


class Recorder:
    def __init__(self) -> None:
        self.rounds: list[tuple[str, float, float]] = []  # conversation, began, ended
        self.started = threading.Event()

    def __call__(self, space: str, conversation: str) -> None:
        began = time.monotonic()
        self.started.set()
        time.sleep(WORK)
        self.rounds.append((conversation, began, time.monotonic()))


def until(test: object, seconds: float = 20.0) -> None:
    deadline = time.monotonic() + seconds
    while not test():  # type: ignore[operator]
        assert time.monotonic() < deadline, "the worker did not get there in time"
        time.sleep(0.02)


def test_a_message_during_a_round_is_derived_after_the_rest() -> None:
    derive = Recorder()
    worker = LiveWorker(derive, delay=0.0, share=0.25)  # rests 3 x the round: 1.2 s
    try:
        worker.submit("s", "a")
        assert derive.started.wait(10)
        worker.submit("s", "a")  # arrives while the first round runs
        deadline = time.monotonic() + 20
        while len(derive.rounds) < 2:  # the writers keep writing (to another conversation)
            assert time.monotonic() < deadline, "the worker did not get there in time"
            time.sleep(0.2)
            if derive.rounds:
                worker.submit("s", "b")
        (_, _, first_end), (_, second_began, _) = derive.rounds
        assert second_began - first_end >= 3 * WORK * 0.95
    finally:
        worker.close()


def test_when_nothing_arrived_during_a_round_the_next_follows_at_once() -> None:
    """A chat's occasional message, or what is left once the messages stop, is derived
    without rest: the rest only gives way to writers that are still writing."""
    derive = Recorder()
    worker = LiveWorker(derive, delay=0.0, share=0.02)  # a rest would last 19.6 s
    try:
        worker.submit("s", "a")
        until(lambda: len(derive.rounds) == 1)
        worker.submit("s", "b")
        until(lambda: len(derive.rounds) == 2, seconds=10)
        assert [c for c, _, _ in derive.rounds] == ["a", "b"]
    finally:
        worker.close()


def test_a_flush_derives_at_once_whatever_the_rest() -> None:
    derive = Recorder()
    worker = LiveWorker(derive, delay=0.0, share=0.02)  # would rest 49 x 0.4 s
    try:
        worker.submit("s", "a")
        assert derive.started.wait(10)
        worker.submit("s", "b")  # arrives during the round: due next, after the rest
        until(lambda: len(derive.rounds) == 1)
        time.sleep(0.3)
        assert len(derive.rounds) == 1
        assert worker.backlog() == 1
        assert worker.flush(timeout=10)  # well within the 19.6 s rest
        assert [c for c, _, _ in derive.rounds] == ["a", "b"]
        assert worker.backlog() == 0
    finally:
        worker.close()


def test_a_conversation_that_never_pauses_is_derived_after_the_longest_wait() -> None:
    # a message every 50 ms never leaves the 0.5-s pause the delay waits for: without a bound
    # the conversation would wait for as long as its messages keep coming
    for max_wait, expected in ((1.0, True), (None, False)):
        derive = Recorder()
        worker = LiveWorker(derive, delay=0.5, share=1.0, max_wait=max_wait)
        try:
            began = time.monotonic()
            while time.monotonic() - began < 2.5 and not derive.started.is_set():
                worker.submit("s", "busy")
                time.sleep(0.05)
            assert derive.started.is_set() is expected
            if expected:  # the first round began about a second after the first message
                until(lambda d=derive: len(d.rounds) == 1)  # type: ignore[misc]
                assert 0.9 <= derive.rounds[0][1] - began <= 1.6
        finally:
            worker.close()


def test_the_rest_ends_once_the_writers_fall_quiet() -> None:
    # the rest yields the CPU to writers that are still writing; after the last message what
    # is left is derived within QUIET seconds, not after a rest as long as 49 rounds
    derive = Recorder()
    worker = LiveWorker(derive, delay=0.0, share=0.02)
    try:
        worker.submit("s", "a")
        assert derive.started.wait(10)
        worker.submit("s", "a")  # the last message, during the first round
        last = time.monotonic()
        until(lambda: len(derive.rounds) == 2, seconds=10)
        assert derive.rounds[1][1] - last <= QUIET + 1.0
    finally:
        worker.close()
