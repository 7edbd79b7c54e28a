"""MMS ablation on a LoCoMo split: what each segment of the retrieval unit, the round size and
BM25 fusion contribute to evidence recall, LLM-free.

    python benchmarks/mms_ablation.py [--data locomo_dev.json] [--limit 300] [--out mms.json]

Each variant of what a retrieval unit embeds is ingested into its own eval spaces (cached like
every eval space, so a second run only searches); BM25 fusion is a read-time option. Writes
JSON and a Markdown table (recall by category at each budget, and the mean).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from common import LOCOMO, make_parser

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.runner import EvalOptions, run_retrieval_eval
from graphmem.ingest.layer import with_options
from graphmem.retrieve.mms import MMSSearch
from graphmem.retrieve.registry import RECIPES, Recipe, register

PAPER = "keywords,round,perspectives,episodic"  # the paper's retrieval unit
# name -> (settings of the segments layer, strategy options); dense search, as in the paper,
# except the last row
VARIANTS: dict[str, tuple[dict[str, str], dict[str, Any]]] = {
    "paper's unit": ({"retrieval": PAPER}, {"bm25": False}),
    "paper's unit, pair rounds": ({"retrieval": PAPER, "round": "pair"},
                                  {"bm25": False}),
    "w/o keywords": ({"retrieval": "round,perspectives,episodic"}, {"bm25": False}),
    "w/o perspectives": ({"retrieval": "keywords,round,episodic"}, {"bm25": False}),
    "w/o episodic": ({"retrieval": "keywords,round,perspectives"}, {"bm25": False}),
    "+ semantic": ({"retrieval": PAPER + ",semantic"}, {"bm25": False}),
    "round only": ({"retrieval": "round"}, {"bm25": False}),
    "default unit (no keywords, + semantic)": ({}, {"bm25": False}),
    "default unit, dense + BM25 (the default)": ({}, {}),
}


def ablation_parser(out: str, doc: str | None = __doc__) -> argparse.ArgumentParser:
    """The options every LoCoMo ablation script takes (data, sample, budgets, output), the
    calling script's ``doc`` first in its help."""
    parser = make_parser(doc)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=300)
    parser.add_argument("--budgets", default="1000,2000")
    parser.add_argument("--out", type=Path, default=Path(out))
    return parser


def main() -> None:
    parser = ablation_parser("mms_ablation.json")
    parser.add_argument("--turns", action="store_true", help="measure mms-turns instead")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    results: dict[str, Any] = {}
    for name, (layer_settings, options) in VARIANTS.items():
        settings = with_options(Settings().model_copy(update={"ingest_layers": "edus,segments"}),
                                "segments", **layer_settings)
        recipe = f"mms-ablation-{len(results)}"
        base = RECIPES["mms-turns" if args.turns else "mms"].options
        register(recipe, Recipe(MMSSearch, {**base, **options}, name))
        with Memory(settings) as memory:
            report = run_retrieval_eval(memory, "locomo", args.data, EvalOptions(
                strategies=(recipe,), budgets=budgets, limit=args.limit))
        results[name] = report["strategies"][recipe]
        print(name, results[name]["evidence_recall"], flush=True)
    args.out.write_text(json.dumps(results, indent=1))
    args.out.with_suffix(".md").write_text(table(results, budgets))
    print(table(results, budgets))


def table(results: dict[str, Any], budgets: list[int]) -> str:
    categories = sorted({c for r in results.values() for c in r["evidence_recall_by_category"]})
    head = ["variant"] + [f"{c} @{b}" for c in categories for b in budgets] + \
        [f"all @{b}" for b in budgets] + ["p50 ms"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, r in results.items():
        cells = [name] + [f"{r['evidence_recall_by_category'][c][str(b)]:.3f}"
                          for c in categories for b in budgets]
        cells += [f"{r['evidence_recall'][str(b)]:.3f}" for b in budgets]
        cells.append(str(r["latency_ms"]["p50"]))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    main()
