"""Which spaces a server may touch. A server is started for a set of spaces; a request that
names another one is refused with the same message whatever the transport."""

from __future__ import annotations

import hmac
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from graphmem.config import secret_digest
from graphmem.errors import ConfigurationError, GraphmemError
from graphmem.ids import check_space


class AccessError(GraphmemError):
    """A request named a space this server (or this token) may not use."""


@dataclass(frozen=True)
class Spaces:
    """The spaces a caller may use; the only one is the default when a request names none.
    A caller that may only read (``writes`` false: a read-only token) is refused every call
    that changes a space (:meth:`changing`)."""

    allowed: frozenset[str]
    writes: bool = True

    @classmethod
    def of(cls, names: Iterable[str], owner: str = "--space", writes: bool = True) -> Spaces:
        """The spaces ``names``; ``owner`` says where they were given, for the error."""
        spaces = frozenset(check_space(n.strip()) for n in names if n.strip())
        if not spaces:
            raise GraphmemError(f"{owner}: name at least one space the server may use")
        return cls(spaces, writes)

    def changing(self, space: str | None) -> str:
        """:meth:`resolve`, for a call that changes the space: refused to a read-only caller."""
        resolved = self.resolve(space)
        if not self.writes:
            raise AccessError(f"this token may read space {resolved!r} but not change it "
                              "(it is read-only)")
        return resolved

    def within(self, other: Spaces) -> Spaces:
        """What both allow: the spaces of both, and writes only if both write."""
        return Spaces(self.allowed & other.allowed, self.writes and other.writes)

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


def token_spaces(tokens: Mapping[str, list[str] | Mapping[str, Any]]) -> dict[str, Spaces]:
    """``GRAPHMEM_REST_TOKENS`` (the bearer tokens of both HTTP servers, REST and MCP)
    checked: at least one token, each long enough and with its spaces; a token given as
    ``{"spaces": [...], "read_only": true}`` may read its spaces but not change them."""
    if not tokens:
        raise ConfigurationError('no bearer tokens: set GRAPHMEM_REST_TOKENS, e.g. '
                                 '\'{"a-long-random-secret": ["alice"]}\'')
    for number, token in enumerate(tokens, 1):
        if len(token) < 16 or any(ch.isspace() or ord(ch) < 32 for ch in token):
            raise ConfigurationError(
                f"bearer token #{number} of GRAPHMEM_REST_TOKENS (digest {caller_id(token)}) "
                "must be 16 or more characters, none of them a space or a control character")
    return {token: Spaces.of(_names(grant), f"bearer token #{number} of GRAPHMEM_REST_TOKENS "
                                            f"(digest {caller_id(token)})",
                             writes=not _read_only(grant))
            for number, (token, grant) in enumerate(tokens.items(), 1)}


def _names(grant: list[str] | Mapping[str, Any]) -> list[str]:
    return list(grant["spaces"]) if isinstance(grant, Mapping) else grant


def _read_only(grant: list[str] | Mapping[str, Any]) -> bool:
    return isinstance(grant, Mapping) and grant.get("read_only") is True


def caller_id(token: str | bytes) -> str:
    """What the spaces' history records of a bearer token: a short digest, never the token."""
    return secret_digest(token)


def spaces_of(tokens: Mapping[str, Spaces], given: bytes | str) -> Spaces | None:
    """The spaces of the bearer token ``given``, or None when no token matches (every token
    is compared, in constant time)."""
    wanted = given.encode() if isinstance(given, str) else given
    found = None
    for token, spaces in tokens.items():
        if hmac.compare_digest(token.encode(), wanted):
            found = spaces
    return found
