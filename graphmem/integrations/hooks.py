"""Hooks for coding agents (Claude Code, Codex and harnesses with the same hook shapes): recall
when a session starts and on every prompt, capture each exchange when the agent stops or
before it compacts, without the model deciding anything.

The harness runs ``graphmem hook EVENT`` with the hook's JSON on standard input
(``session_id``, ``transcript_path``, ``cwd``, ``hook_event_name``, and ``prompt`` for a
prompt). :func:`handle` answers:

* ``session-start``: the space's latest exchange (the other sessions' last messages) and what
  the space holds that bears on it, within the budget;
* ``prompt``: the context for the prompt, within the budget;
* ``stop``, ``pre-compact``, ``session-end``: the transcript's user and assistant text,
  stored as live messages of the conversation named by the session id, with the transcript's
  ids, so capturing the same transcript again adds only what is new. Nothing is printed.

A context is printed as ``{"hookSpecificOutput": {"hookEventName": ..., "additionalContext":
...}}``, the shape both harnesses document for adding context, and it is wrapped in the
``<graphmem-context>`` marker, so capturing the transcript later never stores it again.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from graphmem.errors import InputError
from graphmem.integrations.transcripts import read_transcript
from graphmem.markers import mark, mark_tokens

if TYPE_CHECKING:  # the REST backend's hooks never load the client and its models
    from graphmem.client import Memory

# the harnesses' event names and ours
EVENTS = {"SessionStart": "session-start", "UserPromptSubmit": "prompt", "Stop": "stop",
          "SubagentStop": "stop", "PreCompact": "pre-compact", "SessionEnd": "session-end"}
CONTEXT_EVENTS = ("session-start", "prompt")
CAPTURE_EVENTS = ("stop", "pre-compact", "session-end")
RECENT_MESSAGES = 6  # of the latest other session, shown at a session's start
CHUNK = 200  # messages a capture stores per committed call: a capture cut short resumes


def event_name(given: str | None, payload: dict[str, Any]) -> str:
    """Our name of the event: the argument (ours or the harness's), else the payload's."""
    name = given or payload.get("hook_event_name")
    if not isinstance(name, str) or not name:
        raise InputError("no event: give one (session-start, prompt, stop, pre-compact, "
                         "session-end) or a payload with hook_event_name", field="event")
    name = EVENTS.get(name, name)
    if name not in CONTEXT_EVENTS + CAPTURE_EVENTS:
        raise InputError(f"unknown hook event {name!r}", field="event")
    return name


class Backend(Protocol):
    """Where a hook reads and writes: this process's :class:`Memory`, or a running
    ``graphmem serve`` (:mod:`graphmem.integrations.hook_rest`), which answers without loading
    any model in the hook's process."""

    def context(self, query: str, budget: int) -> str: ...

    def latest_messages(self, other_than: str, limit: int) -> list[str]: ...

    def add(self, conversation: str, messages: list[dict[str, Any]]) -> int: ...


@dataclass
class LocalBackend:
    memory: Memory
    space: str

    def context(self, query: str, budget: int) -> str:
        if not self.memory.has_space(self.space):
            return ""
        return self.memory.search(query, space=self.space, budget=budget).context

    def latest_messages(self, other_than: str, limit: int) -> list[str]:
        if not self.memory.has_space(self.space):
            return []
        others = [c for c in self.memory.conversations(self.space)
                  if c.conversation != other_than]
        if not others:
            return []
        latest = max(others, key=lambda c: (c.last_session_at is not None,
                                            c.last_session_at or 0))
        page = self.memory.messages(self.space, latest.conversation, limit=limit,
                                    newest_first=True)
        return [f"{m.speaker}: {m.text}" for m in reversed(page.messages)]

    def add(self, conversation: str, messages: list[dict[str, Any]]) -> int:
        return len(self.memory.add_messages(self.space, conversation, messages).added)


@dataclass
class Hook:
    backend: Backend
    budget: int = 600  # tokens of context, the marker's included

    def handle(self, event: str, payload: dict[str, Any]) -> dict[str, Any] | None:
        """What to print for ``event`` (None: nothing)."""
        if event in CAPTURE_EVENTS:
            self.capture(payload)
            return None
        if event == "prompt":
            context = self.context(str(payload.get("prompt") or ""))
        else:
            context = self.session_context(_session(payload))
        if not context:
            return None
        harness_name = {v: k for k, v in EVENTS.items() if k != "SubagentStop"}[event]
        return {"hookSpecificOutput": {"hookEventName": harness_name,
                                       "additionalContext": context}}

    def context(self, query: str) -> str:
        inner = self.budget - mark_tokens()
        if not query.strip() or inner <= 0:
            return ""
        return mark(self.backend.context(query, inner))

    def session_context(self, session: str) -> str:
        """What bears on the latest other session's last messages (which come back too,
        being what bears on them most)."""
        return self.context("\n".join(self.backend.latest_messages(session, RECENT_MESSAGES)))

    def capture(self, payload: dict[str, Any]) -> int:
        """Store the transcript's new messages, ``CHUNK`` at a time in order, each chunk
        committed before the next is read: a capture the hook's timeout cuts short keeps
        what it stored, and the next one skips it (by id) and goes on from there. Returns
        how many were added."""
        path = payload.get("transcript_path")
        if not isinstance(path, str) or not path or not Path(path).is_file():
            raise InputError(f"no transcript at {path!r}", field="transcript_path")
        messages = read_transcript(Path(path))
        session = _session(payload)
        return sum(self.backend.add(session, messages[i:i + CHUNK])
                   for i in range(0, len(messages), CHUNK))


def _session(payload: dict[str, Any]) -> str:
    session = payload.get("session_id")
    if isinstance(session, int) and not isinstance(session, bool):
        session = str(session)  # a harness that numbers its sessions
    if not isinstance(session, str) or not session.strip():
        raise InputError("the hook payload has no session_id", field="session_id")
    # a lone surrogate (JSON allows "\ud800") can be neither stored nor named in an id: it
    # is kept as its escape, the same for every hook of that session
    return session.encode("utf-8", "backslashreplace").decode("utf-8")


def checked_capture(payload: dict[str, Any]) -> dict[str, Any]:
    """What a capture hook keeps in the spool: its session id and transcript path, checked
    now (a payload that can never be stored is refused here, not spooled)."""
    path = payload.get("transcript_path")
    if not isinstance(path, str) or not path or not Path(path).is_file():
        raise InputError(f"no transcript at {path!r}", field="transcript_path")
    return {"session_id": _session(payload), "transcript_path": str(Path(path).resolve())}


def read_payload(text: str) -> dict[str, Any]:
    try:
        payload = json.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise InputError(f"the hook input is not JSON: {exc}", field="stdin") from None
    if not isinstance(payload, dict):
        raise InputError("the hook input is not a JSON object", field="stdin")
    return payload
