"""The server commands: ``graphmem mcp`` (MCP, stdio or streamable HTTP) and ``graphmem serve``
(REST). Their libraries come with the ``server`` extra and load only when a server starts."""

from __future__ import annotations

import socket
import threading
from contextlib import nullcontext
from typing import TYPE_CHECKING, cast

import click

from graphmem.cli.support import friendly_errors
from graphmem.config import Settings
from graphmem.errors import ConfigurationError
from graphmem.serve.later import LaterMemory

if TYPE_CHECKING:
    from graphmem.client import Memory

LOOPBACK = ("127.0.0.1", "localhost", "::1")


def free_port_or_say(host: str, port: int) -> None:
    """A clear error, before the server starts, when ``host:port`` cannot be listened on."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind((host, port))
        except OSError as exc:
            raise click.ClickException(f"cannot listen on {host}:{port} ({exc.strerror}): "
                                       "another server may be using the port; choose one "
                                       "with --port") from None


@click.command()
@click.option("--space", "spaces", multiple=True, required=True,
              help="A space the server may use (repeat for more); a call naming another is "
                   "refused. With one, calls may leave the space out.")
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio",
              show_default=True, help="stdio for a local MCP client; http: streamable HTTP.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="HTTP: the address to listen on; any but the loopback needs bearer tokens.")
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True)
@click.option("--allow-host", "allow_hosts", multiple=True, metavar="HOST[:PORT]",
              help="HTTP: a Host header to answer besides the loopback's (repeat for more; "
                   "e.g. memory.example.com:*); browsers' Origins must match one too.")
@friendly_errors
def mcp(spaces: tuple[str, ...], transport: str, host: str, port: int,
        allow_hosts: tuple[str, ...]) -> None:
    """Serve memory to agents over MCP: tools add_messages, search_memory, answer_question,
    list_spaces, list_conversations, list_messages, get_unit, forget_memory, correct_message
    and delete_space (HTTP endpoint: http://HOST:PORT/mcp). Over HTTP every
    request needs a bearer token of GRAPHMEM_REST_TOKENS (the REST server's) when tokens are
    set, and may use the spaces of its token; without tokens, only the loopback is served."""
    from graphmem.serve.access import Spaces, token_spaces

    try:
        from graphmem.serve.mcp_tools import after_handshake, build_server, http_app
    except ImportError as exc:
        raise click.ClickException("the MCP server needs the 'server' extra: "
                                   "pip install 'graphmem[server]'") from exc

    allowed = Spaces.of(spaces)
    settings = Settings()
    tokens = None
    if transport == "http":
        tokens = token_spaces(settings.rest_tokens) if settings.rest_tokens else None
        if tokens is None and host not in LOOPBACK:
            raise ConfigurationError(
                f"MCP over HTTP on {host} would let anyone who reaches the port use "
                f"{', '.join(sorted(allowed.allowed))}: set GRAPHMEM_REST_TOKENS (bearer "
                "tokens and their spaces) or listen on 127.0.0.1")
        free_port_or_say(host, port)  # before the models load
    # the client, the driver and the models load on a thread once the server is built: an
    # agent gets its handshake and tool list at once, and a call that needs the client
    # before it is ready waits for it (made once, under a lock)
    memory = LaterMemory(settings)
    try:
        guarded = " (bearer tokens required)" if tokens else ""
        click.echo(f"graphmem MCP server for {', '.join(sorted(allowed.allowed))}{guarded}",
                   err=True)
        server = build_server(cast("Memory", memory), allowed, tokens)
        if transport == "stdio":
            # the agent that started this process waits for the handshake now: answer it
            # with nothing else running, then load while it reads the tool list
            after_handshake(server, lambda: warm_in_background(memory))
            server.run("stdio")
        else:  # a server that waits for its clients loads at once
            warm_in_background(memory)
            import uvicorn

            uvicorn.run(http_app(server, host, allow_hosts), host=host, port=port,
                        log_level="warning")
    finally:
        memory.close()


def warm_in_background(memory: Memory | LaterMemory) -> threading.Thread:
    """Load the models a search uses on a thread of their own, and say when they are in."""

    def warm() -> None:
        try:
            click.echo(f"graphmem: models loaded in {memory.warm_up():.1f} s", err=True)
        except Exception as exc:  # the call that needs them reports it to its caller
            click.echo(f"graphmem: loading the models failed ({exc}); calls will say why",
                       err=True)

    thread = threading.Thread(target=warm, name="graphmem-warm-up", daemon=True)
    thread.start()
    return thread


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True)
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True)
@click.option("--search-processes", type=click.IntRange(0, 64), default=None,
              help="Processes that run the searches (GRAPHMEM_SEARCH_PROCESSES; 0: in the "
                   "server's own process; default: half the cores, 1 to 4).")
@friendly_errors
def serve(host: str, port: int, search_processes: int | None) -> None:
    """Serve memory over HTTP (REST, OpenAPI docs at /docs). Bearer tokens and their spaces
    come from GRAPHMEM_REST_TOKENS, e.g. '{"a-long-random-secret": ["alice"]}'."""
    settings = Settings()
    if search_processes is not None:
        settings = settings.model_copy(update={"search_processes": search_processes})
    try:
        import uvicorn

        from graphmem.serve.rest import build_app
    except ImportError as exc:
        raise click.ClickException("the REST server needs the 'server' extra: "
                                   "pip install 'graphmem[server]'") from exc
    from graphmem.client import Memory
    from graphmem.serve.access import token_spaces
    from graphmem.serve.search_processes import SearchProcesses, default_count
    from graphmem.serve.warm import warm_neo4j

    tokens = token_spaces(settings.rest_tokens)
    free_port_or_say(host, port)  # before the models load
    count = default_count() if settings.search_processes is None else settings.search_processes
    with Memory(settings) as memory:
        searching: list[SearchProcesses] = []
        # the search processes load their models while this one loads its own
        starting = threading.Thread(target=lambda: searching.append(
            SearchProcesses(settings, count)), name="graphmem-search-processes", daemon=True)
        if count:
            starting.start()
        ready = memory.warm_up()
        if count:
            starting.join()
            if not searching:
                raise click.ClickException("the search processes did not start (see above); "
                                           "--search-processes 0 searches in this process")
        with searching[0] if searching else nullcontext() as searcher:
            spaces = sorted({s for t in tokens.values() for s in t.allowed})
            where = ("this process" if not count else "a process of their own" if count == 1
                     else f"{count} processes of their own")
            click.echo(f"graphmem REST server for {', '.join(spaces)} at http://{host}:{port} "
                       f"(docs at /docs; models loaded in {ready:.1f} s; searches in "
                       f"{where})",
                       err=True)
            app = build_app(memory, tokens, int(settings.rest_max_request_mb * 2**20),
                            searcher)
            # Neo4j plans a search's statements at the first one: that one now, beside serving
            def warm() -> None:
                took = warm_neo4j(memory, searcher or memory, spaces)
                if took is not None:
                    click.echo(f"graphmem: Neo4j warmed by one search in {took:.1f} s", err=True)

            threading.Thread(target=warm, name="graphmem-warm-neo4j", daemon=True).start()
            uvicorn.run(app, host=host, port=port, log_level="warning")


@click.command()
@click.option("--space", "spaces", multiple=True, metavar="SPACE",
              help="A space to open (repeat for more); default: every space that holds "
                   "something now.")
@click.option("--port", type=click.IntRange(1, 65535), default=8001, show_default=True)
@friendly_errors
def console(spaces: tuple[str, ...], port: int) -> None:
    """Open the console (a page in your browser: spaces, conversations, search with why each
    piece was recalled, forget, history) on 127.0.0.1 only, with a bearer token made for
    this run, printed once. `graphmem serve` serves the same page at /console to its own
    tokens."""
    import secrets

    import uvicorn

    from graphmem.client import Memory
    from graphmem.serve.access import Spaces
    from graphmem.serve.rest import build_app

    settings = Settings()
    free_port_or_say("127.0.0.1", port)
    with Memory(settings) as memory:
        names = list(spaces) or [row["space"] for row in memory.spaces()]
        if not names:
            raise ConfigurationError("no space holds anything yet: ingest or add messages "
                                     "first (or name one with --space)")
        token = secrets.token_urlsafe(24)
        app = build_app(memory, {token: Spaces.of(names)},
                        int(settings.rest_max_request_mb * 2**20))
        memory.warm_up()
        click.echo(f"graphmem console for {', '.join(sorted(names))}: "
                   f"http://127.0.0.1:{port}/console\n  bearer token (this run only): {token}",
                   err=True)
        uvicorn.run(app, host="127.0.0.1", port=port, log_level="warning")
