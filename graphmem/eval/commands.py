"""`graphmem eval ...`: one command per kind of evaluation; the output JSON is a contract."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from graphmem.cli_support import friendly_errors
from graphmem.eval.report import write_report
from graphmem.eval.segmenters import METHODS
from graphmem.providers.llm import usage_table

DATA = click.Path(exists=True, dir_okay=False, path_type=Path)
OUT = click.Path(dir_okay=False, path_type=Path)
FOLDS = click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True,
                     help="Folds of whole conversations held out for validation.")


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
               conversations: int | None) -> None:
    from graphmem.client import Memory
    from graphmem.eval.runner import EvalOptions, run_retrieval_eval
    from graphmem.retrieve.registry import get_strategy

    for name in strategy:
        get_strategy(name)  # fail before any work on an unknown name
    options = EvalOptions(strategies=strategy or ("turns",), budgets=budgets, limit=limit,
                          seed=seed, llm=llm, qa_budget=qa_budget,
                          conversations=conversations)
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
        click.option("--strategy", multiple=True, help="Repeat for several (default: turns)."),
        click.option("--budgets", default="500,1000,2000", show_default=True,
                     callback=_budgets, help="Context budgets in tokens."),
        click.option("--limit", type=click.IntRange(min=1), default=None,
                     help="Evaluate a reproducible sample of N questions."),
        click.option("--conversations", type=click.IntRange(min=1), default=None,
                     help="Only the questions of a reproducible sample of N whole "
                     "conversations (QMSum's are large)."),
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
                conversations: int | None, seed: int, llm: bool, qa_budget: int,
                out: Path) -> None:
    """LoCoMo (locomo10.json format): categories 1-4; and files in its shape (FriendsQA,
    QMSum: every question with evidence)."""
    _retrieval("locomo", data, strategy, budgets, limit, seed, llm, qa_budget, out,
               conversations)


@eval_group.command("longmemeval")
@retrieval_options
@friendly_errors
def eval_longmemeval(data: Path, strategy: tuple[str, ...], budgets: list[int],
                     limit: int | None, conversations: int | None, seed: int, llm: bool,
                     qa_budget: int, out: Path) -> None:
    """LongMemEval (oracle / S / M files): every question, with session-level recall too."""
    _retrieval("longmemeval", data, strategy, budgets, limit, seed, llm, qa_budget, out,
               conversations)


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


@eval_group.command("calibrate-segmenter")
@click.option("--data", type=DATA, required=True,
              help="Training dialogues (.jsonl), e.g. tiage_train.jsonl. Never a dev/test split.")
@click.option("--q", type=click.FloatRange(0.0, 1.0), default=0.35, show_default=True,
              help="Stage 1 quantile whose candidates the model learns to sort.")
@click.option("--out", type=OUT, default=None,
              help="Where to write the model (default: the one graphmem ships).")
@friendly_errors
def calibrate_segmenter(data: Path, q: float, out: Path | None) -> None:
    """Fit ES-Mem's LLM-free Stage 2 (the boundary model) and its threshold."""
    import json

    from graphmem.config import Settings
    from graphmem.ingest.layers.events import FEATURES, MODEL_PATH, SegmentationConfig
    from graphmem.providers.embedder import SentenceTransformerEmbedder
    from graphmem.training.segmenter import calibrate

    embedder = SentenceTransformerEmbedder.from_settings(Settings())
    model, score = calibrate(data, embedder, SegmentationConfig(q=q))
    target = out or MODEL_PATH
    target.write_text(json.dumps(model.to_json(), indent=1) + "\n", encoding="utf-8")
    click.echo(f"wrote {target}: threshold {model.threshold}, training Score {score:.3f}")
    for name, weight in zip(FEATURES, model.weights, strict=True):
        click.echo(f"  {name:>18} {weight:+.3f}")


@eval_group.command("train-ranker")
@click.option("--locomo", type=DATA, multiple=True, help="LoCoMo file(s).")
@click.option("--longmemeval", type=DATA, multiple=True,
              help="LongMemEval file(s): oracle, S (a question in both is held out in both).")
@click.option("--friendsqa", type=DATA, multiple=True, help="FriendsQA file(s) (LoCoMo's shape).")
@click.option("--qmsum", type=DATA, multiple=True, help="QMSum file(s) (LoCoMo's shape).")
@FOLDS
@click.option("--ablate/--no-ablate", default=True, show_default=True,
              help="Also measure what leaving out each feature family costs (one refit "
              "per family).")
@click.option("--objective", type=click.Choice(["trees", "listwise", "pointwise"]),
              default="trees", show_default=True,
              help="The shipped model: LambdaMART trees, or a linear model fitted question by "
              "question (listwise) or row by row (pointwise).")
@click.option("--weigh-spans/--no-weigh-spans", default=True, show_default=True,
              help="A question's evidence turns share one unit of training weight (a long "
              "QMSum span weighs what a one-turn answer does).")
@click.option("--without", "left_out", multiple=True, metavar="FAMILY",
              help="Leave a feature family out of the shipped model (repeat for several). "
              "Default: `position`, `kind` and `pair`, as the leave-one-dataset-out matrix "
              "chose (LEFT_OUT in graphmem/training/ranker.py); giving --without replaces "
              "that default.")
@click.option("--monotone/--no-monotone", default=False, show_default=True,
              help="Hold the trees to the directions known in advance (a source's rank, "
              "agreement, date match, small talk).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Per LongMemEval file, the sample of N questions `graphmem eval` takes.")
