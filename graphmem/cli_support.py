"""Helpers shared by the click commands."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar

import click

from graphmem.errors import GraphmemError

F = TypeVar("F", bound=Callable[..., Any])


def friendly_errors(func: F) -> F:
    """Show graphmem's own errors as one clear message (exit 1) instead of a traceback."""

    @wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return func(*args, **kwargs)
        except GraphmemError as exc:
            notes = "".join(f"\n  {note}" for note in getattr(exc, "__notes__", []))
            raise click.ClickException(f"{exc}{notes}") from exc

    return wrapper  # type: ignore[return-value]
