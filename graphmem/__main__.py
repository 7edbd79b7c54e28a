"""``python -m graphmem``: the command line."""

from graphmem.cli import run

if __name__ == "__main__":  # not when a spawned process imports it
    run()
