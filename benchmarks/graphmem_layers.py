"""What each layer's retriever adds to `graphmem` at search time: the strategy run with every
source but one, on the dev spaces `graphmem eval` ingests, beside the strategy with all of them.

    python benchmarks/graphmem_layers.py [--limit 100] [--out docs/results/graphmem_layers.json]

A source left out fetches nothing: its turns come only from the other sources (and as their
neighbours), and its features are 0. The ranker is the shipped one, trained with every
source, so this measures a space whose layer is missing at search time; what the ranker
learns from each source's features is the family ablation of `graphmem eval train-ranker`.
Prints a Markdown table (recall in points, each variant's change against all sources).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from common import ROOT, make_parser

from graphmem.client import Memory
from graphmem.eval.runner import EvalOptions, run_retrieval_eval
from graphmem.retrieve.fused import SOURCES
from graphmem.retrieve.registry import RECIPES, Recipe, register

BUDGETS = (500, 1000, 2000, 4000)
SPLITS = (("locomo", "locomo/locomo_dev.json"),
          ("longmemeval", "longmemeval/longmemeval_oracle_dev.json"))


def variants() -> list[str]:
    """`graphmem` and one recipe per source left out (registered here, not in graphmem)."""
    base = RECIPES["graphmem"]
    names = ["graphmem"]
    for source in SOURCES:
        name = f"graphmem-no-{source}"
        kept = tuple(s for s in SOURCES if s != source)
        register(name, Recipe(base.strategy, {**base.options, "sources": kept},
                              f"`graphmem` without the {source} source"))
        names.append(name)
    return names


def table(reports: dict[str, dict[str, Any]]) -> str:
    lines = ["| left out | " + " | ".join(f"{Path(d).stem} @{b}" for d in reports
                                           for b in BUDGETS) + " |",
             "|---|" + "---:|" * (len(reports) * len(BUDGETS))]
    names = next(iter(reports.values()))["strategies"]
    for name in names:
        cells = []
        for report in reports.values():
            got = report["strategies"][name]["evidence_recall"]
            full = report["strategies"]["graphmem"]["evidence_recall"]
            for b in BUDGETS:
                value = 100 * got[str(b)]
                cells.append(f"{value:.1f}" if name == "graphmem"
                             else f"{value - 100 * full[str(b)]:+.1f}")
        label = "nothing (all sources)" if name == "graphmem" else name.removeprefix(
            "graphmem-no-")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--limit", type=int, default=100)
    parser.add_argument("--out", type=Path, default=ROOT / "docs/results/graphmem_layers.json")
    args = parser.parse_args()
    names = variants()
    reports: dict[str, dict[str, Any]] = {}
    with Memory(progress=True) as memory:
        for dataset, file in SPLITS:
            options = EvalOptions(strategies=names, budgets=BUDGETS, limit=args.limit)
            reports[file] = run_retrieval_eval(memory, dataset,  # type: ignore[arg-type]
                                               args.data_dir / file, options)
    args.out.write_text(json.dumps(reports, indent=1) + "\n")
    print(table(reports))


if __name__ == "__main__":
    main()
