"""Tables for docs/results-graphmem.md from evaluation runs and the shipped ranker's metrics.

    python benchmarks/graphmem_tables.py RUN.json [RUN.json ...] [--ranker FILE]

Prints Markdown: evidence recall of every strategy in each run at each budget with latency
(best of each column in bold), the ranker's out-of-fold recall per split and fold, its gamma
sweep, what leaving out each feature family costs, the other kind of ranker's recall, and
the leave-one-dataset-out matrix.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from common import make_parser

from graphmem.eval.report import answer_recall_table
from graphmem.retrieve.fused import SHIPPED


def pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def runs_table(report: dict[str, Any]) -> str:
    entries = report["strategies"]
    budgets = list(next(iter(entries.values()))["evidence_recall"])
    best = {b: max(e["evidence_recall"][b] or 0 for e in entries.values()) for b in budgets}
    lines = [f"{Path(report['data']).name}, {report['n_questions_sampled']} questions",
             "", "| strategy | " + " | ".join(f"@{b}" for b in budgets) + " | p50 ms | p95 ms |",
             "|---|" + "---:|" * (len(budgets) + 2)]
    for name, e in sorted(entries.items(), key=lambda kv: -(kv[1]["evidence_recall"][
            budgets[1 if len(budgets) > 1 else 0]] or 0)):
        cells = [f"**{pct(e['evidence_recall'][b])}**" if e["evidence_recall"][b] == best[b]
                 else pct(e["evidence_recall"][b]) for b in budgets]
        lines.append(f"| `{name}` | " + " | ".join(cells)
                     + f" | {e['latency_ms']['p50']:.0f} | {e['latency_ms']['p95']:.0f} |")
    lines += answer_recall_table(entries, budgets, quote=True)
    return "\n".join(lines)


def ranker_tables(metrics: dict[str, Any]) -> str:
    out = [f"Trained on {', '.join(metrics['trained_on'])}: {metrics['questions']} questions, "
           f"{metrics['folds']} folds of whole conversations; {metrics['candidates_mean']} "
           f"candidate turns per question reach {pct(metrics['evidence_reached'])}% of the "
           f"evidence; gamma {metrics['gamma']}.", ""]
    budgets = list(metrics["out_of_fold"]["pooled"])
    head = "| | " + " | ".join(f"@{b}" for b in budgets) + " |"
    rule = "|---|" + "---:|" * len(budgets)

    def row(label: str, values: dict[str, float]) -> str:
        return f"| {label} | " + " | ".join(pct(values[b]) for b in budgets) + " |"

    out += ["Out of fold:", "", head, rule]
    out += [row(split, values) for split, values in metrics["out_of_fold"].items()]
    out += [row(f"fold {k}", v) for k, v in metrics["per_fold"].items()]
    if "with_statements" in metrics:
        whole = metrics["with_statements"]
        out += ["", f"A turn's statement may stand in for it (`graphmem-statements`, out of "
                f"fold, its own best gamma {whole['gamma']}):", "", head, rule]
        out += [row(split, v) for split, v in whole.items() if split != "gamma"]
    if "day_on_every_line" in metrics:
        out += ["", "The day on every line instead of one header per session (out of fold):",
                "", head, rule]
        out += [row(split, v) for split, v in metrics["day_on_every_line"].items()]
    out += ["", "Packing exponent gamma (pooled, out of fold):", "", head, rule]
    out += [row(f"gamma {g}", v) for g, v in metrics["gamma_sweep"].items()]
    if "without_family" in metrics:
        splits = list(metrics["out_of_fold"])[1:]
        out += ["", "Leaving one feature family out (out of fold, change in points against "
                "all features):", "",
                "| family | " + " | ".join(f"{s} @{b}" for s in splits for b in budgets) + " |",
                "|---|" + "---:|" * (len(splits) * len(budgets))]
        for family, per in metrics["without_family"].items():
            cells = [f"{100 * (per[s][b] - metrics['out_of_fold'][s][b]):+.1f}"
                     for s in splits for b in budgets]
            out.append(f"| {family} | " + " | ".join(cells) + " |")
    for key, label in (("listwise_out_of_fold", "The linear listwise ranker"),
                       ("trees_out_of_fold", "LambdaMART trees")):
        if key in metrics:
            other = metrics[key]
            out += ["", f"{label} instead (out of fold, its own best gamma "
                    f"{other['gamma']}):", "", head, rule]
            out += [row(split, v) for split, v in other.items() if split != "gamma"]
    if "leave_one_dataset_out" in metrics:
        out += ["", *matrix_table(metrics["leave_one_dataset_out"])]
    return "\n".join(out)


def matrix_table(held: dict[str, Any]) -> list[str]:
    """Each dataset held out of training entirely: the shipped settings, and the learned
    order alone (no blend, no floor, no spread)."""
    out = [f"Each dataset held out of training entirely (leave-one-dataset-out; packing "
           f"exponent {held['gamma']}, blend with the unlearned order {held['blend']} and "
           f"spread of list questions {held['spread']} chosen on this matrix, small-talk floor "
           f"{held['floor']} tokens fixed): evidence recall / any evidence turn / answer "
           f"recall", "",
           "| held out | questions | @500 | @1000 | @2000 | @4000 | learned alone @1000 |",
           "|---|---:|---:|---:|---:|---:|---:|"]
    for dataset, row in held["matrix"].items():
        cells = [f"{pct(row['evidence'][b])} / {pct(row['any_evidence'][b])} / "
                 f"{pct(row['answers'][b])}" for b in row["evidence"]]
        alone = held["learned_alone"][dataset]["evidence"]["1000"]
        out.append(f"| {dataset} | {row['questions']} | " + " | ".join(cells)
                   + f" | {pct(alone)} |")
    return out


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("runs", nargs="*", type=Path)
    parser.add_argument("--ranker", type=Path, default=SHIPPED)
    args = parser.parse_args()
    for run in args.runs:
        print(runs_table(json.loads(run.read_text())), end="\n\n")
    print(ranker_tables(json.loads(args.ranker.read_text())["metrics"]))


if __name__ == "__main__":
    main()
