"""The MCP tools, one module per group of operations: remembering and recalling (``memory``),
what a space holds (``spaces``), changing what it holds (``edits``). Each group's
``register`` adds its tools to a server over one ``Memory``; ``common`` is what they share."""

from collections.abc import Callable

from mcp.server import MCPServer

from graphmem.client import Memory
from graphmem.serve.access import Spaces
from graphmem.serve.tools import edits, memory, spaces

GROUPS = (memory, spaces, edits)


def register_all(server: MCPServer, store: Memory, allowed: Callable[[], Spaces]) -> None:
    """Every group's tools on ``server``, over ``store``, for the spaces ``allowed`` gives."""
    for group in GROUPS:
        group.register(server, store, allowed)


__all__ = ["GROUPS", "register_all"]
