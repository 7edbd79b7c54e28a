"""The ``graphmem`` root group and the commands that use the Python client."""

from __future__ import annotations

import logging
import textwrap
import time
from pathlib import Path

import click

from graphmem.cli.support import (
    FELL_BACK,
    finish_ingest,
    friendly_errors,
    memory_of,
    render,
    require_space,
    settings_of,
)
from graphmem.ingest.inputs.loaders import FORMATS
from graphmem.providers.llm import usage_table
from graphmem.retrieve.registry import RECIPES, RECOMMENDED, strategy_names
from graphmem.telemetry import acting

SAMPLE = Path(__file__).parents[1] / "data" / "sample_conversation.json"
STYLE = Path(__file__).parents[1] / "data" / "graphmem.grass"
SAMPLE_QUESTION = "What did Maya adopt, and when did she bring it home?"


_settings = settings_of
_memory = memory_of


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="graphmem")
def main() -> None:
    """graphmem: long-term memory for conversational agents, on Neo4j.

    Settings come from GRAPHMEM_* environment variables (or a .env file); see
    `graphmem.config.Settings`.

    Exit codes: 0 done; 1 an error graphmem explains (bad input, settings, a missing layer,
    no such space); 2 a wrong command line; 3 `neo4j status`: not running; 4 Neo4j
    unreachable or refusing the credentials; 5 `ingest --skip-invalid` stored the valid
    records and rejected others; 6 `answer` printed the best memory found because the LLM
    gave no usable answer.
    """
    # the driver's own retry notices would repeat what graphmem's one-line error says
    logging.getLogger("neo4j").setLevel(logging.ERROR)
    click.get_current_context().with_resource(acting("cli"))  # the spaces' history says so


# ---------------------------------------------------------------------- neo4j
@main.group()
def neo4j() -> None:
    """Run the local Neo4j 5.26 + GDS server (built from Maven Central, no Docker)."""


@neo4j.command("start")
@click.pass_context
@friendly_errors
def neo4j_start(ctx: click.Context) -> None:
    """Build (first time) and start the server; return once GDS answers. No-op if running."""
    from graphmem.neo4j_server.local import LocalNeo4j

    server = LocalNeo4j(_settings(ctx))
    if not server.is_built():
        click.echo("building the local Neo4j + GDS from Maven Central (first time only)...",
                   err=True)
    began = time.perf_counter()
    status = server.start()
    click.echo(f"Neo4j {status.describe()} [{time.perf_counter() - began:.1f}s]")
    s = _settings(ctx)
    click.echo(f"Bolt {s.neo4j_uri}  Browser http://127.0.0.1:{s.neo4j_http_port}/browser/")


@neo4j.command("stop")
@click.pass_context
@friendly_errors
def neo4j_stop(ctx: click.Context) -> None:
    """Shut the local server down cleanly."""
    from graphmem.neo4j_server.local import LocalNeo4j

    stopped = LocalNeo4j(_settings(ctx)).stop()
    click.echo("Neo4j stopped" if stopped else "Neo4j was not running (under graphmem)")


@neo4j.command("compact")
@click.option("--yes", is_flag=True, help="Do not ask first.")
@click.pass_context
@friendly_errors
def neo4j_compact(ctx: click.Context, yes: bool) -> None:
    """Erase from disk what was forgotten: every space exported, the local server's stores
    and transaction logs deleted, every space imported again (the server is stopped for the
    while). After it no forgotten text remains in any file of the server (docs/deploy.md)."""
    from graphmem.neo4j_server.compact import compact

    if not yes and not click.confirm("Stop the local Neo4j and write its database anew?"):
        ctx.exit(1)
    report = compact(_settings(ctx), say=lambda line: click.echo(line, err=True))
    click.echo(report.summary())


@neo4j.command("status")
@click.pass_context
@friendly_errors
def neo4j_status(ctx: click.Context) -> None:
    """Say whether the server runs, its versions and resident memory."""
    from graphmem.neo4j_server.local import LocalNeo4j

    status = LocalNeo4j(_settings(ctx)).status()
    click.echo(f"Neo4j {status.describe()}")
    if not status.running:
        ctx.exit(3)


# ---------------------------------------------------------------------- schema
@main.group()
def schema() -> None:
    """Constraints and indexes (the files under cypher/schema)."""


@schema.command("apply")
@click.pass_context
@friendly_errors
def schema_apply(ctx: click.Context) -> None:
    """Create every constraint and index; safe to run again."""
    with _memory(ctx) as memory:
        applied = memory.store.apply_schema()
    click.echo(f"applied {', '.join(applied)}")


# ---------------------------------------------------------------------- data
@main.command()
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--space", required=True, help="The memory space (tenant) to store into.")
@click.option("--format", "fmt", type=click.Choice(["auto", *FORMATS]), default="auto",
              show_default=True)
@click.option("--skip-invalid", is_flag=True, help="Store the valid records, report the rest.")
@click.option("--skip-empty-turns", is_flag=True, help="Drop empty turns instead of failing.")
@click.option("--layers", default=None, metavar="NAMES",
              help="Derived layers to write with the turns, comma-separated (default: "
                   "GRAPHMEM_INGEST_LAYERS; '' for raw turns only). See `graphmem layers list`.")
