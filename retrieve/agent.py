"""A small agent with long-term memory: it reads what you say, stores it, looks for what it
remembers about it, and replies; its reply is stored too. With an LLM configured
(GRAPHMEM_LLM_BASE_URL) it answers from its memory; without one it says which memory it found.

    python retrieve/agent.py --space me                  # type; an empty line or EOF ends
    printf 'I adopted a cat called Pepper.\\nWhat is my cat called?\\n' | \\
        python retrieve/agent.py --space me --quiet

Every message goes through Memory.add_messages, so the conversation is searchable at once and
sessions open after a silence (GRAPHMEM_LIVE_SESSION_GAP_MINUTES).
"""

from __future__ import annotations

import sys
from typing import TextIO

import click

from graphmem.cli.scripts import connection_options, open_memory
from graphmem.cli.support import friendly_errors
from graphmem.client import Memory

HEAD = "From memory:"


def reply(memory: Memory, space: str, text: str, budget: int, said: set[str]) -> str:
    """What the agent says to ``text``: an LLM answer from memory, or the best memory other
    than the message itself (whose stored ids are ``said``)."""
    if memory.llm is not None:
        return memory.answer(text, space=space, budget=budget).answer
    found = memory.search(text, space=space, budget=budget)
    earlier = [h for h in sorted(found.hits, key=lambda h: -h.score)
               if not set(h.source_ids) <= said]
    if not earlier:
        return "I don't remember anything about that yet."
    return f"{HEAD} {' '.join(earlier[0].text.split())}"  # one line


def converse(memory: Memory, space: str, conversation: str, user: str, budget: int,
             lines: TextIO, out: TextIO, quiet: bool = False) -> int:
    """The loop: one line in, one reply out, both remembered. Returns the turns handled."""
    handled = 0
    for line in lines:
        text = line.strip()
        if not text:
            break
        stored = memory.add_messages(space, conversation, [{"speaker": user, "text": text}])
        answer = reply(memory, space, text, budget, set(stored.added))
        memory.add_messages(space, conversation, [{"speaker": "assistant", "text": answer}])
        out.write(("" if quiet else "agent> ") + answer + "\n")
        out.flush()
        handled += 1
    return handled


@click.command(help=__doc__)
@click.option("--space", required=True, help="The memory space (one per user, say).")
@click.option("--conversation", default="agent", show_default=True)
@click.option("--speaker", default="user", show_default=True, help="Your name, as stored.")
@click.option("--budget", type=click.IntRange(min=1), default=500, show_default=True)
@click.option("--quiet", is_flag=True, help="No prompts; replies only (for pipes).")
@connection_options
@friendly_errors
def main(space: str, conversation: str, speaker: str, budget: int, quiet: bool,
         **connection: str | None) -> None:
    with open_memory(**connection) as memory:
        memory.warm_up()
        if not quiet:
            click.echo(f"memory space {space!r}; say something (an empty line ends)", err=True)
        handled = converse(memory, space, conversation, speaker, budget, sys.stdin, sys.stdout,
                           quiet)
    if not quiet:
        click.echo(f"-- {handled} turns remembered in {space!r}", err=True)


if __name__ == "__main__":
    main()
