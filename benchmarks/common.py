"""What every benchmark script starts with: where the repository and the shared development
data are, an argument parser whose ``--help`` opens with the script's own docstring, and one
way to report a result (printed, and written where ``--out`` says)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent  # the repository
DATA = ROOT.parent / "shared" / "data"  # the development data beside it
LOCOMO = DATA / "locomo" / "locomo_dev.json"


def make_parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser described by ``doc`` (the script's ``__doc__``) as it is written."""
    return argparse.ArgumentParser(description=doc,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)


def publish(result: Any, out: Path | None, indent: int = 1) -> None:
    """Print ``result`` as JSON and, with ``out``, write it there too."""
    text = json.dumps(result, indent=indent, default=str)
    print(text)
    if out is not None:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(text + "\n")
