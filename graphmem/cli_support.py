"""Helpers shared by the click commands."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from graphmem.errors import DatabaseUnavailable, GraphmemError

F = TypeVar("F", bound=Callable[..., Any])


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

    return wrapper  # type: ignore[return-value]
