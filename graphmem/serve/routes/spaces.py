"""What a space holds: the spaces of a token, conversations, messages, any unit, history."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query

from graphmem import __version__
from graphmem.admin import MAX_PAGE
from graphmem.errors import InputError, NotFoundError
from graphmem.models import MessagePage, SpaceChange, StoredConversation, StoredUnit
from graphmem.serve.deps import Caller, Conversation, Memories
from graphmem.serve.errors_out import ERRORS
from graphmem.serve.schemas import KEY, Deleted, SpaceOut

router = APIRouter(prefix="/v1", responses=ERRORS)
# a page's size as the schema states it; Memory's own check refuses the rest, naming ``limit``
Page = Annotated[int, Query(json_schema_extra={"minimum": 1, "maximum": MAX_PAGE})]
Key = Annotated[str, Query(json_schema_extra=KEY)]  # declared; graphmem checks it
# an ISO 8601 time, read here so that a number (which pydantic takes for seconds since 1970)
# is refused as the schema's date-time says
# a page's cursor, an integer Neo4j can hold (a next_cursor, given back)
Cursor = Annotated[int | None, Query(json_schema_extra={"minimum": -2**63,
                                                        "maximum": 2**63 - 1})]
Since = Annotated[str | None, Query(json_schema_extra={"format": "date-time"})]


@router.get("/health")
def health() -> dict[str, str]:
    return {"status": "ok", "version": __version__}


@router.get("/spaces")
def spaces(who: Caller, memory: Memories) -> list[SpaceOut]:
    """The spaces this token may use that hold something."""
    return SpaceOut.rows(memory.spaces(), who)


@router.delete("/spaces/{space}")
def delete_space(space: str, who: Caller, memory: Memories) -> Deleted:
    """Forget everything stored in a space."""
    return Deleted(deleted=memory.delete_space(who.changing(space)))


@router.get("/spaces/{space}/conversations")
def conversations(space: str, who: Caller, memory: Memories) -> list[StoredConversation]:
    """The conversations a space holds: sessions, messages, first and last session."""
    return memory.conversations(who.resolve(space))


@router.get("/spaces/{space}/conversations/{conversation}/messages")
def messages(space: str, conversation: Conversation, who: Caller, memory: Memories,
             since: Since = None, limit: Page = 100, newest_first: bool = False,
             cursor: Cursor = None) -> MessagePage:
    """One page of a conversation's messages (``next_cursor`` gives the next page); a
    conversation the space does not hold (never written, forgotten, or its space deleted) is
    404."""
    mine = who.resolve(space)
    page = memory.messages(mine, conversation, since=_time(since), limit=limit,
                           newest_first=newest_first, cursor=cursor)
    if not page.messages and conversation not in {
            c.conversation for c in memory.conversations(mine)}:
        raise NotFoundError(f"space {space!r} holds no conversation {conversation!r}",
                            field="conversation")
    return page


@router.get("/spaces/{space}/messages")
def messages_of(space: str, conversation: Key, who: Caller, memory: Memories,
                since: Since = None, limit: Page = 100, newest_first: bool = False,
                cursor: Cursor = None) -> MessagePage:
    """The same page, the conversation given as a query parameter."""
    return messages(space, conversation, who, memory, since, limit, newest_first, cursor)


@router.get("/spaces/{space}/units/{unit_id:path}")
def unit(space: str, unit_id: str, who: Caller, memory: Memories) -> StoredUnit:
    """Any stored node by its id (URL-encoded), with the turns it comes from."""
    found = memory.unit(who.resolve(space), unit_id)
    if found is None:
        raise NotFoundError(f"space {space!r} holds no unit {unit_id!r}", field="unit_id")
    return found


@router.get("/spaces/{space}/history")
def history(space: str, who: Caller, memory: Memories, limit: Page = 100) -> list[SpaceChange]:
    """What changed in the space, newest first (kinds and counts, never content)."""
    return memory.history(who.resolve(space), limit=limit)


def _time(given: str | None) -> datetime | None:
    if given is None:
        return None
    try:
        return datetime.fromisoformat(given)
    except ValueError:
        raise InputError(f"expected an ISO 8601 time (2024-04-02T18:00:00Z), got {given!r}",
                         field="since") from None
