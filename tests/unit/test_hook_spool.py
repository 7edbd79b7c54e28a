"""The hooks' spool: a capture is kept whole until it is stored, oldest first, by one
drainer at a time; a failure leaves it waiting, a capture that can never be stored is
dropped; what it keeps is the owner's alone."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import InputError
from graphmem.integrations.hook_spool import STALE_CLAIM, Spool


def test_captures_are_stored_oldest_first_and_then_gone(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    for n in range(3):
        spool.put({"session_id": f"s{n}", "transcript_path": "/x"})
    assert stat.S_IMODE(spool.folder.stat().st_mode) == 0o700
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in spool.waiting())
    seen: list[str] = []
    assert spool.drain(lambda payload: seen.append(payload["session_id"])) == 3
    assert seen == ["s0", "s1", "s2"] and spool.waiting() == []
    assert list(spool.folder.iterdir()) == []


def test_a_failure_leaves_that_capture_and_the_later_ones_waiting(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    for n in range(3):
        spool.put({"session_id": f"s{n}"})
    stored: list[str] = []

    def store(payload: dict[str, Any]) -> None:
        if payload["session_id"] == "s1":
            raise ConnectionError("Neo4j went away")
        stored.append(payload["session_id"])

    with pytest.raises(ConnectionError):
        spool.drain(store)
    assert stored == ["s0"] and len(spool.waiting()) == 2
    assert spool.drain(lambda payload: stored.append(payload["session_id"])) == 2
    assert stored == ["s0", "s1", "s2"]


def test_a_capture_that_can_never_be_stored_is_dropped_with_a_note(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    spool.put({"session_id": "gone"})
    (spool.folder / "00000000000000000001-1.json").write_text("{not json")
    notes: list[str] = []

    def store(payload: dict[str, Any]) -> None:
        raise InputError("no transcript at '/tmp/gone.jsonl'", field="transcript_path")

    assert spool.drain(store, notes.append) == 2
    assert spool.waiting() == [] and len(notes) == 2 and "no transcript" in notes[1]


def test_a_claimed_capture_is_left_to_its_drainer_until_the_claim_is_stale(
        tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    path = spool.put({"session_id": "s"})
    claimed = path.with_name(f"{path.stem}.99999.claimed")  # another drainer holds it
    os.replace(path, claimed)
    assert spool.waiting() == [] and spool.drain(lambda payload: None) == 0
    assert spool.held() == 1  # not stored yet
    old = time.time() - STALE_CLAIM - 5  # that drainer died long ago
    os.utime(claimed, (old, old))
    got: list[dict[str, Any]] = []
    assert spool.drain(got.append) == 1 and got == [{"session_id": "s"}]
    assert list(spool.folder.iterdir()) == []


def test_a_drain_stops_at_its_deadline(tmp_path: Path) -> None:
    spool = Spool(tmp_path / "spool")
    for n in range(2):
        spool.put({"session_id": f"s{n}"})
    assert spool.drain(lambda payload: None, deadline=time.monotonic() - 1) == 0
    assert len(spool.waiting()) == 2