@click.option("--workers", type=click.IntRange(1, 64), default=None,
              help="Processes computing and writing conversations at once (default: "
                   "GRAPHMEM_INGEST_WORKERS, 1); each loads its own models.")
@click.pass_context
@friendly_errors
def ingest(ctx: click.Context, file: Path, space: str, fmt: str, skip_invalid: bool,
           skip_empty_turns: bool, layers: str | None, workers: int | None) -> None:
    """Store the conversations of FILE in a space (idempotent; appends new sessions)."""
    with _memory(ctx, progress=True) as memory:
        report = memory.ingest(file, space=space, format=fmt,
                               skip_invalid=skip_invalid,
                               bad_turns="skip" if skip_empty_turns else "error", layers=layers,
                               workers=workers)
        usage = usage_table(memory.llm_usage())
    finish_ingest(report, usage)


# ---------------------------------------------------------------------- layers
@main.group()
def layers() -> None:
    """The layers of memory a space can hold (raw turns, EDUs, events, ...)."""


@layers.command("list")
@click.option("--space", default=None, help="Also say which of them this space holds.")
@click.pass_context
@friendly_errors
def layers_list(ctx: click.Context, space: str | None) -> None:
    """Every known layer with the layers it needs (and, with --space, whether it is held)."""
    from graphmem.ingest.layers import LAYERS

    state, pending = None, dict[str, int]()
    if space is not None:
        from graphmem.retrieve.base import space_state

        with _memory(ctx) as memory:
            state = space_state(memory.store, space, tuple(LAYERS))
            for row in memory.conversations(space):
                for name in row.pending_layers:
                    pending[name] = pending.get(name, 0) + 1
    for name, layer in LAYERS.items():
        line = f"{name:<10} needs {', '.join(layer.needs) or '-'}"
        if state is not None:
            held = state.sessions and name not in state.missing
            line += "\theld" if held else (f"\tmissing in {state.missing[name]} of "
                                           f"{state.sessions} sessions" if state.sessions
                                           else "\tspace is empty")
            if name in pending:  # live messages wait for it (the derivation did not finish)
                line += (f", behind live messages in {pending[name]} conversations: "
                         f"graphmem refresh --space {space}")
        click.echo(line)


@main.command()
@click.option("--space", required=True)
@click.option("--conversation", default=None, help="Only this one (default: all).")
@click.pass_context
@friendly_errors
def refresh(ctx: click.Context, space: str, conversation: str | None) -> None:
    """Derive now the layers that live messages left pending (after a crash, or with
    GRAPHMEM_LIVE_DERIVE=manual)."""
    with _memory(ctx) as memory:
        done = memory.refresh(space, conversation)
    for key, names in done.items():
        click.echo(f"{key}: derived {', '.join(names) or '-'}")
    if not done:
        click.echo("nothing was pending")


@layers.command("add")
@click.argument("names")
@click.option("--space", required=True)
@click.pass_context
@friendly_errors
def layers_add(ctx: click.Context, names: str, space: str) -> None:
    """Compute the layers NAMES (comma-separated) for everything a space holds, from its
    stored turns (no input file needed); layers it holds already are not redone."""
    with _memory(ctx, progress=True) as memory:
        report = memory.add_layers(space, names)
        usage = usage_table(memory.llm_usage())
    finish_ingest(report, usage)


@main.command()
def plugins() -> None:
    """Plug-ins found by their `graphmem.plugins` entry point: loaded, or why not."""
    from graphmem.plugins import failed_plugins, loaded_plugins

    loaded, failed = loaded_plugins(), failed_plugins()
    for name, value in loaded.items():
        click.echo(f"{name}\t{value}\tloaded")
    for name, error in failed.items():
        click.echo(f"{name}\tfailed: {error}")
    if not loaded and not failed:
        click.echo("no plug-ins installed (entry point group graphmem.plugins)", err=True)


@main.command()
def strategies() -> None:
    """Every retrieval strategy, the layers it needs and what it does."""
    from graphmem.retrieve.registry import RECIPES

    for name in strategy_names():
        recipe = RECIPES[name]
        click.echo(f"{name:<13} needs {', '.join(recipe.strategy.needs)}")
        click.echo(textwrap.fill(recipe.about, width=96, initial_indent="    ",
                                 subsequent_indent="    "))


@main.command()
@click.argument("question")
@click.option("--space", required=True)
@click.option("--strategy", type=click.Choice(strategy_names()), default=None,
              help="Retrieval strategy (default: GRAPHMEM_DEFAULT_STRATEGY).")
@click.option("--budget", "--max-tokens", "budget", type=click.IntRange(min=1), default=None,
              help="Context tokens.")
@click.option("--json", "as_json", is_flag=True, help="Print the whole result as JSON.")
@click.option("--sources", is_flag=True, help="Follow each line with the turns it comes from.")
@click.option("--explain", is_flag=True, help=(
    "Then say why each piece was recalled and which of the best were left out."))
