"""Compare what several strategies retrieve for one question at one budget: each context with
its source turns, its size and latency, then which source turns each strategy alone found.

    python retrieve/compare.py "When did Maya adopt Pepper?" --space demo \
        --strategy turns --strategy emem-g-fill --strategy esmem-turns --budget 300
"""

from __future__ import annotations

import click

from graphmem.cli.scripts import STRATEGY, connection_options, open_memory, search_many
from graphmem.cli.support import friendly_errors, render, require_space

DEFAULT = ("turns", "emem-g-fill", "esmem-turns")


@click.command(help=__doc__)
@click.argument("question")
@click.option("--space", required=True)
@click.option("--strategy", "strategies", type=STRATEGY, multiple=True,
              help=f"Repeat for several (default: {', '.join(DEFAULT)}).")
@click.option("--budget", type=click.IntRange(min=1), default=500, show_default=True)
@connection_options
@friendly_errors
def main(question: str, space: str, strategies: tuple[str, ...], budget: int,
         **connection: str | None) -> None:
    with open_memory(**connection) as memory:
        require_space(memory, space)
        results = search_many(memory, question, space, strategies or DEFAULT, budget)
    found: dict[str, set[str]] = {}
    for result in results:
        click.echo(f"== {result.strategy}: {len(result.included)} hits, "
                   f"{result.context_tokens}/{budget} tokens, {result.latency_ms:.0f} ms")
        click.echo(render(result, sources=True) or "(nothing found)")
        click.echo()
        hits = {hit.id: hit for hit in result.hits}
        found[result.strategy] = {s for i in result.included for s in hits[i].source_ids}
    everyone = set.intersection(*found.values()) if found else set()
    click.echo(f"== source turns found by every strategy: {', '.join(sorted(everyone)) or '-'}")
    for name, turns in found.items():
        others = set().union(*(t for n, t in found.items() if n != name))
        click.echo(f"   only {name}: {', '.join(sorted(turns - others)) or '-'}")


if __name__ == "__main__":
    main()
