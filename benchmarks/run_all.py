"""Run every strategy on the dev splits and refresh docs/results.md.

    python benchmarks/run_all.py [--data-dir ../shared/data] [--skip-long] [--llm]
                                 [--limit N] [--reuse [--rerun STRATEGY ...]]

Writes each run's JSON, Markdown and PNG under docs/results/ (kept in the repository: the
notebook notebooks/results.ipynb draws from them) and stitches the tables and plots into
docs/results.md. Uses the same code path as `graphmem eval ...`, at 500, 1,000, 2,000 and
4,000 tokens. With --reuse, a split whose JSON under docs/results/ holds the same sample is not
run again (its run time is then the one recorded): only the strategies it lacks are run, and
--rerun NAME (repeatable) measures that strategy again in each kept split and keeps the others'
results, for when one strategy changed (a retrained ranker). --reuse with --skip-long shows the
LongMemEval S section as last measured, without running anything on it.
"""

from __future__ import annotations

import json
import platform
import time
from dataclasses import replace
from datetime import date
from pathlib import Path
from typing import Any

from common import ROOT, make_parser

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.report import retrieval_markdown, segmentation_markdown, write_report
from graphmem.eval.runner import EvalOptions, load_questions, run_retrieval_eval, sample
from graphmem.eval.segmenters import run_segmentation_eval
from graphmem.providers.embedder import SentenceTransformerEmbedder
from graphmem.retrieve.fused import load_ranker
from graphmem.retrieve.registry import strategy_names

PEERS_HEADER = ("## Other memory systems, without their LLM\n\n"
                "From `python benchmarks/peers.py --out docs/results/peers_<set>.json` (each "
                "peer in its own virtualenv, offline, on the same MiniLM; what each leaves "
                "out is in the script's docstring): retrieval without the peer's LLM, packed "
                "and scored under docs/evaluation.md's contract beside `graphmem` and `turns` "
                "on the same questions.\n\n")
SCALE_HEADER = ("## Scale: synthetic conversations, 10^4 to 10^6 turns\n\n"
                "From `python benchmarks/scale.py --out docs/results/scale.json` (raw turns, "
                "pooled embeddings, a server of its own; see the script's docstring).\n\n")
BUDGETS = (500, 1000, 2000, 4000)
SEGMENTATION = {"tiage_dev.jsonl": ("minilm-adjacent", "minilm-adjacent:q=0.2"),
                "dialseg711_dev.jsonl": ("minilm-adjacent", "minilm-adjacent:q=0.2")}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data-dir", type=Path, default=ROOT.parent / "shared" / "data")
    parser.add_argument("--out-dir", type=Path, default=ROOT / "docs" / "results")
    parser.add_argument("--skip-long", action="store_true", help="skip LongMemEval S (slow)")
    parser.add_argument("--llm", action="store_true", help="also answer and judge (slow)")
    parser.add_argument("--limit", type=int, default=None, help="questions per split (a sample)")
    parser.add_argument("--reuse", action="store_true",
                        help="keep a split's results when they hold every strategy already")
    parser.add_argument("--rerun", action="append", default=[], choices=strategy_names(),
                        help="with --reuse: measure this strategy again in the kept splits")
    args = parser.parse_args()
    if args.rerun and not args.reuse:
        parser.error("--rerun refreshes kept results: give --reuse too")
    strategies = strategy_names()
    sections: list[str] = []
    # (dataset, file, measured now?): a skipped S is still shown as last measured with --reuse
    runs = [("locomo", args.data_dir / "locomo" / "locomo_dev.json", True),
            ("longmemeval", args.data_dir / "longmemeval" / "longmemeval_oracle_dev.json", True),
            ("longmemeval", args.data_dir / "longmemeval" / "longmemeval_s_dev36.json.gz",
             not args.skip_long)]
    with Memory(progress=True) as memory:
        for dataset, data, measured in runs:
            began = time.perf_counter()
            options = EvalOptions(strategies=strategies, budgets=BUDGETS, limit=args.limit,
                                  llm=args.llm)
            out = args.out_dir / f"{data.name.split('.')[0]}.json"
            report = _reusable(out, dataset, data, options) if args.reuse else None
            if not measured:
                if report is not None:
                    sections.append(_section(report, out, "(as last measured: not run now)\n"))
                continue
            if report is None:
                report = run_retrieval_eval(memory, dataset, data, options)  # type: ignore[arg-type]
                report["run_seconds"] = round(time.perf_counter() - began)
                write_report(report, out)
            elif todo := sorted(set(args.rerun) | set(_lacking(report, options))):
                fresh = run_retrieval_eval(memory, dataset, data,  # type: ignore[arg-type]
                                           replace(options, strategies=todo))
                report["strategies"] = dict(sorted({**report["strategies"],
                                                    **fresh["strategies"]}.items()))
                report["rerun"] = {**report.get("rerun", {}),
                                   **{name: str(date.today()) for name in todo}}
                write_report(report, out)
            sections.append(_section(report, out))
    embedder = SentenceTransformerEmbedder.from_settings(Settings())
    for name, methods in SEGMENTATION.items():
        report = run_segmentation_eval(args.data_dir / "segmentation" / name, methods, embedder)
        out = args.out_dir / f"{name.split('.')[0]}.json"
        write_report(report, out)
        sections.append(segmentation_markdown(report).replace("# ", "## ", 1) + "\n"
                        + _picture(out))
    header = (f"# Results on the dev splits\n\nRefreshed by `python benchmarks/run_all.py` on "
              f"{date.today()} ({platform.machine()}, {platform.python_version()}"
              f"{f', --limit {args.limit} questions per split' if args.limit else ''}"
              f"{', without LongMemEval S' if args.skip_long and not args.reuse else ''}). "
              "Evidence recall is the share of gold evidence turns the packed context covers "
              "(docs/evaluation.md).\n\n" + _held_out_note())
    scale = sorted(args.out_dir.glob("scale*.md"))  # benchmarks/scale.py, run on its own
    if scale:
        sections.append(SCALE_HEADER + "\n".join(
            md.read_text() + (f"\n![{md.stem}](results/{md.stem}.png)\n"
                              if md.with_suffix(".png").exists() else "") for md in scale))
    peers = sorted(args.out_dir.glob("peers*.md"))  # benchmarks/peers.py, run on its own
    if peers:
        sections.append(PEERS_HEADER + "\n".join(md.read_text() for md in peers))
    (ROOT / "docs" / "results.md").write_text(header + "\n".join(sections))
    print(f"wrote {ROOT / 'docs' / 'results.md'}")


