"""The MCP tools, one module per group of operations: remembering and recalling (``memory``),
what a space holds (``spaces``), changing what it holds (``edits``). Each group's
``register`` adds its tools to a server over one ``Memory``; ``common`` is what they share;
``context`` adds the resources and the prompt the server advertises."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from mcp.server import MCPServer
from mcp.types import ToolAnnotations

from graphmem.serve.access import Spaces
from graphmem.serve.tools import context, edits, memory, spaces
from graphmem.serve.tools.common import tighten

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory

GROUPS = (memory, spaces, edits)

# what each tool does to memory, as MCP clients read it (a client may ask before a destructive
# call, run read-only ones freely); every tool is named here (tests/integration/test_mcp.py)
_READ = ToolAnnotations(read_only_hint=True, open_world_hint=False)
ANNOTATIONS = {
    "search_memory": _READ, "list_spaces": _READ, "list_conversations": _READ,
    "list_messages": _READ, "get_unit": _READ,
    # it reads memory and asks the configured LLM, which is outside the server
    "answer_question": ToolAnnotations(read_only_hint=True, open_world_hint=True),
    # a message sent again by its id changes nothing
    "add_messages": ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                    idempotent_hint=True, open_world_hint=False),
    "forget_memory": ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                     idempotent_hint=True, open_world_hint=False),
    "correct_message": ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                       idempotent_hint=False, open_world_hint=False),
    "delete_space": ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                    idempotent_hint=True, open_world_hint=False),
}


def register_all(server: MCPServer, store: Memory, allowed: Callable[[], Spaces]) -> None:
    """Every group's tools on ``server``, over ``store``, for the spaces ``allowed`` gives;
    each with its annotations, and arguments checked strictly (:func:`common.tighten`)."""
    for group in GROUPS:
        group.register(server, store, allowed)
    tighten(server, ANNOTATIONS)
    context.register(server, store, allowed)  # resources and a prompt: no tools


__all__ = ["ANNOTATIONS", "GROUPS", "register_all"]
