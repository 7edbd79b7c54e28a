"""Write the README's table of strategies from the registry: python docs/generate_strategies.py

The table stands between the two marker lines below in README.md; everything else in the
README is left as it is. Only graphmem's own recipes are listed (not installed plug-ins')."""

from __future__ import annotations

from pathlib import Path

from graphmem.retrieve.registry import RECIPES

README = Path(__file__).resolve().parent.parent / "README.md"
BEGIN = "<!-- strategies: generated from the registry by docs/generate_strategies.py -->"
END = "<!-- /strategies -->"


def table() -> str:
    lines = ["| name | needs | uses where held | what |", "|---|---|---|---|"]
    for name, recipe in RECIPES.items():  # registry order: graphmem's own first
        strategy = recipe.strategy
        if not strategy.__module__.startswith("graphmem."):
            continue
        uses = ", ".join(strategy.layers_used()) or "-"
        lines.append(f"| `{name}` | {', '.join(strategy.needs)} | {uses} | {recipe.about} |")
    return "\n".join(lines) + "\n"


def render(readme: str) -> str:
    """``readme`` with the table between the markers made anew."""
    head, rest = readme.split(BEGIN + "\n", 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table()}{END}{tail}"


if __name__ == "__main__":
    README.write_text(render(README.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"wrote the strategy table of {README}")
