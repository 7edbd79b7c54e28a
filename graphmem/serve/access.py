"""Which spaces a server may touch. A server is started for a set of spaces; a request that
names another one is refused with the same message whatever the transport."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graphmem.errors import GraphmemError
from graphmem.ingest.ids import check_space


class AccessError(GraphmemError):
    """A request named a space this server (or this token) may not use."""


@dataclass(frozen=True)
class Spaces:
    """The spaces a caller may use; the only one is the default when a request names none."""

    allowed: frozenset[str]

    @classmethod
    def of(cls, names: Iterable[str]) -> Spaces:
        spaces = frozenset(check_space(n.strip()) for n in names if n.strip())
        if not spaces:
            raise GraphmemError("name at least one space the server may use (--space)")
        return cls(spaces)

    def resolve(self, space: str | None) -> str:
        """``space`` when it is allowed; the only allowed one when it is None."""
        if space is None:
            if len(self.allowed) == 1:
                return next(iter(self.allowed))
            raise AccessError(f"name a space: this server serves {', '.join(sorted(self.allowed))}")
        if space not in self.allowed:
            raise AccessError(f"space {space!r} is not served here; allowed: "
                              f"{', '.join(sorted(self.allowed))}")
        return space
