"""Who changes a space: the surface and caller every change records in the space's history
(``GraphStore.change``). A leaf module: the servers mark their requests with it without
importing the database driver."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import NamedTuple


class Actor(NamedTuple):
    """Who changes a space: the surface (python, cli, rest, mcp, background) and, for the
    servers, a digest of the caller's bearer token (never the token)."""

    surface: str
    caller: str | None = None


_ACTOR: ContextVar[Actor] = ContextVar("graphmem_actor")
_PYTHON = Actor("python")  # changes made by code that said nothing else


@contextmanager
def acting(surface: str, caller: str | None = None) -> Iterator[None]:
    """Changes made inside are recorded in the spaces' history as made through
    ``surface`` by ``caller``."""
    token = _ACTOR.set(Actor(surface, caller))
    try:
        yield
    finally:
        _ACTOR.reset(token)


def current_actor() -> Actor:
    return _ACTOR.get(_PYTHON)


def set_actor(actor: Actor) -> None:
    """Who changes spaces from now on in this context (a CLI run, a worker process)."""
    _ACTOR.set(actor)
