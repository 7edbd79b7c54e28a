"""Captures the hooks keep until they are stored: a capture hook never waits for a server.

A capture (``stop``, ``pre-compact``, ``session-end``) first writes its payload (the session
id and the transcript's path, not the transcript) as one file of the spool, a 0600 file in a
0700 folder beside the local server's socket; then it hands the spool to whatever can store
it now (the local server when it answers, a ``graphmem serve``, or this process) and returns.
When nothing can (the local server is still loading its models, it failed to start lately,
Neo4j is away), the files wait: the local server drains the spool as it starts, and every
capture that can store drains it too, oldest first. A spooled capture is stored whole or
stays: a drain claims a file by renaming it (one drainer per file), deletes it only once its
messages are stored, and a claim left by a drainer that died is taken again after
``STALE_CLAIM`` seconds. Capturing is idempotent (messages are stored by their transcript
ids), so a capture stored twice adds nothing.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graphmem.errors import InputError
from graphmem.processes import open_private, private_folder

STALE_CLAIM = 600.0  # seconds after which a claimed file whose drainer died is taken again
_WAITING, _CLAIMED = ".json", ".claimed"


@dataclass(frozen=True)
class Spool:
    folder: Path

    def put(self, payload: dict[str, Any]) -> Path:
        """Keep one capture's payload; returns its file."""
        private_folder(self.folder)
        name = f"{time.time_ns():020d}-{os.getpid()}"
        partial = self.folder / f"{name}.partial"
        with open_private(partial) as out:
            out.write(json.dumps(payload).encode("utf-8"))
            out.flush()
            os.fsync(out.fileno())
        final = self.folder / f"{name}{_WAITING}"
        os.replace(partial, final)  # a waiting file is a whole one
        return final

    def waiting(self) -> list[Path]:
        """The captures not stored yet, oldest first (stale claims included)."""
        if not self.folder.is_dir():
            return []
        now = time.time()
        found = []
        for path in self.folder.iterdir():
            if path.suffix == _WAITING:
                found.append(path)
            elif path.suffix == _CLAIMED:
                try:
                    if now - path.stat().st_mtime > STALE_CLAIM:
                        found.append(path)
                except FileNotFoundError:
                    continue
        return sorted(found, key=lambda p: p.name)

    def held(self) -> int:
        """How many captures are not stored yet: waiting, or being stored by a drainer."""
        if not self.folder.is_dir():
            return 0
        return sum(1 for p in self.folder.iterdir() if p.suffix in (_WAITING, _CLAIMED))

    def drain(self, store: Callable[[dict[str, Any]], object],
              note: Callable[[str], None] = lambda _line: None,
              deadline: float | None = None) -> int:
        """Store every waiting capture with ``store``, oldest first, until ``deadline``
        (``time.monotonic``); returns how many were stored. A capture whose transcript is
        gone (it can never be stored) is dropped with a note; any other failure stops the
        drain and leaves that capture and the later ones waiting."""
        stored = 0
        for path in self.waiting():
            if deadline is not None and time.monotonic() > deadline:
                break
            base = path.name.split(".", 1)[0]  # <time>-<pid of the hook that spooled it>
            claimed = self.folder / f"{base}.{os.getpid()}{_CLAIMED}"
            try:
                os.replace(path, claimed)  # one drainer takes it; the others skip it
                os.utime(claimed)
            except FileNotFoundError:
                continue
            try:
                payload = json.loads(claimed.read_text(encoding="utf-8"))
                store(payload)
            except (InputError, ValueError) as exc:
                note(f"a spooled capture cannot be stored and is dropped: {exc}")
            except Exception:
                os.replace(claimed, self.folder / f"{base}{_WAITING}")  # for the next drain
                raise
            claimed.unlink(missing_ok=True)
            stored += 1
        return stored
