"""Tools that change what memory holds: forgetting and correcting."""

from __future__ import annotations

from mcp.server import MCPServer

from graphmem.client import Memory
from graphmem.serve.schemas import CorrectOut, ForgetOut
from graphmem.serve.tools.common import Allowed, guard


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    @server.tool()
    def forget_memory(conversation: str, space: str | None = None,
                      sessions: list[str] | None = None,
                      messages: list[str] | None = None,
                      whole_conversation: bool = False) -> ForgetOut:
        """Forget messages (their ids), sessions (their keys) or, with whole_conversation
        true, a whole conversation: they and everything derived from them are removed for
        good. An empty list forgets nothing."""
        return guard(lambda: ForgetOut.of(memory.forget(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, sessions=sessions, turns=messages,
            whole_conversation=whole_conversation)))

    @server.tool()
    def correct_message(turn_id: str, text: str, space: str | None = None,
                        keep_old: bool = True) -> CorrectOut:
        """Correct what a stored message says (its turn id comes from a search hit or
        list_messages); the old text is kept as a revision unless keep_old is false."""
        return guard(lambda: CorrectOut.of(memory.correct(  # type: ignore[no-any-return]
            allowed().resolve(space), turn_id, text, keep_old=keep_old)))
