"""The MCP server: tools that let an agent store messages, search and answer from memory, and
list or delete its spaces. Built on the official ``mcp`` SDK (``MCPServer``); every tool runs
the same ``Memory`` calls as the Python client, and refuses a space it was not started for.
This module builds the server (its tokens, hosts and spaces); the tools are in ``tools/``, a
module per group.

Over HTTP the server takes the REST server's bearer tokens (``GRAPHMEM_REST_TOKENS``, each
with its spaces): a request without a known token is refused (401), and a caller may use the
spaces of its token that the server serves. Without tokens it listens on the loopback only.

    graphmem mcp --space alice                        # stdio, for a desktop MCP client
    graphmem mcp --space alice --transport http --port 8765   # streamable HTTP at /mcp
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from importlib.metadata import version
from typing import TYPE_CHECKING, Any

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

from graphmem.serve.access import AccessError, Spaces, spaces_of
from graphmem.serve.tools import register_all

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory

VERSION = version("graphmem")
INSTRUCTIONS = (
    "Long-term memory of conversations, stored in a Neo4j graph. Store each message you "
    "receive or send with add_messages; before answering something that may depend on the "
    "past, call search_memory and read the context it returns (dated lines, oldest first). "
    "Spaces separate users or agents: use the one you were given.")


class BearerTokens:
    """The SDK's token verifier over graphmem's static bearer tokens."""

    def __init__(self, tokens: Mapping[str, Spaces]) -> None:
        self.tokens = dict(tokens)

    async def verify_token(self, token: str) -> AccessToken | None:
        spaces = spaces_of(self.tokens, token)
        if spaces is None:
            return None
        return AccessToken(token=token, scopes=[], claims={"spaces": sorted(spaces.allowed),
                                                       "writes": spaces.writes},
                           client_id=hashlib.sha256(token.encode()).hexdigest()[:16])


def caller_spaces(spaces: Spaces, tokens: Mapping[str, Spaces] | None) -> Callable[[], Spaces]:
    """What the caller of a tool may use: ``spaces``, and with tokens only those of the
    request's token among them."""
    def allowed() -> Spaces:
        if tokens is None:
            return spaces
        token = get_access_token()
        mine = None if token is None else spaces_of(tokens, token.token)
        if mine is None:
            raise AccessError("a valid bearer token is required")
        return spaces.within(mine)

    return allowed


def http_app(server: MCPServer, host: str, extra_hosts: Sequence[str] = ()) -> Any:
    """The streamable-HTTP app of ``server`` (at /mcp), answering only requests whose Host is
    the loopback's or one of ``extra_hosts`` and whose Origin, when a browser sends one, is
    of those hosts (no DNS rebinding, whatever address it listens on)."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*"]
    for name in extra_hosts:  # a name without a port: on its default port or any other
        hosts += [name] if ":" in name else [name, f"{name}:*"]
    security = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts,
        allowed_origins=[f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")])
    return server.streamable_http_app(transport_security=security, host=host)


class AfterHandshake:
    """Middleware that calls ``start`` once, at the first message after a client's
    ``initialize`` (its ``notifications/initialized``, or any request): the server answers
    the handshake with nothing else running, then loads the client and its models while the
    agent reads the tool list (``graphmem mcp``)."""

    def __init__(self, start: Callable[[], object]) -> None:
        self.start: Callable[[], object] | None = start

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        if self.start is not None and ctx.method != "initialize":
            start, self.start = self.start, None
            start()
        return await call_next(ctx)


def after_handshake(server: MCPServer, start: Callable[[], object]) -> None:
    """Run ``start`` once a client has finished its handshake (:class:`AfterHandshake`)."""
    server.middleware.append(AfterHandshake(start))


def build_server(memory: Memory, spaces: Spaces,
                 tokens: Mapping[str, Spaces] | None = None) -> MCPServer:
    """An MCP server over ``memory`` that serves ``spaces`` only; with ``tokens`` (bearer
    token -> its spaces) every HTTP request must carry one, and may use its spaces only."""
    if tokens is None:
        server = MCPServer("graphmem", instructions=INSTRUCTIONS, version=VERSION)
    else:  # the SDK's resource-server settings: graphmem issues its tokens itself, so no
        #    authorization server or metadata route is announced
        server = MCPServer("graphmem", instructions=INSTRUCTIONS, version=VERSION,
                           token_verifier=BearerTokens(tokens),
                           auth=AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"),
                                             resource_server_url=None))
    register_all(server, memory, caller_spaces(spaces, tokens))
    return server
