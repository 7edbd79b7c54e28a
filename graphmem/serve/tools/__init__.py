"""The MCP tools, one module per group of operations: remembering and recalling (``memory``),
what a space holds (``spaces``), changing what it holds (``edits``). Each group's
``register`` adds its tools to a server over one ``Memory``; ``common`` is what they share."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcp.server import MCPServer

from graphmem.serve.access import Spaces
from graphmem.serve.tools import edits, memory, spaces

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory

GROUPS = (memory, spaces, edits)


def register_all(server: MCPServer, store: Memory, allowed: Callable[[], Spaces]) -> None:
    """Every group's tools on ``server``, over ``store``, for the spaces ``allowed`` gives."""
    for group in GROUPS:
        group.register(server, store, allowed)


__all__ = ["GROUPS", "register_all"]
