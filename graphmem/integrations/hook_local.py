"""The hooks' own local server: the first hook starts it, the next ones answer through it.

A coding agent runs ``graphmem hook`` at every prompt and every stop, each time in a new
process; loading the models there costs seconds. So a hook looks for a graphmem server of its
own under ``GRAPHMEM_HOME/run`` and, when there is none, starts one (``python -m
graphmem.serve.local``, detached) and waits for it within its timeout. That server:

- listens on a Unix socket in ``run/``, a directory only the user may open (0700), and answers
  only requests that carry the secret in ``run/hook-<key>.token`` (0600), written by the hook
  that started it;
- serves the one space the hook names, with the settings of the hook's environment: ``<key>``
  digests the space and every ``GRAPHMEM_*`` variable, so a change of either gets a server of
  its own and the old one is left to end;
- ends after ``GRAPHMEM_HOOK_IDLE`` seconds without a request (default 1,800).

The hook process imports neither httpx nor the client: it speaks HTTP over the socket with the
standard library, and the request costs what the server's search costs.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import os
import secrets
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from graphmem.integrations.hook_rest import RestBackend
from graphmem.integrations.hook_spool import Spool
from graphmem.processes import private_folder

IDLE_DEFAULT = 1800.0
RETRY_AFTER = 600.0  # seconds after a failed start before a hook tries again
_NOT_KEYED = ("GRAPHMEM_HOOK_",)  # the hook's own options do not change what a server does


@dataclass(frozen=True)
class LocalServer:
    """Where the local server for one space and one environment lives."""

    run_dir: Path
    key: str

    @classmethod
    def for_space(cls, space: str, environ: dict[str, str] | None = None) -> LocalServer:
        env = os.environ if environ is None else environ
        home = Path(env.get("GRAPHMEM_HOME") or Path.home() / ".graphmem")
        keyed = sorted((k, v) for k, v in env.items()
                       if k.startswith("GRAPHMEM_") and not k.startswith(_NOT_KEYED))
        digest = hashlib.sha256(json.dumps([space, keyed]).encode()).hexdigest()[:16]
        return cls(home / "run", digest)

    def _file(self, kind: str) -> Path:
        return self.run_dir / f"hook-{self.key}.{kind}"

    @property
    def socket(self) -> Path:
        return self._file("sock")

    @property
    def token_file(self) -> Path:
        return self._file("token")

    @property
    def lock_file(self) -> Path:
        return self._file("lock")

    @property
    def log_file(self) -> Path:
        return self._file("log")

    @property
    def spool(self) -> Spool:
        """The captures waiting to be stored (graphmem.integrations.hook_spool)."""
        return Spool(self._file("spool"))

    @property
    def failed_file(self) -> Path:
        """Written when a server failed to start: hooks answer in their own process for
        ``RETRY_AFTER`` seconds instead of starting one again each time."""
        return self._file("failed")

    def failed_lately(self) -> bool:
        try:
            return time.time() - self.failed_file.stat().st_mtime < RETRY_AFTER
        except OSError:
            return False

    def answering(self) -> bool:
        """A server accepts connections on the socket."""
        if not hasattr(socket, "AF_UNIX") or not self.socket.exists():
            return False
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as probe:
            probe.settimeout(0.5)
            try:
                probe.connect(str(self.socket))
            except OSError:
                return False
        return True

    def token(self) -> str:
        return self.token_file.read_text().strip()

    def starting(self) -> bool:
        """A server holds the lock: it is loading, or serving."""
        import fcntl

        try:
            with self.lock_file.open("a") as handle:
                fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
                fcntl.flock(handle, fcntl.LOCK_UN)
        except BlockingIOError:
            return True
        except OSError:
            return False
        return False

    def start(self, space: str) -> subprocess.Popen[bytes]:
        """Start a server in the background (a second one started at the same time sees the
        first's lock and ends at once)."""
        private_folder(self.run_dir)
        if self.socket.exists() and not self.answering() and not self.starting():
            # what a server that was killed left: its socket, and its secret with it
            self.socket.unlink(missing_ok=True)
            self.token_file.unlink(missing_ok=True)
        if not self.token_file.exists():
            descriptor = os.open(self.token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(descriptor, "w") as handle:
                handle.write(secrets.token_urlsafe(32))
        with self.log_file.open("ab") as log:
            return subprocess.Popen([sys.executable, "-m", "graphmem.serve.local", "--space", space,
                              "--key", self.key], stdin=subprocess.DEVNULL, stdout=log,
                             stderr=log, start_new_session=True, close_fds=True,
                             cwd=self.run_dir)  # not the agent's folder: -m puts it on the path


class SocketBackend(RestBackend):
    """The hooks' REST backend over the local server's Unix socket (standard library only)."""

    def __init__(self, server: LocalServer, space: str, timeout: float) -> None:
        self.server = server
        super().__init__("http://graphmem.local", space, server.token(), timeout)

    def __post_init__(self) -> None:
        self.client = None

    def _send(self, method: str, path: str, json: Any = None,
              params: dict[str, Any] | None = None) -> tuple[int, str]:
        connection = _UnixConnection(str(self.server.socket), self.timeout)
        body = None if json is None else _dumps(json)
        headers = {"Authorization": f"Bearer {self.token}", "Host": "localhost"}
        if body is not None:
            headers["Content-Type"] = "application/json"
        target = f"{path}?{urlencode(params)}" if params else path
        try:
            connection.request(method, target, body=body, headers=headers)
            answer = connection.getresponse()
            return answer.status, answer.read().decode("utf-8", "replace")
        finally:
            connection.close()


def _dumps(value: Any) -> bytes:
    return json.dumps(value, ensure_ascii=False).encode("utf-8")


class _UnixConnection(http.client.HTTPConnection):
    def __init__(self, path: str, timeout: float) -> None:
        super().__init__("localhost", timeout=timeout)
        self.path = path

    def connect(self) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(self.timeout)
        self.sock.connect(self.path)


def can_serve() -> bool:
    """Whether a local server can run here: Unix sockets, and the server extra."""
    import importlib.util

    return hasattr(socket, "AF_UNIX") and importlib.util.find_spec("uvicorn") is not None


def local_backend(space: str, deadline: float, log: Any) -> SocketBackend | None:
    """A backend over this space's local server, started first when none answers and waited
    for until shortly before ``deadline``; None when none can run here (no Unix sockets, no
    server extra) or it did not come up in time."""
    if not can_serve():
        return None
    server = LocalServer.for_space(space)
    if not server.answering():
        if server.failed_lately():
            return None
        log.info("starting the hooks' local server for %s (log: %s)", space, server.log_file)
        process = server.start(space)
        while not server.answering():
            if process.poll() is not None and not server.starting():
                log.warning("the hooks' local server ended (exit %s); see %s",
                            process.returncode, server.log_file)
                server.failed_file.touch()
                return None  # the hook answers in its own process
            if time.monotonic() > deadline - 0.5:
                log.warning("the hooks' local server is not up yet; see %s", server.log_file)
                return None
            time.sleep(0.05)
    return SocketBackend(server, space, timeout=max(0.1, deadline - time.monotonic()))
