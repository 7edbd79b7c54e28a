"""The ``graphmem`` command line: every command reads the same ``GRAPHMEM_*`` settings.

``commands`` is the root group and the commands that use the Python client; ``spaces`` what a
space holds and its changes (show, forget, history...); ``evaluate`` and ``train`` the
``graphmem eval`` group; ``serve`` the REST and MCP servers; ``llm`` the local LLM server;
``support`` what every command shares (error messages, settings, rendering); ``scripts`` the
options and commands the top-level ``ingest/`` and ``retrieve/`` scripts are made of. The
command line imports the other packages; none of them imports it.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.cli.commands import SAMPLE, STYLE, main

__all__ = ["SAMPLE", "STYLE", "main", "run"]


def __getattr__(name: str) -> Any:
    if name not in ("SAMPLE", "STYLE", "main"):
        raise AttributeError(f"module 'graphmem.cli' has no attribute {name!r}")
    from graphmem.cli import commands

    return getattr(commands, name)


def run() -> None:
    """The ``graphmem`` command. ``graphmem hook ...`` goes straight to the hook, which a
    coding agent runs at every prompt, and ``graphmem mcp ...`` to the MCP server: each loads
    what it needs and nothing else."""
    if sys.argv[1:2] == ["hook"]:
        from graphmem.cli.hook import hook

        hook(args=sys.argv[2:], prog_name="graphmem hook")
    elif sys.argv[1:2] == ["mcp"]:
        # an agent that starts ``graphmem mcp`` waits for its handshake: the other commands
        # (and what they import) are not loaded first. Its tools name their surface themselves.
        import logging

        from graphmem.cli.serve import mcp

        logging.getLogger("neo4j").setLevel(logging.ERROR)
        mcp(args=sys.argv[2:], prog_name="graphmem mcp")
    else:
        from graphmem.cli.commands import main

        main()
