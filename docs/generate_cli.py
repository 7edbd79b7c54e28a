"""Write docs/cli.md from the CLI's own --help texts: python docs/generate_cli.py"""

from __future__ import annotations

from pathlib import Path

import click
from click.testing import CliRunner

from graphmem.cli import main

TARGET = Path(__file__).with_name("cli.md")


def commands(group: click.Group, prefix: list[str]) -> list[list[str]]:
    out = [prefix]
    for name in sorted(group.commands):
        command = group.commands[name]
        if isinstance(command, click.Group):
            out.extend(commands(command, [*prefix, name]))
        else:
            out.append([*prefix, name])
    return out


def render() -> str:
    parts = ["# graphmem command line\n\nGenerated from `--help`: `python docs/generate_cli.py`.\n"]
    for path in commands(main, []):
        result = CliRunner().invoke(main, [*path, "--help"], prog_name="graphmem",
                                    terminal_width=100)
        title = " ".join(["graphmem", *path])
        parts.append(f"\n## {title}\n\n```\n{result.output.rstrip()}\n```\n")
    return "".join(parts)


if __name__ == "__main__":
    TARGET.write_text(render())
    print(f"wrote {TARGET}")
