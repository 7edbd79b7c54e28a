"""Google ADK's memory-service contract, as its own InMemoryMemoryService tests hold it
(google/adk-python tests/unittests/memory/test_in_memory_memory_service.py, each test below
naming the one it mirrors), run against graphmem's service on the real Neo4j. Where the
reference matches words and graphmem ranks by meaning (a query with no word in common may
still find a memory), the difference is listed in docs/integrations.md."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

from google.adk.events.event import Event
from google.adk.sessions.session import Session
from google.genai import types

from graphmem.client import Memory
from graphmem.integrations.adk import GraphmemMemoryService, default_space


def event(ident: str, author: str, text: str | None, at: float) -> Event:
    content = types.Content(parts=[types.Part(text=text)]) if text is not None else None
    return Event(id=ident, invocation_id=f"inv-{ident}", author=author, timestamp=at,
                 content=content)


def session(app: str, user: str, ident: str, *events: Event) -> Session:
    return Session(app_name=app, user_id=user, id=ident, last_update_time=1000,
                   events=list(events))


def stored(memory: Memory, app: str, user: str, conversation: str) -> list[str]:
    space = default_space(app, user)
    if not memory.has_space(space):
        return []
    return [m.id for m in memory.messages(space, conversation).messages]


def run(memory: Memory, body: Any) -> Any:
    try:
        return asyncio.run(body)
    finally:
        memory.flush()


def test_a_session_is_added_without_its_content_less_events(memory: Memory) -> None:
    """test_add_session_to_memory; test_add_session_with_no_events_to_memory."""
    app, user = f"app-{uuid.uuid4().hex[:8]}", "user"
    service = GraphmemMemoryService(memory)
    try:
        run(memory, service.add_session_to_memory(session(
            app, user, "session-1", event("e1a", "user", "The ADK is a great toolkit.", 1.0),
            event("e1b", "user", None, 2.0),
            event("e1c", "model", "I agree. The Agent Development Kit rocks!", 3.0))))
        assert stored(memory, app, user, "session-1") == ["e1a", "e1c"]
        run(memory, service.add_session_to_memory(session(app, user, "session-4")))  # no error
    finally:
        memory.delete_space(default_space(app, user))


def test_added_events_append_and_an_event_id_is_kept_once(memory: Memory) -> None:
    """test_add_events_to_memory_appends_without_replacing;
    test_add_events_to_memory_deduplicates_event_ids;
    test_add_events_to_memory_without_session_id_uses_default_bucket."""
    app, user = f"app-{uuid.uuid4().hex[:8]}", "user"
    service = GraphmemMemoryService(memory)
    try:
        run(memory, service.add_session_to_memory(session(
            app, user, "s1", event("e1a", "user", "The deploy is ready.", 1.0),
            event("e1c", "model", "Great, ship it.", 2.0))))
        run(memory, service.add_events_to_memory(app_name=app, user_id=user, session_id="s1",
                                                 events=[event("e1d", "user", "A new fact.",
                                                               3.0)]))
        run(memory, service.add_events_to_memory(
            app_name=app, user_id=user, session_id="s1",
            events=[event("e1a", "user", "Updated duplicate text.", 4.0)]))
        assert stored(memory, app, user, "s1") == ["e1a", "e1c", "e1d"]
        run(memory, service.add_events_to_memory(app_name=app, user_id=user,
                                                 events=[event("e9", "user", "Loose.", 5.0)]))
        assert stored(memory, app, user, "adk") == ["e9"]
    finally:
        memory.delete_space(default_space(app, user))


def test_search_finds_the_users_memories_and_only_theirs(memory: Memory) -> None:
    """test_search_memory_simple_match; test_search_memory_is_scoped_by_user;
    test_search_memory_does_not_collide_on_slash_in_identifiers."""
    app = f"app-{uuid.uuid4().hex[:8]}"
    service = GraphmemMemoryService(memory)
    pairs = [(app, "test-user"), (app, "another-user"), (f"{app}/other-user", "user")]
    try:
        run(memory, service.add_session_to_memory(session(
            app, "test-user", "s1", event("p1", "user", "I like to code in Python.", 1.0))))
        run(memory, service.add_session_to_memory(session(
            app, "another-user", "s3", event("x1", "user", "This is a secret.", 2.0))))
        run(memory, service.add_session_to_memory(session(
            f"{app}/other-user", "user", "s5", event("y1", "user", "A slashed secret.", 3.0))))
        found = run(memory, service.search_memory(app_name=app, user_id="test-user",
                                                  query="Python"))
        [entry] = found.memories
        assert entry.content.parts[0].text == "I like to code in Python."
        assert entry.author == "user"
        mine = run(memory, service.search_memory(app_name=app, user_id="test-user",
                                                 query="secret"))
        assert all("secret" not in (m.content.parts[0].text or "") for m in mine.memories)
        theirs = run(memory, service.search_memory(app_name=app, user_id="another-user",
                                                   query="secret"))
        assert [m.content.parts[0].text for m in theirs.memories] == ["This is a secret."]
        aliased = run(memory, service.search_memory(app_name=app, user_id="other-user/user",
                                                    query="secret"))
        assert not aliased.memories
    finally:
        for pair in pairs:
            memory.delete_space(default_space(*pair))


def test_an_entry_deleted_by_its_id_is_gone(memory: Memory) -> None:
    """BaseMemoryService.delete_memory (no reference test: the in-memory service has none)."""
    app, user = f"app-{uuid.uuid4().hex[:8]}", "user"
    service = GraphmemMemoryService(memory)
    try:
        run(memory, service.add_session_to_memory(session(
            app, user, "s1", event("k1", "user", "My locker code is 3317.", 1.0))))
        [entry] = run(memory, service.search_memory(app_name=app, user_id=user,
                                                    query="locker code")).memories
        run(memory, service.delete_memory(app_name=app, user_id=user, memory_id=entry.id))
        assert stored(memory, app, user, "s1") == []
        again = run(memory, service.search_memory(app_name=app, user_id=user,
                                                  query="locker code"))
        assert not again.memories
    finally:
        memory.delete_space(default_space(app, user))
