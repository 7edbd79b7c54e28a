"""Helpers shared by the click commands."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import ValidationError
from pydantic_settings import SettingsError

from graphmem.config import Settings
from graphmem.errors import DatabaseUnavailable, GraphmemError

DATA = click.Path(exists=True, dir_okay=False, path_type=Path)  # an input file
OUT = click.Path(dir_okay=False, path_type=Path)  # a file a command writes

F = TypeVar("F", bound=Callable[..., Any])

REJECTED = 5  # exit code: ingest stored the valid records and rejected others
FELL_BACK = 6  # exit code: answer printed the best memory, not an LLM answer


def settings_of(ctx: click.Context) -> Settings:
    """The command's settings (read once per command line)."""
    return ctx.ensure_object(dict).setdefault("settings", Settings())  # type: ignore[no-any-return]


@contextmanager
def memory_of(ctx: click.Context, progress: bool = False) -> Iterator[Any]:
    from graphmem.client import Memory
    from graphmem.store import GraphStore

    settings = settings_of(ctx)
    store = GraphStore(settings)
    try:
        store.reach()  # Neo4j away is said at once, before any model loads
    except BaseException:
        store.close()
        raise
    with Memory(settings, store=store, progress=progress) as memory:
        yield memory


class Unreachable(click.ClickException):
    """Neo4j could not be used: its own exit code, so scripts can tell it apart."""

    exit_code = 4


def friendly_errors(func: F) -> F:
    """Show graphmem's own errors as one clear message instead of a traceback: exit 1, or
    the error's own code (4: Neo4j unreachable or refusing the credentials)."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GraphmemError as exc:
            notes = "".join(f"\n  {note}" for note in getattr(exc, "__notes__", []))
            failure = Unreachable if isinstance(exc, DatabaseUnavailable) else click.ClickException
            raise failure(f"{exc}{notes}") from exc
        except (ValidationError, SettingsError) as exc:  # GRAPHMEM_* variables: one line each
            raise click.ClickException(settings_problem(exc)) from exc

    return wrapper  # type: ignore[return-value]


def settings_problem(exc: ValidationError | SettingsError) -> str:
    """What is wrong with the GRAPHMEM_* settings, one line per problem, no traceback."""
    if isinstance(exc, SettingsError):
        field = str(exc).partition('field "')[2].partition('"')[0]
        name = f"GRAPHMEM_{field.upper()}" if field else "a GRAPHMEM_ variable"
        cause = exc.__cause__ or exc
        return f"settings: {name} cannot be read ({cause})"
    lines = [f"GRAPHMEM_{'_'.join(str(p) for p in e['loc']).upper()}: {e['msg']}"
             for e in exc.errors()]
    return "settings: " + "; ".join(lines)


def no_space(space: str) -> click.ClickException:
    return click.ClickException(f"there is no space {space!r} (see `graphmem spaces`)")


def require_space(memory: Any, space: str) -> None:
    """Asking a space that does not exist is an error at the command line, not an empty
    answer (the Python API returns an empty result; ``Memory.has_space`` tells)."""
    if not memory.has_space(space):
        raise no_space(space)


def finish_ingest(report: Any, usage: str = "") -> None:
    """Print an ingest report; exit with REJECTED when records were rejected."""
    for line in report.warnings:
        click.echo(f"warning: {line}", err=True)
    for line in report.errors:
        click.echo(f"rejected: {line}", err=True)
    click.echo(report.summary())
    if usage:
        click.echo(usage, err=True)
    if report.errors:
        click.echo(f"{len(report.errors)} records rejected, the others stored (exit code "
                   f"{REJECTED})", err=True)
        raise SystemExit(REJECTED)


def render(result: Any, sources: bool = False) -> str:
    """A result's context; with ``sources``, each included hit followed by its turn ids."""
    if not sources:
        return str(result.context)
    by_id = {hit.id: hit for hit in result.hits}
    return "\n".join(f"{by_id[i].text}\n    <- {', '.join(by_id[i].source_ids) or '-'}"
                     for i in result.included)
