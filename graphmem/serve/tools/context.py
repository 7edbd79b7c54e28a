"""What the MCP server offers besides its tools, so that what it advertises has something
behind it: resources a client can attach as context (the spaces it may read, a space's
conversations, a conversation's latest messages), and a prompt that asks a model to consult
memory before it answers. Each reads through the same ``Memory`` calls and the same space
rule as the tools (``Allowed``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import TYPE_CHECKING, TypeVar

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError

from graphmem.serve.schemas import SpaceOut
from graphmem.serve.tools.common import Allowed, guard

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory

LATEST = 20  # messages a conversation's resource shows
R = TypeVar("R")


def read(call: Callable[[], R]) -> R:
    """:func:`guard` for a resource: graphmem's refusal is the resource's error, its words
    kept (the SDK hides any other exception's)."""
    try:
        return guard(call)  # type: ignore[no-any-return]
    except ToolError as exc:
        raise ResourceError(str(exc)) from exc


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    @server.resource("graphmem://spaces", name="spaces", mime_type="application/json",
                     description="The memory spaces this server serves that hold something, "
                     "with their conversations and messages counted.")
    def spaces() -> str:
        rows = read(lambda: SpaceOut.rows(memory.spaces(), allowed()))
        return json.dumps([row.model_dump(mode="json") for row in rows])

    @server.resource("graphmem://spaces/{space}/conversations", name="conversations",
                     mime_type="application/json",
                     description="A space's conversations: sessions, messages, first and last "
                     "session. Percent-encode a '/' in the space (alice%2Fbank).")
    def conversations(space: str) -> str:
        found = read(lambda: memory.conversations(allowed().resolve(space)))
        return json.dumps([c.model_dump(mode="json") for c in found])

    @server.resource("graphmem://spaces/{space}/conversations/{conversation}",
                     name="conversation", mime_type="text/plain",
                     description=f"A conversation's latest {LATEST} messages, one a line, "
                     "oldest first. Percent-encode a '/' in the space or the conversation.")
    def conversation(space: str, conversation: str) -> str:
        page = read(lambda: memory.messages(allowed().resolve(space), conversation,
                                             limit=LATEST, newest_first=True))
        return "\n".join(f"{m.speaker}: {m.text}" for m in reversed(page.messages))

    @server.prompt(name="answer_from_memory",
                   description="Answer a question from what memory holds: search first, then "
                   "answer from the context found, saying when memory holds nothing.")
    def answer_from_memory(question: str, space: str | None = None) -> str:
        where = f" in space {space!r}" if space else ""
        return (f"Before you answer, call search_memory{where} with the question below and "
                "read the context it returns (dated lines, oldest first). Answer from that "
                "context; when it holds nothing that bears on the question, say so rather "
                f"than guess.\n\nQuestion: {question}")
