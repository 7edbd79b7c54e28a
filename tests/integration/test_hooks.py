"""`graphmem hook` run as a harness runs it (a process, the payload on standard input) on
recorded Claude Code and Codex payloads and transcripts: capture is idempotent and strips
recalled context, recall answers in the documented shape, and the hook never blocks."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem.client import Memory
from graphmem.integrations.hook_local import LocalServer
from graphmem.integrations.hooks import CHUNK, Hook, LocalBackend
from graphmem.markers import CLOSE, OPEN

from helpers import TESTS, start_rest

HOOKS = TESTS / "data" / "hooks"
CLAUDE_SESSION = "5b1f0c2e-claude"
CODEX_SESSION = "0199-codex-session"


def run_hook(payload: str, transcript: str, space: str, log: Path, *args: str,
             env: dict[str, str] | None = None) -> tuple[subprocess.CompletedProcess[str], float]:
    text = (HOOKS / payload).read_text().replace("TRANSCRIPT", str(HOOKS / transcript))
    began = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "graphmem", "hook", *args, "--log", str(log)],
                          input=text, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "GRAPHMEM_HOOK_SPACE": space, **(env or {})})
    return done, time.monotonic() - began


def texts(memory: Memory, space: str, conversation: str) -> list[str]:
    return [m.text for m in memory.messages(space, conversation, limit=100).messages]


def test_capture_then_recall(memory: Memory, space: str, tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    done, _ = run_hook("stop.json", "claude_transcript.jsonl", space, log)
    assert (done.returncode, done.stdout) == (0, "")
    stored = texts(memory, space, CLAUDE_SESSION)
    assert stored == [
        "The billing service must stay on Postgres 15 until the March audit is over.",
        "Understood: I will keep the billing service on Postgres 15 until the March audit.",
        "Also, our deploy window is Thursday mornings.",  # the recalled block taken out
        "Noted, I will plan the migration for a Thursday morning."]
    again, _ = run_hook("pre_compact.json", "claude_transcript.jsonl", space, log, "PreCompact")
    assert again.returncode == 0 and texts(memory, space, CLAUDE_SESSION) == stored
    codex, _ = run_hook("codex_stop.json", "codex_transcript.jsonl", space, log, "stop")
    assert codex.returncode == 0 and len(texts(memory, space, CODEX_SESSION)) == 2

    asked, _ = run_hook("prompt.json", "claude_transcript.jsonl", space, log)
    answer = json.loads(asked.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "UserPromptSubmit"
    context = answer["additionalContext"]
    assert context.startswith(OPEN) and context.endswith(CLOSE) and "Postgres 15" in context

    started, _ = run_hook("session_start.json", "claude_transcript.jsonl", space, log,
                          "--budget", "200")
    answer = json.loads(started.stdout)["hookSpecificOutput"]
    assert answer["hookEventName"] == "SessionStart"
    # the latest other session is Codex's (21 November): its rename comes back
    assert "billing_invoices" in answer["additionalContext"]
    assert "done in" in log.read_text()


def test_a_hook_with_neo4j_down_answers_at_once(memory: Memory, space: str,
                                                tmp_path: Path) -> None:
    """...and the capture it could not store waits in the spool, stored by the next hook
    that reaches Neo4j."""
    log = tmp_path / "hooks.log"
    home = {"GRAPHMEM_HOME": str(tmp_path / "home")}
    down = {**home, "GRAPHMEM_NEO4J_URI": "bolt://127.0.0.1:9"}  # nothing listens on port 9
    for payload in ("prompt.json", "stop.json"):
        done, seconds = run_hook(payload, "claude_transcript.jsonl", space, log, env=down)
        assert (done.returncode, done.stdout) == (0, "") and seconds < 15
    assert log.read_text().count("ServiceUnavailable") == 2
    spool = LocalServer.for_space(space, {**os.environ, "GRAPHMEM_HOOK_SPACE": space,
                                          **down}).spool
    [waiting] = spool.waiting()
    assert texts(memory, space, CLAUDE_SESSION) == []
    # Neo4j back at its address: the same environment's spool (moved here from the one of
    # the address that did not answer, as the suite's server cannot be stopped)
    spool_up = LocalServer.for_space(space, {**os.environ, "GRAPHMEM_HOOK_SPACE": space,
                                             **home}).spool
    os.makedirs(spool_up.folder, exist_ok=True)
    os.replace(waiting, spool_up.folder / waiting.name)
    stored, _ = run_hook("codex_stop.json", "codex_transcript.jsonl", space, log,
                         "stop", env={**home})
    assert stored.returncode == 0 and spool_up.waiting() == []
    assert any("Postgres 15" in t for t in texts(memory, space, CLAUDE_SESSION))


def test_a_session_id_with_a_lone_surrogate_is_captured(memory: Memory, space: str,
                                                        tmp_path: Path) -> None:
    path = (HOOKS / "claude_transcript.jsonl")
    payload = '{"session_id": "abc\\ud800", "transcript_path": %s, "hook_event_name": "Stop"}'
    done = subprocess.run([sys.executable, "-m", "graphmem", "hook", "--log",
                           str(tmp_path / "hooks.log")],
                          input=payload % json.dumps(str(path)), capture_output=True,
                          text=True, timeout=300,
                          env={**os.environ, "GRAPHMEM_HOOK_SPACE": space,
                               "GRAPHMEM_HOME": str(tmp_path / "home")})
    assert done.returncode == 0 and "Error" not in done.stderr, done.stderr
    [conversation] = memory.conversations(space)
    assert conversation.conversation == "abc\\ud800" and conversation.messages > 0


def test_bad_input_and_a_short_timeout_exit_zero(memory: Memory, space: str,
                                                 tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    bad = subprocess.run([sys.executable, "-m", "graphmem", "hook", "prompt", "--log",
                          str(log)], input="{not json", capture_output=True, text=True,
                         timeout=120)
    assert (bad.returncode, bad.stdout) == (0, "") and "not JSON" in log.read_text()
    # with something to search, the models cannot load in half a second: the hook gives
    # up, silent, exit 0
    memory.add_messages(space, "earlier", [{"speaker": "user", "text": "Postgres 15 stays."}])
    memory.flush()  # the derivation done before the space is deleted
    slow, seconds = run_hook("prompt.json", "claude_transcript.jsonl", space, log,
                             "--timeout", "0.5")
    assert (slow.returncode, slow.stdout) == (0, "") and seconds < 15
    assert "gave up after" in log.read_text()


def test_the_plugin_folder_declares_hooks_and_mcp() -> None:
    root = TESTS.parent / "plugins" / "claude-code" / "graphmem"
    manifest: dict[str, Any] = json.loads((root / ".claude-plugin" / "plugin.json").read_text())
    assert manifest["name"] == "graphmem"
    hooks = json.loads((root / "hooks" / "hooks.json").read_text())["hooks"]
    assert set(hooks) == {"SessionStart", "UserPromptSubmit", "Stop", "PreCompact"}
    for event, groups in hooks.items():
        [command] = [h["command"] for g in groups for h in g["hooks"]]
        assert command.startswith("graphmem hook ") and command.endswith(event)
    servers = json.loads((root / ".mcp.json").read_text())["mcpServers"]
    assert servers["graphmem"]["command"] == "graphmem"
    assert servers["graphmem"]["args"][:1] == ["mcp"]
    codex = json.loads((TESTS.parent / "plugins" / "codex" / "hooks.json").read_text())
    assert set(codex["hooks"]) == {"SessionStart", "UserPromptSubmit", "Stop"}


def test_hooks_through_a_running_server(memory: Memory, space: str, tmp_path: Path) -> None:
    log = tmp_path / "hooks.log"
    token = "hook-token-0123456789"
    server, url = start_rest({**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps({token: [space]})})
    rest = {"GRAPHMEM_HOOK_URL": url, "GRAPHMEM_HOOK_TOKEN": token}
    try:
        done, _ = run_hook("stop.json", "claude_transcript.jsonl", space, log, env=rest)
        assert done.returncode == 0 and len(texts(memory, space, CLAUDE_SESSION)) == 4
        again, _ = run_hook("stop.json", "claude_transcript.jsonl", space, log, env=rest)
        assert again.returncode == 0 and len(texts(memory, space, CLAUDE_SESSION)) == 4
        asked, _ = run_hook("prompt.json", "claude_transcript.jsonl", space, log, env=rest)
        context = json.loads(asked.stdout)["hookSpecificOutput"]["additionalContext"]
        assert context.startswith(OPEN) and "Postgres 15" in context
        started, _ = run_hook("session_start.json", "claude_transcript.jsonl", space, log,
                              env=rest)
        assert "Postgres 15" in json.loads(started.stdout)["hookSpecificOutput"][
            "additionalContext"]
    finally:
        server.terminate()
        server.wait(timeout=30)
    gone, seconds = run_hook("prompt.json", "claude_transcript.jsonl", space, log, env=rest)
    assert (gone.returncode, gone.stdout) == (0, "") and seconds < 15
    assert "ConnectError" in log.read_text()


def transcript(path: Path, count: int, session: str) -> Path:
    start = datetime(2026, 11, 20, 9, 0, tzinfo=UTC)
    path.write_text("".join(json.dumps({
        "type": role, "uuid": f"m{n}", "sessionId": session,
        "timestamp": (start + timedelta(seconds=n)).isoformat(),
        "message": {"role": role, "content": f"note {n}: the build step {n} uses cache {n}"}})
        + "\n" for n, role in ((n, ("user", "assistant")[n % 2]) for n in range(count))),
        encoding="utf-8")
    return path


@dataclass
class CutShort:
    """A backend whose process is killed after ``chunks`` stores."""

    inner: LocalBackend
    chunks: int

    def context(self, query: str, budget: int) -> str:
        return self.inner.context(query, budget)

    def latest_messages(self, other_than: str, limit: int) -> list[str]:
        return self.inner.latest_messages(other_than, limit)

    def add(self, conversation: str, messages: list[dict[str, Any]]) -> int:
        if self.chunks == 0:
            raise TimeoutError("killed by the hook's timeout")
        self.chunks -= 1
        return self.inner.add(conversation, messages)


def test_a_long_first_capture_cut_short_is_completed_next_time(memory: Memory, space: str,
                                                               tmp_path: Path) -> None:
    path = transcript(tmp_path / "long.jsonl", CHUNK * 2 + 50, "long")
    payload = {"session_id": "long", "transcript_path": str(path)}
    with pytest.raises(TimeoutError):
        Hook(CutShort(LocalBackend(memory, space), chunks=1)).capture(payload)
    assert len(memory.messages(space, "long", limit=1000).messages) == CHUNK  # kept
    assert Hook(LocalBackend(memory, space)).capture(payload) == CHUNK + 50  # the rest
    stored = memory.messages(space, "long", limit=1000).messages
    assert [m.id for m in stored] == [f"m{n}" for n in range(CHUNK * 2 + 50)]  # each once


def test_any_session_id_is_captured_through_a_server(memory: Memory, space: str,
                                                     tmp_path: Path) -> None:
    token = "hook-token-0123456789"
    server, url = start_rest({**os.environ, "GRAPHMEM_REST_TOKENS": json.dumps({token: [space]}),
                              "GRAPHMEM_HOME": str(tmp_path)})
    rest = {"GRAPHMEM_HOOK_URL": url, "GRAPHMEM_HOOK_TOKEN": token, "GRAPHMEM_HOME": str(tmp_path)}
    path = transcript(tmp_path / "t.jsonl", 3, "x")
    with path.open("a", encoding="utf-8") as more:  # a string cut inside a character
        more.write('{"type": "user", "uuid": "cut", "message": {"role": "user", '
                   '"content": "half a face \\ud83d"}}\n')
    try:
        for session in ("team/alpha", 42):
            payload = json.dumps({"session_id": session, "transcript_path": str(path),
                                  "hook_event_name": "Stop"})
            done = subprocess.run([sys.executable, "-m", "graphmem", "hook"], input=payload,
                                  capture_output=True, text=True, timeout=300,
                                  env={**os.environ, "GRAPHMEM_HOOK_SPACE": space, **rest})
            assert done.returncode == 0 and "done in" in done.stderr, done.stderr
            assert "Error" not in done.stderr and "no session_id" not in done.stderr
            stored = texts(memory, space, str(session))
            assert len(stored) == 4 and stored[-1] == "half a face \ufffd"
    finally:
        server.terminate()
        server.wait(timeout=30)
    assert (tmp_path / "hooks.log").is_file()  # the log follows GRAPHMEM_HOME
