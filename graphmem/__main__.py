"""``python -m graphmem``: the command line."""

from graphmem.cli import main

main()
