"""Ask a memory space a question: print the context a strategy retrieves within a budget
(with each line's source turns if asked), or an LLM's answer from it.

    python retrieve/ask.py "Where did Maya run her half marathon?" --space demo \
        --strategy emem-g-fill --budget 500 --sources

As a library: ``from graphmem import Memory; Memory().search(question, space=..., ...)``.
"""

from __future__ import annotations

import click

from graphmem.cli.scripts import STRATEGY, connection_options, open_memory
from graphmem.cli.support import friendly_errors, render, require_space


@click.command(help=__doc__)
@click.argument("question")
@click.option("--space", required=True)
@click.option("--strategy", type=STRATEGY, default=None, help="Default: GRAPHMEM_DEFAULT_STRATEGY.")
@click.option("--budget", type=click.IntRange(min=1), default=None, help="Context tokens.")
@click.option("--sources", is_flag=True, help="Follow each line with the turns it comes from.")
@click.option("--answer", is_flag=True, help="Answer with the configured LLM.")
@connection_options
@friendly_errors
def main(question: str, space: str, strategy: str | None, budget: int | None, sources: bool,
         answer: bool, **connection: str | None) -> None:
    with open_memory(**connection) as memory:
        require_space(memory, space)
        if answer:
            reply = memory.answer(question, space=space, strategy=strategy, budget=budget)
            click.echo(reply.answer)
            result = reply.search
        else:
            result = memory.search(question, space=space, strategy=strategy, budget=budget)
            click.echo(render(result, sources))
    click.echo(f"-- {result.strategy}: {len(result.included)} of {len(result.hits)} hits, "
               f"{result.context_tokens}/{result.budget} tokens, {result.latency_ms:.0f} ms",
               err=True)


if __name__ == "__main__":
    main()
