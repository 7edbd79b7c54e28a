"""The ``graphmem`` command line: every command reads the same ``GRAPHMEM_*`` settings.

``commands`` is the root group and the commands that use the Python client; ``spaces`` what a
space holds and its changes (show, forget, history...); ``evaluate`` and ``train`` the
``graphmem eval`` group; ``serve`` the REST and MCP servers; ``llm`` the local LLM server;
``support`` what every command shares (error messages, settings, rendering); ``scripts`` the
options and commands the top-level ``ingest/`` and ``retrieve/`` scripts are made of. The
command line imports the other packages; none of them imports it.
"""

from graphmem.cli.commands import SAMPLE, STYLE, main

__all__ = ["SAMPLE", "STYLE", "main"]
