"""`graphmem eval ...`: one command per kind of evaluation; the output JSON is a contract.
(The commands that train, `graphmem eval train-*` and `calibrate-segmenter`, live in
``graphmem/cli/train.py`` and join this group in the command line.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from graphmem.cli.support import DATA, OUT, friendly_errors
from graphmem.eval.report import write_report
from graphmem.eval.segmenters import METHODS
from graphmem.providers.llm import usage_table


def _budgets(ctx: click.Context, param: click.Parameter, value: str) -> list[int]:
    try:
        budgets = [int(part) for part in value.split(",") if part.strip()]
    except ValueError:
        raise click.BadParameter("a comma-separated list of token counts") from None
    if not budgets or min(budgets) <= 0:
        raise click.BadParameter("positive token counts, e.g. 500,1000,2000")
    return budgets


def _retrieval(dataset: str, data: Path, strategy: tuple[str, ...], budgets: list[int],
               limit: int | None, seed: int, llm: bool, qa_budget: int, out: Path,
               conversations: int | None, category: tuple[str, ...] = ()) -> None:
    from graphmem.client import Memory
    from graphmem.eval.runner import EvalOptions, run_retrieval_eval
    from graphmem.retrieve.registry import parse_spec

    for name in strategy:
        parse_spec(name)  # fail before any work on an unknown name or option
    options = EvalOptions(strategies=strategy or ("turns",), budgets=budgets, limit=limit,
                          seed=seed, llm=llm, qa_budget=qa_budget,
                          conversations=conversations, categories=category)
    with Memory(progress=True) as memory:
        report = run_retrieval_eval(memory, dataset, data, options)  # type: ignore[arg-type]
        usage = usage_table(memory.llm_usage())
    for path in write_report(report, out):
        click.echo(f"wrote {path}")
    for name, entry in report["strategies"].items():
        recall = ", ".join(f"@{b} {100 * r:.1f}%" for b, r in entry["evidence_recall"].items()
                           if r is not None)
        click.echo(f"{name}: evidence recall {recall}; p50 {entry['latency_ms']['p50']} ms")
    if usage:
        click.echo(usage)


def retrieval_options(func: Any) -> Any:
    for option in reversed([
        click.option("--data", type=DATA, required=True, help="The dataset file."),
        click.option("--strategy", multiple=True,
                     help="Repeat for several (default: turns); NAME:option=value,... runs a "
                     "recipe with options changed, e.g. graphmem:times=false."),
        click.option("--budgets", default="500,1000,2000", show_default=True,
                     callback=_budgets, help="Context budgets in tokens."),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="Evaluate a reproducible sample of N questions."),
        click.option("--conversations", type=click.IntRange(min=1), default=None,
                     help="Only the questions of a reproducible sample of N whole "
                     "conversations (QMSum's are large)."),
        click.option("--category", multiple=True,
                     help="Only questions of this category, as the report names them (e.g. "
                     "multi-hop); repeat for several. Sampled by --limit after the filter."),
        click.option("--seed", type=int, default=0, show_default=True),
        click.option("--llm/--no-llm", default=False, show_default=True,
                     help="Also answer with the configured LLM and score the answers."),
        click.option("--qa-budget", type=click.IntRange(min=1), default=1000, show_default=True,
                     help="Context budget for answering."),
        click.option("--out", type=OUT, required=True, help="OUT.json; .md and .png beside it."),
    ]):
        func = option(func)
    return func


@click.group("eval")
def eval_group() -> None:
    """Measure strategies on a dataset split (evidence recall within a budget, QA, segmentation)."""


@eval_group.command("locomo")
@retrieval_options
@friendly_errors
def eval_locomo(data: Path, strategy: tuple[str, ...], budgets: list[int], limit: int | None,
                conversations: int | None, category: tuple[str, ...], seed: int, llm: bool,
                qa_budget: int, out: Path) -> None:
    """LoCoMo (locomo10.json format): categories 1-4; and files in its shape (FriendsQA,
    QMSum: every question with evidence)."""
    _retrieval("locomo", data, strategy, budgets, limit, seed, llm, qa_budget, out,
               conversations, category)


@eval_group.command("longmemeval")
@retrieval_options
@friendly_errors
def eval_longmemeval(data: Path, strategy: tuple[str, ...], budgets: list[int],
                     limit: int | None, conversations: int | None, category: tuple[str, ...],
                     seed: int, llm: bool, qa_budget: int, out: Path) -> None:
    """LongMemEval (oracle / S / M files): every question, with session-level recall too."""
    _retrieval("longmemeval", data, strategy, budgets, limit, seed, llm, qa_budget, out,
               conversations, category)


@eval_group.command("segmentation")
@click.option("--data", type=DATA, required=True, help="A .jsonl file of dialogues.")
@click.option("--method", multiple=True,
              help=f"Repeat for several; options as NAME:q=0.2,context=1. Known: {METHODS}")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Only the first N dialogues (for slow LLM runs).")
@click.option("--out", type=OUT, required=True)
@friendly_errors
def eval_segmentation(data: Path, method: tuple[str, ...], limit: int | None, out: Path) -> None:
    """Dialogue topic segmentation: Pk, WindowDiff, boundary F1 and Score.

    esmem-llm uses the LLM that GRAPHMEM_LLM_* configure."""
    from graphmem.config import Settings
    from graphmem.eval.segmenters import run_segmentation_eval
    from graphmem.providers.embedder import SentenceTransformerEmbedder
    from graphmem.providers.llm import OpenAICompatibleLLM

    settings = Settings()
    embedder = SentenceTransformerEmbedder.from_settings(settings)
    llm = OpenAICompatibleLLM(settings) if settings.llm_configured else None
    report = run_segmentation_eval(data, method or ("minilm-adjacent",), embedder, llm, limit)
    if llm is not None:
        report["llm"] = {"model": llm.model, "usage": {
            task: vars(usage) for task, usage in llm.usage().items()}}
        click.echo(usage_table(llm.usage()))
    for path in write_report(report, out):
        click.echo(f"wrote {path}")
    for name, m in report["methods"].items():
        click.echo(f"{name}: Pk {m['pk']:.3f} WD {m['wd']:.3f} F1 {m['f1']:.3f} "
                   f"Score {m['score']:.3f}")
