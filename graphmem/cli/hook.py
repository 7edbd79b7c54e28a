"""``graphmem hook EVENT``: the coding-agent hooks (:mod:`graphmem.integrations.hooks`).

A hook must never hold the agent up or fail its turn. Whatever happens (Neo4j down, a payload
it cannot read, a model that loads slowly, any error), the command exits 0; when it cannot
answer within ``--timeout`` seconds it prints nothing. The reason goes to the log file
(``--log``, default ``hooks.log`` in ``GRAPHMEM_HOME``, ``~/.graphmem``) and to standard
error, which the harnesses show only in their debug output.
"""

from __future__ import annotations

import json
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from graphmem.client import Memory

# GRAPHMEM_HOME as the settings read it, without loading them (a hook starts fast)
DEFAULT_LOG = Path(os.environ.get("GRAPHMEM_HOME") or Path.home() / ".graphmem") / "hooks.log"
log = logging.getLogger("graphmem.hook")


@click.command()
@click.argument("event", required=False)
@click.option("--space", envvar="GRAPHMEM_HOOK_SPACE", default="coding-agent",
              show_default=True, help="The space the agent's memory lives in "
              "(env GRAPHMEM_HOOK_SPACE; one per project or one per person).")
@click.option("--budget", type=click.IntRange(50, 20_000), default=600, show_default=True,
              envvar="GRAPHMEM_HOOK_BUDGET", help="Tokens of context to add, tags included.")
@click.option("--timeout", type=click.FloatRange(0.5, 600), default=20.0, show_default=True,
              envvar="GRAPHMEM_HOOK_TIMEOUT",
              help="Give up (print nothing, exit 0) after this many seconds.")
@click.option("--connect-timeout", type=click.FloatRange(0.1, 60), default=2.0,
              show_default=True, help="Seconds to wait for Neo4j before giving up.")
@click.option("--url", envvar="GRAPHMEM_HOOK_URL", default=None,
              help="A running `graphmem serve` to use instead of loading the models in the "
              "hook (env GRAPHMEM_HOOK_URL; its bearer token in GRAPHMEM_HOOK_TOKEN).")
@click.option("--local/--no-local", envvar="GRAPHMEM_HOOK_LOCAL", default=True,
              show_default=True, help="Answer through the hooks' own local server, started by "
              "the first hook and ended when idle (env GRAPHMEM_HOOK_LOCAL; "
              "GRAPHMEM_HOOK_IDLE seconds, 1800); --no-local loads the models in each hook.")
@click.option("--log", "log_file", type=click.Path(dir_okay=False, path_type=Path),
              envvar="GRAPHMEM_HOOK_LOG", default=DEFAULT_LOG,
              show_default="hooks.log in GRAPHMEM_HOME, ~/.graphmem",
              help="Where to note what each hook did and why one gave up.")
def hook(event: str | None, space: str, budget: int, timeout: float, connect_timeout: float,
         url: str | None, local: bool, log_file: Path) -> None:
    """Answer a coding agent's hook: EVENT is session-start, prompt, stop, pre-compact or
    session-end (or the harness's own name: SessionStart, UserPromptSubmit, Stop,
    PreCompact, SessionEnd; left out, the payload's hook_event_name). Reads the hook's JSON on
    standard input; prints the context to add (session-start, prompt) in the harness's
    hookSpecificOutput shape, or stores the session's transcript (stop, pre-compact,
    session-end). Never blocks the agent: exits 0 in every case, printing nothing when it
    could not answer within --timeout (the reason is logged). See docs/agents.md."""
    _logging(log_file)
    began = time.monotonic()

    def give_up() -> None:
        log.warning("%s: gave up after %.1f s (GRAPHMEM_HOOK_TIMEOUT); nothing printed",
                    event or "hook", time.monotonic() - began)
        logging.shutdown()
        os._exit(0)

    watchdog = threading.Timer(timeout, give_up)
    watchdog.daemon = True
    watchdog.start()
    try:
        answer = _run(event, space, budget, connect_timeout, sys.stdin.read(),
                      deadline=began + timeout, url=url, local=local)
    except Exception as exc:  # a hook never fails the agent's turn: log and say nothing
        log.warning("%s: %s: %s", event or "hook", type(exc).__name__, exc)
        answer = None
    watchdog.cancel()
    if answer is not None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
    log.info("%s: done in %.1f s", event or "hook", time.monotonic() - began)
    logging.shutdown()
    os._exit(0)  # not waiting for background threads (a derivation resumes later)


