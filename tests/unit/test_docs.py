"""Generated docs match the code: docs/cli.md (the CLI's --help) and the README's table of
strategies (the registry)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

DOCS = Path(__file__).parent.parent.parent / "docs"


def generator(name: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cli_reference_is_current() -> None:
    module = generator("generate_cli")
    assert (DOCS / "cli.md").read_text() == module.render(), "run: python docs/generate_cli.py"


def test_readme_strategy_table_is_current() -> None:
    module = generator("generate_strategies")
    readme = module.README.read_text(encoding="utf-8")
    assert readme == module.render(readme), "run: python docs/generate_strategies.py"
    for name in ("graphmem", "graphmem-statements", "esmem-turns", "ema-fill"):
        assert f"| `{name}` |" in readme
