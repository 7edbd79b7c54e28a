"""The commands about whole spaces and what they hold: list and show, forget, delete, back
up to a file, restore from one."""

from __future__ import annotations

import json
import sys
from datetime import datetime
from pathlib import Path

import click

from graphmem.cli.support import friendly_errors, memory_of, no_space


@click.command()
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly_errors
def spaces(ctx: click.Context, as_json: bool) -> None:
    """List the memory spaces and what they hold."""
    with memory_of(ctx) as memory:
        rows = memory.spaces()
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    for row in rows:
        click.echo(f"{row['space']}\t{row['conversations']} conversations\t"
                   f"{row['sessions']} sessions\t{row['turns']} turns")


@click.command()
@click.option("--space", required=True)
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
@friendly_errors
def delete(ctx: click.Context, space: str, yes: bool) -> None:
    """Remove everything of one space, and nothing else. Without --yes it asks, and refuses
    when it cannot ask (no terminal: cron, pipes)."""
    confirmed(yes, f"Delete everything stored in space {space!r}?",
              f"not deleting space {space!r}")
    with memory_of(ctx) as memory:
        if not memory.delete_space(space):
            raise no_space(space)
    click.echo(f"deleted space {space!r}")


def confirmed(yes: bool, question: str, refusal: str) -> None:
    """Ask ``question`` unless ``yes``; refuse when there is no terminal to ask on."""
    if yes:
        return
    if not sys.stdin.isatty():
        raise click.UsageError(f"{refusal}: there is no terminal to confirm on; add --yes to "
                               "go ahead without asking")
    click.confirm(question, abort=True)


@click.command()
@click.option("--space", required=True)
@click.option("--conversation", required=True)
@click.option("--session", "sessions", multiple=True, help="A session key (repeat for more).")
@click.option("--message", "messages", multiple=True, help="A message id (repeat for more).")
@click.option("--whole-conversation", is_flag=True,
              help="Forget the whole conversation (instead of --message or --session).")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@click.pass_context
@friendly_errors
def forget(ctx: click.Context, space: str, conversation: str, sessions: tuple[str, ...],
           messages: tuple[str, ...], whole_conversation: bool, yes: bool) -> None:
    """Forget messages, sessions or (with --whole-conversation) a whole conversation of a
    space, with everything derived from them; what remains is derived again. Without --yes
    it asks first."""
    if whole_conversation == bool(messages or sessions):
        raise click.UsageError("name what to forget: --message or --session (repeatable), or "
                               "--whole-conversation")
    what = (f"{len(messages)} messages and {len(sessions)} sessions of" if messages or sessions
            else "the whole of")
    confirmed(yes, f"Forget {what} conversation {conversation!r} in space {space!r}?",
              f"not forgetting anything of conversation {conversation!r}")
    with memory_of(ctx) as memory:
        report = (memory.forget(space, conversation, whole_conversation=True)
                  if whole_conversation else
                  memory.forget(space, conversation, sessions=sessions, turns=messages))
    whole = " (the whole conversation)" if report.whole_conversation else ""
    click.echo(f"forgot {report.turns} messages in {report.sessions} whole sessions of "
               f"{conversation!r}{whole}; derived again: {', '.join(report.layers) or '-'}")


@click.command()
@click.option("--space", required=True)
@click.option("--turn", "turn_id", required=True,
              help="The stored message's turn id (a search hit's source_turn_ids give it).")
@click.option("--text", required=True, help="What the message should say instead.")
@click.option("--drop-old", is_flag=True,
              help="Keep no revision of the old text: it is gone everywhere.")
@click.pass_context
@friendly_errors
def correct(ctx: click.Context, space: str, turn_id: str, text: str, drop_old: bool) -> None:
    """Replace what one stored message says and derive its conversation again. The old text
    stays on the message as a revision unless --drop-old."""
    with memory_of(ctx) as memory:
        report = memory.correct(space, turn_id, text, keep_old=not drop_old)
    kept = f"{report.revisions} earlier texts kept" if report.revisions else "no earlier text kept"
    click.echo(f"corrected {report.turn_id} ({kept}); derived again: "
               f"{', '.join(report.layers) or '-'}")


@click.command()
@click.option("--space", required=True)
@click.option("--conversation", default=None, help="Show its messages (default: list the "
              "space's conversations).")
