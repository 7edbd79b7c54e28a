"""Generated docs match the code: docs/cli.md (the CLI's --help) and the README's table of
strategies (the registry)."""

from __future__ import annotations

import importlib.util
import re
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


ROOT = DOCS.parent
PACKAGE = ROOT / "graphmem"
NAMED_PATH = re.compile(r"(?<![\w/.-])graphmem/[\w./-]*\w")


def pages() -> list[Path]:
    """The pages a reader navigates by (results pages record past runs as they were)."""
    return [ROOT / "README.md", ROOT / "AGENTS.md",
            *(p for p in sorted(DOCS.glob("*.md")) if not p.name.startswith("results"))]


def test_every_graphmem_path_the_docs_name_exists() -> None:
    named = {(page.name, path) for page in pages() if page.exists()
             for path in NAMED_PATH.findall(page.read_text(encoding="utf-8"))}
    assert len(named) > 20 and ("extending.md", "graphmem/plugins.py") in named  # sanity
    assert {f"{page}: {path}" for page, path in named if not (ROOT / path).exists()} == set()


def test_the_architecture_page_names_every_package_and_root_module() -> None:
    tree = (DOCS / "architecture.md").read_text(encoding="utf-8")
    parts = [f"{p.name}/" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()]
    parts += [p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py"]
    assert sorted(p for p in parts if not re.search(rf"(?<![\w/]){re.escape(p)}", tree)) == []
