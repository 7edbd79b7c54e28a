"""``python -m graphmem``: the command line."""

from graphmem.cli import run

run()