@click.option("--conversations", type=click.IntRange(min=1), default=None,
              help="Per QMSum file, a sample of N whole conversations (ingesting all of "
              "QMSum takes hours).")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=OUT, default=None,
              help="Ranker file (.json; default: the one graphmem ships; trees are written "
              "beside it).")
@friendly_errors
def train_ranker(locomo: tuple[Path, ...], longmemeval: tuple[Path, ...],
                 friendsqa: tuple[Path, ...], qmsum: tuple[Path, ...], folds: int,
                 ablate: bool, objective: str, weigh_spans: bool, left_out: tuple[str, ...],
                 monotone: bool, limit: int | None, conversations: int | None, seed: int,
                 out: Path | None) -> None:
    """Train the `graphmem` strategy's ranker on development splits, validated on whole
    conversations held out and, given two datasets or more, on each dataset held out
    entirely (the leave-one-dataset-out matrix, which chooses the packing exponent, the blend
    with the unlearned order and the window over neighbouring turns); the spaces are ingested
    (and reused) as `graphmem eval` does."""
    from graphmem.client import Memory
    from graphmem.retrieve.fused import SHIPPED
    from graphmem.training.ranker import LEFT_OUT, collect, feature_families, train

    unknown = sorted(set(left_out) - set(feature_families()))
    if unknown:
        raise click.BadParameter(f"no feature family {', '.join(unknown)}; the families: "
                                 f"{', '.join(feature_families())}", param_hint="--without")
    if not (locomo or longmemeval or friendsqa or qmsum):
        raise click.UsageError("give at least one of --locomo, --longmemeval, --friendsqa, "
                               "--qmsum")
    with Memory(progress=True) as memory:
        samples = [s for path in locomo for s in collect(memory, "locomo", path, click.echo)]
        samples += [s for path in longmemeval for s in collect(
            memory, "longmemeval", path, click.echo, limit=limit, seed=seed)]
        samples += [s for path in friendsqa for s in collect(
            memory, "locomo", path, click.echo, family="friendsqa")]
        samples += [s for path in qmsum for s in collect(
            memory, "locomo", path, click.echo, seed=seed, family="qmsum",
            conversations=conversations)]
    target = out or SHIPPED
    sources = [p.name for p in (*locomo, *longmemeval, *friendsqa, *qmsum)]
    metrics = train(samples, folds, target, sources, click.echo, ablate,
                    objective, weigh_spans, monotone,  # type: ignore[arg-type]
                    left_out or LEFT_OUT)
    click.echo(f"wrote {target}: gamma {metrics['gamma']}, evidence reached by the "
               f"candidates {metrics['evidence_reached']:.1%}")
    for split, recall in metrics["out_of_fold"].items():
        click.echo(f"  out of fold, {split}: " + ", ".join(
            f"@{b} {100 * r:.1f}%" for b, r in recall.items()))
    held = metrics.get("leave_one_dataset_out")
    if held:
        window = (f"window {held['window']} turns either side, carry {held['carry']}"
                  if held["window"] else "no window")
        click.echo(f"  blend {held['blend']}, packing floor {held['floor']} tokens, {window}")
        for dataset, row in held["matrix"].items():
            click.echo(f"  {dataset} held out ({row['questions']} q): " + ", ".join(
                f"@{b} {100 * r:.1f}%" for b, r in row["evidence"].items()))


@eval_group.command("train-memdecider")
@click.option("--locomo", type=DATA, default=None, help="LoCoMo file: evidence turns are positive.")
@click.option("--longmemeval", type=DATA, default=None,
              help="LongMemEval file: has_answer turns are positive.")
@FOLDS
@click.option("--rl-epochs", type=click.IntRange(0), default=15, show_default=True,
              help="Stage 2 (REINFORCE) epochs; 0 keeps the supervised model.")
@click.option("--out", type=OUT, default=None,
              help="Model file (.npz; default: the one graphmem ships); metrics go beside it "
              "as .json.")
@friendly_errors
def train_memdecider(locomo: Path | None, longmemeval: Path | None, folds: int, rl_epochs: int,
                     out: Path | None) -> None:
    """Train EMA's MemDecider (admission filter) on development splits and validate it by
    holding whole conversations out."""
    from graphmem.config import Settings
    from graphmem.ingest.layers.episodes import METRICS_PATH, MODEL_PATH
    from graphmem.providers.embedder import SentenceTransformerEmbedder
    from graphmem.training.memdecider import TrainConfig, episodes, train

    if locomo is None and longmemeval is None:
        raise click.UsageError("give --locomo, --longmemeval or both")
    embedder = SentenceTransformerEmbedder.from_settings(Settings())
    eps = episodes(locomo, longmemeval, embedder, click.echo)
    model_path = out or MODEL_PATH
    metrics_path = model_path.with_suffix(".json") if out else METRICS_PATH
    sources = [p.name for p in (locomo, longmemeval) if p is not None]
    m = train(eps, TrainConfig(folds=folds, rl_epochs=rl_epochs), model_path, metrics_path,
              sources, click.echo)
    click.echo(f"wrote {model_path} and {metrics_path}: tau {m['tau']}")
    for stage in ("stage1", "stage2"):
        p = m[stage]["pooled"]
        click.echo(f"  {stage}: AUC {p['roc_auc']}, admitted {p['admitted']:.1%}, evidence "
                   f"admitted {p['evidence_admitted']:.1%}, precision {p['precision']:.1%}")
