"""Write an evaluation's JSON, a Markdown table and a PNG plot side by side."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path
from typing import Any


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def answer_recall_table(strategies: dict[str, Any], budgets: list[str],
                        quote: bool = False) -> list[str]:
    """The answer recall at each budget of the strategies that report it, as Markdown lines
    (none when none does: results kept from before it was recorded); ``quote`` puts the names
    in backticks."""
    reported = {name: e["answer_recall"] for name, e in strategies.items()
                if e.get("answer_recall")}
    if not reported:
        return []
    lines = ["", "Answer recall (the gold answer's words found in the context) in %:", "",
             "| strategy | " + " | ".join(f"@{b}" for b in budgets) + " |",
             "|---|" + "---:|" * len(budgets)]
    for name, got in reported.items():
        shown = f"`{name}`" if quote else name
        lines.append(f"| {shown} | " + " | ".join(_pct(got.get(b)) for b in budgets) + " |")
    return lines


def missed_table(strategies: dict[str, Any], budget: str) -> list[str]:
    """Where the evidence the contexts miss at ``budget`` was lost, by category, as Markdown
    lines (none for results kept from before it was recorded)."""
    lines: list[str] = []
    for name, entry in strategies.items():
        per = entry.get("missed_evidence_by_category") or {}
        rows = [(cat, got[budget]) for cat, got in per.items() if budget in got]
        if not rows:
            continue
        lines += ["", f"`{name}` at {budget} tokens: where missed evidence was lost, in % of "
                  "the evidence turns (rank: of the best candidate crediting it):", "",
                  "| category | evidence | not ranked | below the budget | skipped by packing "
                  "| median rank | 90th pct rank |", "|---|---:|---:|---:|---:|---:|---:|"]
        for cat, got in rows:
            lines.append(f"| {cat} | {got['evidence']} | {_pct(got['not_ranked'])} | "
                         f"{_pct(got['below_budget'])} | {_pct(got['cut_by_packing'])} | "
                         f"{got['below_budget_rank_median'] or '-'} | "
                         f"{got['below_budget_rank_p90'] or '-'} |")
    return lines


def retrieval_markdown(report: dict[str, Any]) -> str:
    strategies: dict[str, Any] = report["strategies"]
    if not strategies:
        return "(no strategies)\n"
    budgets = list(next(iter(strategies.values()))["evidence_recall"])
    head = ["strategy", *(f"recall@{b}" for b in budgets), "p50 ms", "p95 ms", "tokens"]
    extra_session = report["dataset"] == "longmemeval"
    if extra_session:
        head += [f"session@{b}" for b in budgets]
    lines = [f"# {report['dataset']}: {Path(report['data']).name}",
             "", f"Questions: {report['n_questions_sampled']}. Recall in %.", "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, entry in strategies.items():
        cells = [name, *(_pct(entry["evidence_recall"][b]) for b in budgets),
                 str(entry["latency_ms"]["p50"]), str(entry["latency_ms"]["p95"]),
                 f"{entry['context_tokens_mean'] or 0:.0f}"]
        if extra_session:
            cells += [_pct(entry["session_recall"][b]) for b in budgets]
        lines.append("| " + " | ".join(cells) + " |")
    middle = "1000" if "1000" in budgets else budgets[len(budgets) // 2]  # the headline
    categories = sorted({c for e in strategies.values() for c in e["evidence_recall_by_category"]})
    lines += ["", f"Recall at {middle} tokens by category:", "",
              "| strategy | " + " | ".join(categories) + " |",
              "|" + "---|" * (len(categories) + 1)]
    for name, entry in strategies.items():
        per = entry["evidence_recall_by_category"]
        lines.append(f"| {name} | " + " | ".join(_pct(per.get(c, {}).get(middle))
                                                 for c in categories) + " |")
    lines += answer_recall_table(strategies, budgets)
    lines += missed_table(strategies, middle)
    qa_rows = [(n, e["qa"]) for n, e in strategies.items() if e.get("qa")]
    if qa_rows:
        lines += ["", "| strategy | F1 | LoCoMo F1 | BLEU-1 | judge | tokens |",
                  "|---|---|---|---|---|---|"]
        for name, qa in qa_rows:
            lines.append(f"| {name} | {_pct(qa['f1'])} | {_pct(qa['locomo_f1'])} | "
                         f"{_pct(qa['bleu1'])} | {_pct(qa['judge_accuracy'])} | "
                         f"{qa['context_tokens_mean']} |")
    return "\n".join(lines) + "\n"


def segmentation_markdown(report: dict[str, Any]) -> str:
    lines = [f"# segmentation: {Path(report['data']).name}", "",
             "| method | Pk | WD | F1 | Score | dialogues |", "|---|---|---|---|---|---|"]
    for name, m in report["methods"].items():
        lines.append(f"| {name} | {m['pk']:.3f} | {m['wd']:.3f} | {m['f1']:.3f} | "
                     f"{m['score']:.3f} | {m['n_dialogues']} |")
    return "\n".join(lines) + "\n"


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> None:
    fig.savefig(path)
    _pyplot().close(fig)


def plot_recall(report: dict[str, Any], path: Path) -> None:
    _save(recall_figure(report), path)


def recall_figure(report: dict[str, Any]) -> Any:
    """Recall against budget, one line per strategy, the recall axis from 0 to 100."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4), dpi=110)
    for name, entry in report["strategies"].items():
        points = [(int(b), r) for b, r in entry["evidence_recall"].items() if r is not None]
        ax.plot([b for b, _ in points], [100 * r for _, r in points], marker="o", label=name)
    ax.set_xlabel("context budget (tokens)")
    ax.set_ylabel("evidence recall (%)")
    ax.set_ylim(0, 100)  # from 0: differences are shown at their true size
    ax.set_title(f"{report['dataset']}: evidence recall within a budget")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    return fig


METRIC_NAMES = {"pk": "Pk", "wd": "WindowDiff", "f1": "boundary F1", "score": "Score"}


def plot_segmentation(report: dict[str, Any], path: Path) -> None:
    _save(segmentation_figure(report), path)


def segmentation_figure(report: dict[str, Any]) -> Any:
    """Pk and WindowDiff on one panel, boundary F1 and Score on another, both from 0 to 1."""
    plt = _pyplot()
    names = list(report["methods"])
    # errors (lower is better) and agreement (higher is better) on separate panels
    fig, axes = plt.subplots(1, 2, figsize=(9, 4), dpi=110, sharey=True)
    panels = (("errors: lower is better", ("pk", "wd")),
              ("agreement: higher is better", ("f1", "score")))
    for ax, (title, metrics) in zip(axes, panels, strict=True):
        for offset, metric in enumerate(metrics):
            xs = [i + offset * 0.35 for i in range(len(names))]
            ax.bar(xs, [report["methods"][n][metric] for n in names], width=0.35,
                   label=METRIC_NAMES[metric])
        ax.set_xticks([i + 0.175 for i in range(len(names))], names, rotation=15)
        ax.set_ylim(0, 1)
        ax.set_title(title)
        ax.legend()
    fig.suptitle("segmentation")
    fig.tight_layout()
    return fig


def write_report(report: dict[str, Any], out: Path) -> list[Path]:
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2))
    md, png = out.with_suffix(".md"), out.with_suffix(".png")
    segmentation = "methods" in report
    md.write_text(segmentation_markdown(report) if segmentation else retrieval_markdown(report))
    if importlib.util.find_spec("matplotlib") is None:  # the `eval` extra draws the figure
        return [out, md]
    (plot_segmentation if segmentation else plot_recall)(report, png)
    return [out, md, png]
