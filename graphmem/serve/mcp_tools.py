"""The MCP server: tools that let an agent store messages, search and answer from memory, and
list or delete its spaces. Built on the official ``mcp`` SDK (``MCPServer``); every tool runs
the same ``Memory`` calls as the Python client, and refuses a space it was not started for.

    graphmem mcp --space alice                        # stdio, for a desktop MCP client
    graphmem mcp --space alice --transport http --port 8765   # streamable HTTP at /mcp
"""

from __future__ import annotations

from typing import Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from graphmem.client import Memory
from graphmem.errors import GraphmemError
from graphmem.serve.access import Spaces
from graphmem.serve.schemas import AddOut, AnswerOut, MessageIn, SearchOut, SpaceOut

INSTRUCTIONS = (
    "Long-term memory of conversations, stored in a Neo4j graph. Store each message you "
    "receive or send with add_messages; before answering something that may depend on the "
    "past, call search_memory and read the context it returns (dated lines, oldest first). "
    "Spaces separate users or agents: use the one you were given.")


def _guard(call: Any) -> Any:
    """graphmem's own errors become tool errors the model can read; others propagate."""
    try:
        return call()
    except GraphmemError as exc:
        raise ToolError(str(exc)) from exc


def build_server(memory: Memory, spaces: Spaces) -> MCPServer:
    """An MCP server over ``memory`` that serves ``spaces`` only."""
    server = MCPServer("graphmem", instructions=INSTRUCTIONS)

    @server.tool()
    def add_messages(messages: list[MessageIn], conversation: str = "default",
                     space: str | None = None, session: str | None = None) -> AddOut:
        """Remember messages of a conversation, in the order they were said. They join the
        conversation's open session (a new one after 30 minutes of silence) and can be found
        by search_memory as soon as this returns."""
        return _guard(lambda: AddOut.of(memory.add_messages(  # type: ignore[no-any-return]
            spaces.resolve(space), conversation, [m.message() for m in messages],
            session=session)))

    @server.tool()
    def search_memory(question: str, space: str | None = None, strategy: str | None = None,
                      budget: int | None = None) -> SearchOut:
        """Find what memory holds about a question: the context (within `budget` tokens,
        default 1000) and the ranked pieces it is made of, with their dates and sources."""
        return _guard(lambda: SearchOut.of(memory.search(  # type: ignore[no-any-return]
            question, space=spaces.resolve(space), strategy=strategy, budget=budget)))

    @server.tool()
    def answer_question(question: str, space: str | None = None,
                        budget: int | None = None) -> AnswerOut:
        """Answer a question from memory with the server's LLM (when none answers, the best
        memory found is returned and `fallback` says why)."""
        return _guard(lambda: AnswerOut.of(memory.answer(  # type: ignore[no-any-return]
            question, space=spaces.resolve(space), budget=budget)))

    @server.tool()
    def list_spaces() -> list[SpaceOut]:
        """The memory spaces this server serves that hold something."""
        return SpaceOut.rows(_guard(memory.spaces), spaces.allowed)

    @server.tool()
    def delete_space(space: str) -> bool:
        """Forget everything stored in a space (it must be one this server serves). Returns
        whether there was anything to forget."""
        return _guard(lambda: memory.delete_space(spaces.resolve(space)))  # type: ignore[no-any-return]

    return server
