"""What the top-level ``ingest/`` and ``retrieve/`` scripts share: connection options that
point them at any Neo4j instance, and the click commands they are made of.

Each script is a few lines over this module, so that a user can read it, copy it and run it
with ``python ingest/locomo.py FILE --space S --uri neo4j+s://...``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import click

from graphmem.cli.support import finish_ingest, friendly_errors
from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.models import SearchResult
from graphmem.retrieve.registry import strategy_names


def connection_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """--uri, --user, --password and --database, each overriding its GRAPHMEM_* setting."""
    for flag, setting in reversed([("--uri", "neo4j_uri"), ("--user", "neo4j_user"),
                                   ("--password", "neo4j_password"),
                                   ("--database", "neo4j_database")]):
        func = click.option(flag, setting, default=None,
                            help=f"Overrides GRAPHMEM_{setting.upper()}.")(func)
    return func


def open_memory(**connection: str | None) -> Memory:
    """A client for the settings, with the connection options that were given."""
    chosen = {name: value for name, value in connection.items() if value is not None}
    return Memory(Settings(**chosen))  # type: ignore[arg-type]


def ingest_command(fmt: str, doc: str) -> click.Command:
    """``SCRIPT FILE --space S``: store a file of format ``fmt`` into a space."""

    @click.command(help=doc)
    @click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
    @click.option("--space", required=True, help="The memory space (tenant) to store into.")
    @click.option("--layers", default=None, metavar="NAMES",
                  help="Derived layers, comma-separated (default: GRAPHMEM_INGEST_LAYERS).")
    @click.option("--skip-invalid", is_flag=True, help="Store the valid records, list the rest.")
    @connection_options
    @friendly_errors
    def command(file: Path, space: str, layers: str | None, skip_invalid: bool,
                **connection: str | None) -> None:
        with open_memory(**connection) as memory:
            report = memory.ingest(file, space=space, format=fmt,  # type: ignore[arg-type]
                                   layers=layers, skip_invalid=skip_invalid)
        finish_ingest(report)

    return command


def search_many(memory: Memory, question: str, space: str, strategies: Sequence[str],
                budget: int) -> list[SearchResult]:
    """The same question, space and budget through several strategies."""
    return [memory.search(question, space=space, strategy=name, budget=budget)
            for name in strategies]


STRATEGY = click.Choice(strategy_names())
