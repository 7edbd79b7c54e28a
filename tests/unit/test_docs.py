"""docs/cli.md is generated from the CLI's --help; it must match the code."""

from __future__ import annotations

import importlib.util
from pathlib import Path

DOCS = Path(__file__).parent.parent.parent / "docs"


def test_cli_reference_is_current() -> None:
    spec = importlib.util.spec_from_file_location("generate_cli", DOCS / "generate_cli.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert (DOCS / "cli.md").read_text() == module.render(), "run: python docs/generate_cli.py"
