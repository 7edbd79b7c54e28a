"""Small helpers for the local servers graphmem starts (Neo4j, llama.cpp): pid files that
record a port, liveness checks that survive pid reuse, resident memory, and clean stops."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path


def read_pid_file(path: Path) -> tuple[int, int] | None:
    """(pid, port) from a file holding ``"PID PORT ..."``; None when absent or unreadable."""
    try:
        pid, port = (int(part) for part in path.read_text().split()[:2])
    except (FileNotFoundError, ValueError):
        return None
    return pid, port


def live_pid(pid: int, marker: bytes) -> int | None:
    """``pid`` when that process runs and its command line holds ``marker`` (so a reused pid
    of another program is not taken for ours); our own exited children are reaped."""
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, os.WNOHANG)
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None
    if state == "Z":
        return None
    return pid if not cmdline or marker in cmdline else None


def port_open(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def rss_mb(pid: int | None) -> float | None:
    if pid is None:
        return None
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def terminate(pid: int, marker: bytes, timeout: float) -> None:
    """SIGTERM, then SIGKILL if the process still runs after ``timeout`` seconds."""
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and live_pid(pid, marker) is not None:
        time.sleep(0.3)
    if live_pid(pid, marker) is not None:
        os.kill(pid, signal.SIGKILL)
