"""Tools that change what memory holds: forgetting and correcting."""

from __future__ import annotations

from typing import TYPE_CHECKING

from mcp.server import MCPServer

from graphmem.errors import InputError
from graphmem.ids import turn_parts
from graphmem.serve.schemas import CorrectIn, CorrectOut, ForgetIn, ForgetOut
from graphmem.serve.tools.common import Allowed, guard, takes

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    @server.tool()
    @takes(ForgetIn, leave=ForgetIn.routing)
    def forget_memory(body: ForgetIn, conversation: str | None = None,
                      space: str | None = None, memory_ids: list[str] | None = None
                      ) -> ForgetOut:
        """Forget for good, with everything derived from it: the memories whose ids
        search_memory gave (memory_ids, from any conversation), or in one conversation its
        messages (their ids), sessions (their keys) or, with whole_conversation true, all
        of it. An empty list forgets nothing."""
        def run() -> ForgetOut:
            where = allowed().changing(space)
            if memory_ids is not None:
                if conversation is not None or body.sessions or body.messages \
                        or body.whole_conversation:
                    raise InputError("give memory_ids, or a conversation with what to "
                                     "forget in it, not both", field="memory_ids")
                return ForgetOut.of_many([memory.forget(where, key, turns=ids) for key, ids
                                          in by_conversation(where, memory_ids).items()])
            if conversation is None:
                raise InputError("name the conversation, or give memory_ids",
                                 field="conversation")
            return ForgetOut.of(memory.forget(where, conversation, **body.arguments()))
        return guard(run)  # type: ignore[no-any-return]

    @server.tool()
    @takes(CorrectIn)
    def correct_message(body: CorrectIn, space: str | None = None) -> CorrectOut:
        """Correct what a stored message says (its turn id comes from a search hit or
        list_messages); the old text is kept as a revision unless keep_old is false."""
        return guard(lambda: CorrectOut.of(memory.correct(  # type: ignore[no-any-return]
            allowed().changing(space), **body.arguments())))


def by_conversation(space: str, memory_ids: list[str]) -> dict[str, list[str]]:
    """Memory ids (Turn ids) as the message ids of each conversation they name."""
    found: dict[str, list[str]] = {}
    for i, given in enumerate(memory_ids):
        parts = turn_parts(space, given) if isinstance(given, str) else None
        if parts is None:
            raise InputError(f"{given!r} is no memory id of space {space!r} (search_memory "
                             "lists them)", field=f"memory_ids[{i}]")
        found.setdefault(parts[0], []).append(parts[1])
    return found