@click.pass_context
@friendly_errors
def search(ctx: click.Context, question: str, space: str, strategy: str | None,
           budget: int | None, as_json: bool, sources: bool, explain: bool) -> None:
    """Print the memory context retrieved for QUESTION. The latency shown is the search's
    own; loading the models and connecting, once per process, is shown apart."""
    with _memory(ctx) as memory:
        ready = memory.warm_up()
        result = memory.search(question, space=space, strategy=strategy, budget=budget,
                               explain=explain)
        if not result.hits:
            require_space(memory, space)
    if as_json:
        click.echo(result.model_dump_json(indent=2))
        return
    click.echo(render(result, sources))
    if result.explanation is not None:
        from graphmem.explanations import describe

        by_id = {hit.id: hit for hit in result.hits}
        click.echo("\n" + describe([(i, by_id[i].text, by_id[i].why) for i in result.included],
                                   result.explanation))
    click.echo(f"-- {len(result.included)} of {len(result.hits)} hits, {result.context_tokens}"
               f"/{result.budget} tokens ({result.tokenizer}), strategy {result.strategy}, search "
               f"{result.latency_ms:.0f} ms (models loaded and Neo4j connected in {ready:.1f} s)",
               err=True)


@main.command()
@click.argument("question")
@click.option("--space", required=True)
@click.option("--strategy", type=click.Choice(strategy_names()), default=None)
@click.option("--budget", "--max-tokens", "budget", type=click.IntRange(min=1), default=None,
              help="Context tokens for the search.")
@click.pass_context
@friendly_errors
def answer(ctx: click.Context, question: str, space: str, strategy: str | None,
           budget: int | None) -> None:
    """Answer QUESTION from memory with the configured LLM."""
    with _memory(ctx) as memory:
        if memory.llm is not None:  # without one, saying what to set comes first
            require_space(memory, space)
        result = memory.answer(question, space=space, strategy=strategy, budget=budget)
        usage = usage_table(memory.llm_usage())
    if result.fallback:
        click.echo(f"no usable LLM answer ({result.fallback}); printing the best memory found "
                   f"instead (exit code {FELL_BACK})", err=True)
    click.echo(result.answer)
    click.echo(usage, err=True)
    if result.fallback:
        ctx.exit(FELL_BACK)


@main.command()
@click.pass_context
def browser(ctx: click.Context) -> None:
    """How to explore a space in Neo4j Browser: address, credentials, style, saved queries."""
    from graphmem.cypher import cypher_dir

    s = _settings(ctx)
    password = s.neo4j_password.get_secret_value()
    shown = password if password == "graphmem-local" else "the value of GRAPHMEM_NEO4J_PASSWORD"
    queries = sorted((cypher_dir() / "browser").glob("*.cypher"))
    click.echo("\n".join([
        "Neo4j Browser: " + (s.browser_address or "the Browser of your Neo4j deployment"),
        f"  connect to {s.neo4j_uri} as {s.neo4j_user!r}, password {shown}",
        f"Style: drag {STYLE} onto the Browser window, or paste the line below into its",
        "  editor; every node is then coloured by kind and captioned by its text, date or name.",
        "Saved queries, to run in order (set the space first, e.g. :param space => 'demo'):",
        *(f"  {path}" for path in queries),
        "",
        ":style " + " ".join(STYLE.read_text().split()),
    ]))


@main.command()
@click.option("--question", default=SAMPLE_QUESTION, show_default=True)
@click.option("--space", default="demo", show_default=True)
@click.option("--budget", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--strategy", type=click.Choice(strategy_names()), default=RECOMMENDED,
              show_default=True, help="Default: the best measured on the dev splits.")
@click.pass_context
@friendly_errors
def demo(ctx: click.Context, question: str, space: str, budget: int, strategy: str) -> None:
    """Start the local Neo4j, ingest the sample conversation, print the context for a question
    with the turns each line comes from."""
    ctx.invoke(neo4j_start)
    ctx.invoke(ingest, file=SAMPLE, space=space, fmt="json", skip_invalid=False,
               skip_empty_turns=False, layers=None)
    click.echo(f"\nQuestion: {question}\n")
    click.echo(f"Strategy: {strategy} ({RECIPES[strategy].about})\n")
    ctx.invoke(search, question=question, space=space, strategy=strategy, budget=budget,
               as_json=False, sources=True)


def _register() -> None:
    from graphmem.cli.evaluate import eval_group
    from graphmem.cli.hook import hook
    from graphmem.cli.llm import llm_group
    from graphmem.cli.models import models_group
    from graphmem.cli.serve import console, mcp, serve
    from graphmem.cli.spaces import SPACE_COMMANDS
    from graphmem.cli.train import COMMANDS as TRAINING

    for command in TRAINING:  # offered as `graphmem eval train-...`
        eval_group.add_command(command)
    main.add_command(eval_group)
    main.add_command(llm_group)
    main.add_command(models_group)
    main.add_command(mcp)
    main.add_command(serve)
    main.add_command(console)
    main.add_command(hook)
    for command in SPACE_COMMANDS:
        main.add_command(command)


_register()
