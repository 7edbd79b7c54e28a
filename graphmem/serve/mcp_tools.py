"""The MCP server: tools that let an agent store messages, search and answer from memory, and
list or delete its spaces. Built on the official ``mcp`` SDK (``MCPServer``); every tool runs
the same ``Memory`` calls as the Python client, and refuses a space it was not started for.

Over HTTP the server takes the REST server's bearer tokens (``GRAPHMEM_REST_TOKENS``, each
with its spaces): a request without a known token is refused (401), and a caller may use the
spaces of its token that the server serves. Without tokens it listens on the loopback only.

    graphmem mcp --space alice                        # stdio, for a desktop MCP client
    graphmem mcp --space alice --transport http --port 8765   # streamable HTTP at /mcp
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mcp.server import MCPServer
from mcp.server.auth.middleware.auth_context import get_access_token
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import AnyHttpUrl

from graphmem.client import Memory
from graphmem.errors import GraphmemError
from graphmem.models import MessagePage, StoredConversation, StoredUnit
from graphmem.serve.access import AccessError, Spaces, caller_id, spaces_of
from graphmem.serve.schemas import (
    AddOut,
    AnswerOut,
    CorrectOut,
    ForgetOut,
    MessageIn,
    SearchOut,
    SpaceOut,
)
from graphmem.store import acting

INSTRUCTIONS = (
    "Long-term memory of conversations, stored in a Neo4j graph. Store each message you "
    "receive or send with add_messages; before answering something that may depend on the "
    "past, call search_memory and read the context it returns (dated lines, oldest first). "
    "Spaces separate users or agents: use the one you were given.")


def _guard(call: Any) -> Any:
    """graphmem's own errors become tool errors the model can read; others propagate. What
    the call changes is recorded as the MCP surface's, by the request's token if any."""
    token = get_access_token()
    try:
        with acting("mcp", caller_id(token.token) if token is not None else None):
            return call()
    except GraphmemError as exc:
        raise ToolError(str(exc)) from exc


class BearerTokens:
    """The SDK's token verifier over graphmem's static bearer tokens."""

    def __init__(self, tokens: Mapping[str, Spaces]) -> None:
        self.tokens = dict(tokens)

    async def verify_token(self, token: str) -> AccessToken | None:
        spaces = spaces_of(self.tokens, token)
        if spaces is None:
            return None
        return AccessToken(token=token, scopes=[], claims={"spaces": sorted(spaces.allowed)},
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
        return Spaces(spaces.allowed & mine.allowed)

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


def build_server(memory: Memory, spaces: Spaces,
                 tokens: Mapping[str, Spaces] | None = None) -> MCPServer:
    """An MCP server over ``memory`` that serves ``spaces`` only; with ``tokens`` (bearer
    token -> its spaces) every HTTP request must carry one, and may use its spaces only."""
    if tokens is None:
        server = MCPServer("graphmem", instructions=INSTRUCTIONS)
    else:  # the SDK's resource-server settings: graphmem issues its tokens itself, so no
        #    authorization server or metadata route is announced
        server = MCPServer("graphmem", instructions=INSTRUCTIONS,
                           token_verifier=BearerTokens(tokens),
                           auth=AuthSettings(issuer_url=AnyHttpUrl("http://127.0.0.1"),
                                             resource_server_url=None))
    allowed = caller_spaces(spaces, tokens)

    @server.tool()
    def add_messages(messages: list[MessageIn], conversation: str = "default",
                     space: str | None = None, session: str | None = None) -> AddOut:
        """Remember messages of a conversation, in the order they were said. They join the
        conversation's open session (a new one after 30 minutes of silence) and can be found
        by search_memory as soon as this returns."""
        return _guard(lambda: AddOut.of(memory.add_messages(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, [m.message() for m in messages],
            session=session)))

    @server.tool()
    def search_memory(question: str, space: str | None = None, strategy: str | None = None,
                      budget: int | None = None) -> SearchOut:
        """Find what memory holds about a question: the context (within `budget` tokens,
        default 1000) and the ranked pieces it is made of, with their dates and sources."""
        return _guard(lambda: SearchOut.of(memory.search(  # type: ignore[no-any-return]
            question, space=allowed().resolve(space), strategy=strategy, budget=budget)))

    @server.tool()
    def answer_question(question: str, space: str | None = None,
                        budget: int | None = None) -> AnswerOut:
        """Answer a question from memory with the server's LLM (when none answers, the best
        memory found is returned and `fallback` says why)."""
        return _guard(lambda: AnswerOut.of(memory.answer(  # type: ignore[no-any-return]
            question, space=allowed().resolve(space), budget=budget)))

    @server.tool()
    def list_spaces() -> list[SpaceOut]:
        """The memory spaces this server serves that hold something."""
        return _guard(lambda: SpaceOut.rows(  # type: ignore[no-any-return]
            memory.spaces(), allowed().allowed))

    @server.tool()
    def forget_memory(conversation: str, space: str | None = None,
                      sessions: list[str] | None = None,
                      messages: list[str] | None = None,
                      whole_conversation: bool = False) -> ForgetOut:
        """Forget messages (their ids), sessions (their keys) or, with whole_conversation
        true, a whole conversation: they and everything derived from them are removed for
        good. An empty list forgets nothing."""
        return _guard(lambda: ForgetOut.of(memory.forget(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, sessions=sessions, turns=messages,
            whole_conversation=whole_conversation)))

    @server.tool()
    def correct_message(turn_id: str, text: str, space: str | None = None,
                        keep_old: bool = True) -> CorrectOut:
        """Correct what a stored message says (its turn id comes from a search hit or
        list_messages); the old text is kept as a revision unless keep_old is false."""
        return _guard(lambda: CorrectOut.of(memory.correct(  # type: ignore[no-any-return]
            allowed().resolve(space), turn_id, text, keep_old=keep_old)))

    @server.tool()
    def list_conversations(space: str | None = None) -> list[StoredConversation]:
        """The conversations memory holds, with their sessions and messages counted."""
        return _guard(lambda: memory.conversations(  # type: ignore[no-any-return]
            allowed().resolve(space)))

    @server.tool()
    def list_messages(conversation: str, space: str | None = None, limit: int = 50,
                      newest_first: bool = False, cursor: int | None = None) -> MessagePage:
        """One page of a conversation's stored messages; pass next_cursor for the next."""
        return _guard(lambda: memory.messages(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, limit=limit, newest_first=newest_first,
            cursor=cursor))

    @server.tool()
    def get_unit(id: str, space: str | None = None) -> StoredUnit | None:
        """Any stored piece of memory by its id (from a search hit or a message), with the
        messages it comes from."""
        return _guard(lambda: memory.unit(allowed().resolve(space), id))  # type: ignore[no-any-return]

    @server.tool()
    def delete_space(space: str) -> bool:
        """Forget everything stored in a space (it must be one this server serves). Returns
        whether there was anything to forget."""
        return _guard(lambda: memory.delete_space(allowed().resolve(space)))  # type: ignore[no-any-return]

    return server
