"""Tools that show what memory holds: spaces, conversations, messages, any unit; and that
delete a space."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from mcp.server import MCPServer

from graphmem.errors import InputError
from graphmem.models import MessagePage, StoredConversation, StoredUnit
from graphmem.serve.schemas import SpaceOut
from graphmem.serve.tools.common import Allowed, guard

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    @server.tool()
    def list_spaces() -> list[SpaceOut]:
        """The memory spaces this server serves that hold something."""
        return guard(lambda: SpaceOut.rows(  # type: ignore[no-any-return]
            memory.spaces(), allowed()))

    @server.tool()
    def list_conversations(space: str | None = None) -> list[StoredConversation]:
        """The conversations memory holds, with their sessions and messages counted."""
        return guard(lambda: memory.conversations(  # type: ignore[no-any-return]
            allowed().resolve(space)))

    @server.tool()
    def list_messages(conversation: str, space: str | None = None,
                      since: datetime | None = None, limit: int = 100,
                      newest_first: bool = False, cursor: int | None = None) -> MessagePage:
        """One page of a conversation's stored messages (from sessions started at or after
        `since`, an ISO date and time); pass next_cursor for the next."""
        return guard(lambda: memory.messages(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, since=since, limit=limit,
            newest_first=newest_first, cursor=cursor))

    @server.tool()
    def get_unit(id: str, space: str | None = None) -> StoredUnit:
        """Any stored piece of memory by its id (from a search hit or a message), with the
        messages it comes from."""
        def run() -> StoredUnit:
            found = memory.unit(allowed().resolve(space), id)
            if found is None:
                raise InputError(f"no unit {id!r} in this space", field="id")
            return found
        return guard(run)  # type: ignore[no-any-return]

    @server.tool()
    def delete_space(space: str) -> bool:
        """Forget everything stored in a space (it must be one this server serves). Returns
        whether there was anything to forget."""
        return guard(lambda: memory.delete_space(allowed().changing(space)))  # type: ignore[no-any-return]
