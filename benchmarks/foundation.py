"""Foundation benchmark: ingest the dev LoCoMo conversations, time `turns` search, and measure
evidence recall at several budgets. Usage:

    python benchmarks/foundation.py [--data ../shared/data/locomo/locomo_dev.json]
"""

from __future__ import annotations

import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from common import LOCOMO, make_parser

from graphmem import Memory
from graphmem.eval.datasets import locomo_questions
from graphmem.eval.metrics import evidence_recall, percentile
from graphmem.ingest.inputs.loaders import parse_file


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--strategies", default="turns,turns-bm25,turns-vector")
    parser.add_argument("--budgets", default="500,1000,2000")
    parser.add_argument("--fresh", action="store_true", help="delete the spaces first")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    parsed = parse_file(args.data, "locomo")
    questions = locomo_questions(args.data)
    report: dict[str, object] = {"questions": len(questions)}
    with Memory() as memory:
        memory.embedder.embed(["warm up"])
        if args.fresh:
            for conv in parsed.conversations:
                memory.delete_space(f"bench-{conv.key}")
        began = time.perf_counter()
        for conv in parsed.conversations:
            memory.ingest([conv], space=f"bench-{conv.key}")
        report["ingest_seconds"] = round(time.perf_counter() - began, 2)
        for name in args.strategies.split(","):
            recall: dict[int, list[float]] = defaultdict(list)
            by_cat: dict[str, list[float]] = defaultdict(list)
            latency: list[float] = []
            for q in questions:
                for budget in budgets:
                    t0 = time.perf_counter()
                    result = memory.search(q.question, space=f"bench-{q.conversation}",
                                           strategy=name, budget=budget)
                    latency.append((time.perf_counter() - t0) * 1000)
                    r = evidence_recall(result.hits, budget, q.evidence)
                    recall[budget].append(r)
                    if budget == 1000:
                        by_cat[q.category].append(r)
            report[name] = {
                "recall": {b: round(statistics.mean(v), 4) for b, v in recall.items()},
                "recall_1000_by_category": {c: round(statistics.mean(v), 4)
                                            for c, v in sorted(by_cat.items())},
                "latency_ms": {"p50": round(percentile(latency, 50), 1),
                               "p95": round(percentile(latency, 95), 1)},
            }
            print(name, json.dumps(report[name]), flush=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