def _held_out_note() -> str:
    """The `graphmem` ranker's held-out recall: its rows below are in sample when it was
    trained on these splits."""
    metrics = load_ranker().metrics
    held = {split: r for split, r in metrics.get("out_of_fold", {}).items() if split != "pooled"}
    if not held:
        return ""
    lines = [f"- {split}: " + " / ".join(f"{100 * v:.1f}" for v in r.values())
             for split, r in held.items()]
    budgets = " / ".join(next(iter(held.values())))
    return ("The `graphmem` strategies' ranker was trained on these dev splits "
            f"({', '.join(metrics.get('trained_on', []))}), so their rows below are in sample "
            "and read high. Held out (whole conversations never seen in training, out of "
            f"fold), `graphmem` reaches at {budgets} tokens:\n\n" + "\n".join(lines) + "\n\n")


def _lacking(report: dict[str, Any], options: EvalOptions) -> list[str]:
    """The strategies of ``options`` that ``report`` lacks at some budget (added since)."""
    held = report.get("strategies", {})
    return [name for name in options.strategies
            if name not in held or not all(str(b) in held[name]["evidence_recall"]
                                           for b in options.budgets)]


def _reusable(out: Path, dataset: str, data: Path,
              options: EvalOptions) -> dict[str, Any] | None:
    """The results in ``out`` if they are of ``data`` with the same sample (the strategies
    they lack are then run alone: :func:`_lacking`)."""
    if not out.exists():
        return None
    report: dict[str, Any] = json.loads(out.read_text())
    questions = sample(load_questions(dataset, data), options.limit,  # type: ignore[arg-type]
                       options.seed)
    same = (Path(report.get("data", "")).name == data.name
            and report.get("n_questions_sampled") == len(questions)
            and report.get("seed") == options.seed)
    return report if same else None


def _section(report: dict[str, Any], out: Path, note: str = "") -> str:
    """One split's tables in docs/results.md, with its run time, any strategies measured apart
    and its plot."""
    took = report.get("run_seconds")
    return (retrieval_markdown(report).replace("# ", "## ", 1)
            + (f"\n(run took {took} s)\n" if took else "\n")
            + "".join(f"({name} measured apart from the rest on {day})\n"
                      for name, day in report.get("rerun", {}).items())
            + note + "\n" + _picture(out))


def _picture(out: Path) -> str:
    png = out.with_suffix(".png")
    try:
        shown = png.relative_to(ROOT / "docs")
    except ValueError:
        return ""  # written outside docs/: no link that would resolve
    return f"![{png.stem}]({shown.as_posix()})\n"


if __name__ == "__main__":
    main()
