"""The commands about whole spaces: list, delete, back up to a file, restore from one."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from graphmem.cli_support import friendly_errors, memory_of, no_space


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly_errors
def spaces(ctx: click.Context, as_json: bool) -> None:
    """List the memory spaces and what they hold."""
    with memory_of(ctx) as memory:
        rows = memory.spaces()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(f"{row['space']}\t{row['conversations']} conversations\t"
                   f"{row['sessions']} sessions\t{row['turns']} turns")


@click.command()
@click.option("--space", required=True)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
@friendly_errors
def delete(ctx: click.Context, space: str, yes: bool) -> None:
    """Remove everything of one space, and nothing else. Without --yes it asks, and refuses
    when it cannot ask (no terminal: cron, pipes)."""
    if not yes:
        if not sys.stdin.isatty():
            raise click.UsageError(f"not deleting space {space!r}: there is no terminal to "
                                   "confirm on; add --yes to delete without asking")
        click.confirm(f"Delete everything stored in space {space!r}?", abort=True)
    with memory_of(ctx) as memory:
        if not memory.delete_space(space):
            raise no_space(space)
    click.echo(f"deleted space {space!r}")


@click.command("export")
@click.option("--space", required=True)
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The file to write (gzip'd JSON lines; .jsonl.gz by convention).")
@click.pass_context
@friendly_errors
def export_command(ctx: click.Context, space: str, out: Path) -> None:
    """Back up one space to a file: every node, relationship and property, embeddings
    exact. Restore it with `graphmem import`."""
    with memory_of(ctx) as memory:
        if not memory.has_space(space):
            raise no_space(space)
        click.echo(memory.export_space(space, out).summary("exported"))


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True,
              help="Overwrite the space if it exists (in the same transaction).")
@click.pass_context
@friendly_errors
def import_command(ctx: click.Context, file: Path, replace: bool) -> None:
    """Restore a space from a file of `graphmem export`, under the space id it came from.
    The whole file is checked first and stored in one transaction: a bad file or a failure
    changes nothing."""
    with memory_of(ctx) as memory:
        click.echo(memory.import_space(file, replace=replace).summary("restored"))


SPACE_COMMANDS = [spaces, delete, export_command, import_command]
