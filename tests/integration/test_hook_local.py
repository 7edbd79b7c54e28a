"""The hooks' local server: the first hook starts it and waits for it, the next ones answer
through its socket at once; only the user's files open it, a wrong secret is refused, and it
ends by itself when idle, removing its socket."""

from __future__ import annotations

import os
import stat
import time
from pathlib import Path

from test_hooks import CLAUDE_SESSION, run_hook, texts

from graphmem.client import Memory
from graphmem.integrations.hook_local import LocalServer, SocketBackend


def test_hooks_answer_through_their_local_server(memory: Memory, space: str,
                                                 tmp_path: Path) -> None:
    env = {"GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_HOOK_LOCAL": "1",
           "GRAPHMEM_HOOK_IDLE": "6"}
    server = LocalServer.for_space(space, {**os.environ, **env})
    log = tmp_path / "hooks.log"
    stored, _ = run_hook("stop.json", "claude_transcript.jsonl", space, log, env=env)
    assert stored.returncode == 0 and stored.stdout == ""
    # the stop did not wait for the server it started: its capture waited in the spool, and
    # the server stored it as it came up
    assert "kept in the spool; starting" in log.read_text()
    deadline = time.monotonic() + 120
    while not server.answering() or server.spool.held():
        assert time.monotonic() < deadline, "the local server did not store the spool"
        time.sleep(0.2)
    assert stat.S_IMODE(server.run_dir.stat().st_mode) == 0o700
    assert stat.S_IMODE(server.token_file.stat().st_mode) == 0o600
    kept = texts(memory, space, CLAUDE_SESSION)
    assert any("Postgres 15" in t for t in kept) and len(kept) == len(set(kept))

    asked, _ = run_hook("prompt.json", "claude_transcript.jsonl", space, log, env=env)
    assert "Postgres 15" in asked.stdout
    again, _ = run_hook("stop.json", "claude_transcript.jsonl", space, log, env=env)
    assert again.returncode == 0 and texts(memory, space, CLAUDE_SESSION) == kept  # once
    assert server.spool.held() == 0  # handed over through the socket at once
    notes = log.read_text()
    assert notes.count("starting the hooks' local server") == 1, notes

    intruder = SocketBackend(server, space, timeout=5)
    intruder.token = "not-the-secret-of-this-server"
    status, _ = intruder._send("GET", "/v1/spaces")
    assert status == 401
    assert SocketBackend(server, space, timeout=5)._send("GET", "/v1/spaces")[0] == 200

    deadline = time.monotonic() + 60
    while server.socket.exists():  # idle for 6 s: it ends and removes its socket
        assert time.monotonic() < deadline, "the local server did not end when idle"
        time.sleep(0.5)
    assert not server.answering() and not server.starting()


def test_a_local_server_that_cannot_start_is_not_started_again(space: str,
                                                               tmp_path: Path) -> None:
    """With Neo4j unreachable the server ends at once; the hook answers (nothing, exit 0) in
    its own process, and the next hooks do not start another for a while."""
    from helpers import free_port

    env = {"GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_HOOK_LOCAL": "1",
           "GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{free_port()}"}
    server = LocalServer.for_space(space, {**os.environ, **env})
    log = tmp_path / "hooks.log"
    for _ in range(2):
        done, _ = run_hook("prompt.json", "claude_transcript.jsonl", space, log, env=env)
        assert done.returncode == 0 and done.stdout == ""
    notes = log.read_text()
    assert notes.count("starting the hooks' local server") == 1, notes
    assert "local server ended" in notes and server.failed_file.exists()
    assert not server.answering()


def test_a_killed_server_leaves_nothing_that_stops_the_next(memory: Memory, space: str,
                                                            tmp_path: Path) -> None:
    """A server killed outright leaves its socket and secret; the next start clears both, so
    the next capture is stored and the old secret opens nothing."""
    import signal
    import subprocess

    env = {"GRAPHMEM_HOME": str(tmp_path / "home"), "GRAPHMEM_HOOK_LOCAL": "1",
           "GRAPHMEM_HOOK_IDLE": "30"}
    server = LocalServer.for_space(space, {**os.environ, **env})
    server.run_dir.mkdir(parents=True)
    server.socket.touch()  # as a server killed with SIGKILL leaves them
    server.token_file.write_text("the-old-secret")
    log = tmp_path / "hooks.log"
    run_hook("stop.json", "claude_transcript.jsonl", space, log, env=env)
    deadline = time.monotonic() + 120
    while not server.answering() or server.spool.held():
        assert time.monotonic() < deadline, "no server came up after the killed one"
        time.sleep(0.2)
    assert server.token() != "the-old-secret"
    assert any("Postgres 15" in t for t in texts(memory, space, CLAUDE_SESSION))
    found = subprocess.run(["pgrep", "-f", f"graphmem.serve.local --space {space}"],
                           capture_output=True, text=True, check=False).stdout.split()
    for pid in found:
        os.kill(int(pid), signal.SIGTERM)