@click.option("--since", type=click.DateTime(), default=None,
              help="Messages of sessions started at or after this date (and time).")
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--newest", "newest_first", is_flag=True, help="The latest messages first.")
@click.option("--cursor", type=int, default=None,
              help="Where the page starts: the cursor the previous page printed.")
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly_errors
def show(ctx: click.Context, space: str, conversation: str | None, since: datetime | None,
         limit: int, newest_first: bool, cursor: int | None, as_json: bool) -> None:
    """What a space holds: its conversations, or one conversation's messages."""
    with memory_of(ctx) as memory:
        if not memory.has_space(space):
            raise no_space(space)
        if conversation is None:
            rows = memory.conversations(space)
            if as_json:
                click.echo(json.dumps([r.model_dump(mode="json") for r in rows], indent=2))
            for r in [] if as_json else rows:
                days = " .. ".join(str(d.date()) for d in (r.first_session_at,
                                                           r.last_session_at) if d)
                click.echo(f"{r.conversation}\t{r.sessions} sessions\t{r.messages} messages"
                           f"\t{days}")
            return
        page = memory.messages(space, conversation, since=since, limit=limit,
                               newest_first=newest_first, cursor=cursor)
        if not page.messages and conversation not in {
                c.conversation for c in memory.conversations(space)}:
            raise click.ClickException(f"space {space!r} holds no conversation "
                                       f"{conversation!r} (see `graphmem show --space "
                                       f"{space}`)")
    if as_json:
        click.echo(page.model_dump_json(indent=2))
        return
    for m in page.messages:
        day = m.session_started_at.date() if m.session_started_at else ""
        click.echo(f"[{m.session} {day}] {m.id}  {m.speaker}: {m.text}")
    if page.next_cursor is not None:
        click.echo(f"-- more: {len(page.messages)} shown; the next page: --cursor "
                   f"{page.next_cursor}", err=True)


@click.command()
@click.option("--space", required=True)
@click.option("--limit", type=click.IntRange(1, 1000), default=100, show_default=True)
@click.option("--json", "as_json", is_flag=True)
@click.pass_context
@friendly_errors
def history(ctx: click.Context, space: str, limit: int, as_json: bool) -> None:
    """What changed in a space, newest first: when, what kind of change, through which
    surface (and server token digest), and how many nodes it created and deleted."""
    with memory_of(ctx) as memory:
        if not memory.has_space(space):
            raise no_space(space)
        changes = memory.history(space, limit)
    if as_json:
        click.echo(json.dumps([c.model_dump(mode="json") for c in changes], indent=2))
        return
    for c in changes:
        by = f"{c.surface}:{c.caller}" if c.caller else c.surface
        click.echo(f"{c.at:%Y-%m-%d %H:%M:%S}\t{c.what}\t{by}\t+{c.nodes_created} "
                   f"-{c.nodes_deleted} nodes")


@click.command("export")
@click.option("--space", required=True)
@click.option("--out", "out", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="The file to write (gzip'd JSON lines; .jsonl.gz by convention).")
@click.pass_context
@friendly_errors
def export_command(ctx: click.Context, space: str, out: Path) -> None:
    """Back up one space to a file: every node, relationship and property, embeddings
    exact. Restore it with `graphmem import`."""
    with memory_of(ctx) as memory:
        if not memory.has_space(space):
            raise no_space(space)
        click.echo(memory.export_space(space, out).summary("exported"))


@click.command("import")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--replace", is_flag=True,
              help="Overwrite the space if it exists (in the same transaction).")
@click.pass_context
@friendly_errors
def import_command(ctx: click.Context, file: Path, replace: bool) -> None:
    """Restore a space from a file of `graphmem export`, under the space id it came from.
    The whole file is checked first and stored in one transaction: a bad file or a failure
    changes nothing."""
    with memory_of(ctx) as memory:
        click.echo(memory.import_space(file, replace=replace).summary("restored"))


@click.command()
@click.option("--space", "chosen", multiple=True, help="A space (repeat for more).")
@click.option("--all", "every", is_flag=True, help="Every space of the database.")
@click.option("--batch", type=click.IntRange(1, 10_000), default=256, show_default=True,
              help="Vectors staged per transaction.")
@click.pass_context
@friendly_errors
def reembed(ctx: click.Context, chosen: tuple[str, ...], every: bool, batch: int) -> None:
    """Compute every stored vector again with the configured embedder
    (GRAPHMEM_EMBEDDING_MODEL, _BACKEND, _DIMENSIONS), deriving nothing again. Searches use
    the old vectors until a space's new ones are all in place. Stopped midway, the same
    command goes on where it stopped. A new dimension needs --all: the vector indexes are
    made again for it."""
    if every == bool(chosen):
        raise click.UsageError("name the spaces with --space, or give --all")
    with memory_of(ctx, progress=True) as memory:
        report = memory.reembed(None if every else list(chosen), batch=batch,
                                after_batch=lambda n: click.echo(f"staged {n} vectors"))
        click.echo(report.summary())


SPACE_COMMANDS = [spaces, show, history, forget, correct, delete, export_command,
                  import_command, reembed]
