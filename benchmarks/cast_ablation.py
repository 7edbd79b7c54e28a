"""CAST ablation on a LoCoMo split: what the scenes add to the semantic list, LLM-free.

    python benchmarks/cast_ablation.py [--data locomo_dev.json] [--limit 300] [--out cast.json]

Every variant searches the same eval spaces (the default layers, cached like every eval
space): the semantic list alone (no scene retrieved), the paper's fusion (`cast-fill`), and
ours, scenes fused in by rank, with and without searching the profiles of the persons a
question names. Writes JSON and a Markdown table (recall by category at each budget).
"""

from __future__ import annotations

import json
from typing import Any

from mms_ablation import ablation_parser, table

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.runner import EvalOptions, run_retrieval_eval
from graphmem.retrieve.cast import CastSearch
from graphmem.retrieve.registry import RECIPES, Recipe, register

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "semantic list alone": ("cast-fill", {"k_scenes": 0}),
    "paper's fusion (cast-fill)": ("cast-fill", {}),
    "scenes fused by rank, w/o profiles": ("cast-scenes", {"profiles": False}),
    "scenes fused by rank, profiles (cast-scenes)": ("cast-scenes", {}),
}


def main() -> None:
    parser = ablation_parser("cast_ablation.json", __doc__)
    parser.add_argument("--only", action="append", help="variant names to run (default: all)")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    results: dict[str, Any] = {}
    with Memory(Settings()) as memory:
        for n, (name, (base, options)) in enumerate(VARIANTS.items()):
            if args.only and name not in args.only:
                continue
            recipe = f"cast-ablation-{n}"
            register(recipe, Recipe(CastSearch, {**RECIPES[base].options, **options}, name))
            report = run_retrieval_eval(memory, "locomo", args.data, EvalOptions(
                strategies=(recipe,), budgets=budgets, limit=args.limit))
            results[name] = report["strategies"][recipe]
            print(name, results[name]["evidence_recall"], flush=True)
    args.out.write_text(json.dumps(results, indent=1))
    args.out.with_suffix(".md").write_text(table(results, budgets))
    print(table(results, budgets))


if __name__ == "__main__":
    main()
