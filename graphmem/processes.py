"""What graphmem keeps on this machine: helpers for the local servers it starts (Neo4j,
llama.cpp: pid files that record a port, liveness checks that survive pid reuse, resident
memory, clean stops, free ports), and the folders and files that hold memories.

What graphmem keeps on disk (the local Neo4j's store and transaction logs, its logs, the
exports a compaction makes, backups, the hooks' spool) holds what people said, forgotten text
included until a compaction. Another account of the machine must read none of it: every such
folder is made 0700 and every such file 0600, whatever the process's umask, and the Neo4j
server is started with a umask that gives its own files the same modes."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from pathlib import Path
from typing import IO


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


def free_port() -> int:
    """A TCP port on the loopback that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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


# ---------------------------------------------------------------------- private files
FOLDER_MODE = 0o700
FILE_MODE = 0o600
# the umask of processes that write memories themselves (the Neo4j JVM)
UMASK = 0o077


def private_folder(path: Path) -> Path:
    """Make ``path`` (and any missing parent) and leave it 0700. A folder made by someone else
    (another account's, or a read-only one) is left as it is: the caller's write fails there
    with its own error."""
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    with contextlib.suppress(PermissionError):
        if path.stat().st_mode & 0o777 != FOLDER_MODE:
            os.chmod(path, FOLDER_MODE)
    return path


def make_private(root: Path) -> int:
    """Take every permission of group and others off ``root`` and everything below it (an
    install made before files were private, or one copied in by hand); returns how many
    entries changed. Links are not followed."""
    changed = 0
    if not root.exists():
        return 0
    for entry in [root, *root.rglob("*")]:
        try:
            st = entry.lstat()
        except OSError:
            continue  # gone meanwhile (a log rotated)
        if entry.is_symlink() or not st.st_mode & 0o077:
            continue
        with contextlib.suppress(PermissionError, FileNotFoundError):
            os.chmod(entry, st.st_mode & 0o700)
            changed += 1
    return changed


def open_private(path: Path, mode: str = "wb") -> IO[bytes]:
    """Open ``path`` for writing as a new 0600 file (one left there is truncated and made
    0600 first)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
    descriptor = os.open(path, flags, FILE_MODE)
    os.fchmod(descriptor, FILE_MODE)
    return os.fdopen(descriptor, mode)