def _run(event: str | None, space: str, budget: int, connect_timeout: float,
         text: str, deadline: float, url: str | None = None,
         local: bool = False) -> dict[str, object] | None:
    from graphmem.integrations.hooks import (
        CAPTURE_EVENTS,
        Hook,
        LocalBackend,
        event_name,
        read_payload,
    )

    payload = read_payload(text)
    name = event_name(event, payload)
    if name in CAPTURE_EVENTS:
        _capture(name, payload, space, connect_timeout, deadline, url, local)
        return None
    if url:
        from graphmem.integrations.hook_rest import RestBackend

        rest = RestBackend(url, space, os.environ.get("GRAPHMEM_HOOK_TOKEN"),
                           timeout=max(0.1, deadline - time.monotonic()),
                           connect_timeout=connect_timeout)
        return Hook(rest, budget).handle(name, payload)
    if local:
        from graphmem.integrations.hook_local import local_backend

        nearby = local_backend(space, deadline, log)
        if nearby is not None:
            try:
                return Hook(nearby, budget).handle(name, payload)
            except OSError as exc:  # it ended meanwhile: answer here (what was stored stays)
                log.warning("%s: the local server failed (%s); answering here", name, exc)
    memory = _memory_here(connect_timeout)
    return Hook(LocalBackend(memory, space), budget).handle(name, payload)


def _memory_here(connect_timeout: float) -> Memory:
    """A client in this process, once Neo4j answers (before any model loads: Neo4j down
    answers at once)."""
    from graphmem.client import Memory
    from graphmem.config import Settings
    from graphmem.store import GraphStore

    settings = Settings(neo4j_timeout=connect_timeout)
    store = GraphStore(settings)
    store.driver.verify_connectivity()
    return Memory(settings, store=store)


def _capture(name: str, payload: dict[str, object], space: str, connect_timeout: float,
             deadline: float, url: str | None, local: bool) -> None:
    """Keep the capture in the spool, then hand the spool to what can store it now; never
    wait for a server to start (graphmem.integrations.hook_spool)."""
    from graphmem.integrations.hook_local import LocalServer, SocketBackend, can_serve
    from graphmem.integrations.hooks import Hook, LocalBackend, checked_capture

    server = LocalServer.for_space(space)
    server.spool.put(checked_capture(payload))
    left = max(0.1, deadline - time.monotonic())
    if url:
        from graphmem.integrations.hook_rest import RestBackend

        rest = RestBackend(url, space, os.environ.get("GRAPHMEM_HOOK_TOKEN"), timeout=left,
                           connect_timeout=connect_timeout)
        server.spool.drain(Hook(rest).capture, log.warning, deadline)
        return None
    if local and can_serve():
        if server.answering():
            try:
                server.spool.drain(Hook(SocketBackend(server, space, left)).capture,
                                   log.warning, deadline)
                return None
            except OSError as exc:  # it ended meanwhile: a new one drains the spool
                log.warning("%s: the local server failed (%s); the capture waits", name, exc)
        if server.failed_lately():
            log.warning("%s: kept in the spool; the local server failed to start lately "
                        "(see %s) and is tried again by a later hook", name, server.log_file)
        elif not server.starting():
            log.info("%s: kept in the spool; starting the hooks' local server, which stores "
                     "it (log: %s)", name, server.log_file)
            server.start(space)
        else:
            log.info("%s: kept in the spool; the local server stores it once it is up", name)
        return None
    memory = _memory_here(connect_timeout)
    server.spool.drain(Hook(LocalBackend(memory, space)).capture, log.warning, deadline)
    # derive the layers while the hook may still run; what is left is derived later
    memory.flush(timeout=max(0.0, deadline - time.monotonic() - 1.0))
    return None


def _logging(path: Path) -> None:
    handlers: list[logging.Handler] = [logging.StreamHandler(sys.stderr)]
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handlers.append(logging.FileHandler(path, encoding="utf-8"))
    except OSError:
        pass  # an unwritable log is no reason to fail the hook
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s",
                        handlers=handlers, force=True)
    log.setLevel(logging.INFO)
