"""The commands that train graphmem's learned parts on development splits, offered under
`graphmem eval` (`train-ranker`, `train-memdecider`, `calibrate-segmenter`). Only the command
line imports ``graphmem.training``: nothing graphmem runs to serve memory does."""

from __future__ import annotations

from pathlib import Path

import click

from graphmem.cli.support import DATA, OUT, friendly_errors

FOLDS = click.option("--folds", type=click.IntRange(2, 20), default=5, show_default=True,
                     help="Folds of whole conversations held out for validation.")


@click.command("calibrate-segmenter")
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


@click.command("train-ranker")
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
@click.option("--bound", type=click.FloatRange(min=0.0), default=0.5, show_default=True,
              help="Points of its held-out score any one dataset may lose against the "
              "packing settings of the ranker in use; the matrix's best mean is refused when "
              "it costs more.")
@click.option("--guard/--no-guard", default=True, show_default=True,
              help="Hold the choice to --bound against the ranker in use (GRAPHMEM_RANKER or "
              "the shipped one).")
@click.option("--out", type=OUT, default=None,
              help="Ranker file (.json; default: the one graphmem ships; trees are written "
              "beside it).")
@friendly_errors
def train_ranker(locomo: tuple[Path, ...], longmemeval: tuple[Path, ...],
                 friendsqa: tuple[Path, ...], qmsum: tuple[Path, ...], folds: int,
                 ablate: bool, objective: str, weigh_spans: bool, left_out: tuple[str, ...],
                 monotone: bool, limit: int | None, conversations: int | None, seed: int,
                 bound: float, guard: bool, out: Path | None) -> None:
    """Train the `graphmem` strategy's ranker on development splits, validated on whole
    conversations held out and, given two datasets or more, on each dataset held out
    entirely (the leave-one-dataset-out matrix, which chooses the packing exponent, the blend
    with the unlearned order and the window over neighbouring turns); the spaces are ingested
    (and reused) as `graphmem eval` does."""
    from graphmem.client import Memory
    from graphmem.config import Settings
    from graphmem.retrieve.fused import SHIPPED, load_ranker
    from graphmem.training.ranker import LEFT_OUT, collect, feature_families, train

    unknown = sorted(set(left_out) - set(feature_families()))
    if unknown:
        raise click.BadParameter(f"no feature family {', '.join(unknown)}; the families: "
                                 f"{', '.join(feature_families())}", param_hint="--without")
    if not (locomo or longmemeval or friendsqa or qmsum):
        raise click.UsageError("give at least one of --locomo, --longmemeval, --friendsqa, "
                               "--qmsum")
    configured = Settings().ranker  # the ranker in use, read before --out may overwrite it
    in_use = load_ranker(str(configured) if configured else None).rule if guard else None
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
                    left_out or LEFT_OUT, in_use, bound / 100)
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
        fenced = held.get("bounded")
        if fenced and fenced["unbounded"] != fenced["guard"]:
            refused = fenced["unbounded_refused"]
            click.echo(f"  best mean {fenced['unbounded']}: "
                       + ("refused, it costs a dataset more than " if refused else "within ")
                       + f"{100 * fenced['bound']:.1f} points against {fenced['guard']}")
        for dataset, row in held["matrix"].items():
            click.echo(f"  {dataset} held out ({row['questions']} q): " + ", ".join(
                f"@{b} {100 * r:.1f}%" for b, r in row["evidence"].items()))


@click.command("train-memdecider")
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
              sources, click.echo, embedder.name)
    click.echo(f"wrote {model_path} and {metrics_path}: tau {m['tau']}")
    for stage in ("stage1", "stage2"):
        p = m[stage]["pooled"]
        click.echo(f"  {stage}: AUC {p['roc_auc']}, admitted {p['admitted']:.1%}, evidence "
                   f"admitted {p['evidence_admitted']:.1%}, precision {p['precision']:.1%}")


@click.command("train-embedder")
@click.option("--longmemeval", type=DATA, multiple=True, help="LongMemEval file(s).")
@click.option("--friendsqa", type=DATA, multiple=True, help="FriendsQA file(s) (LoCoMo's shape).")
@click.option("--qmsum", type=DATA, multiple=True, help="QMSum file(s) (LoCoMo's shape).")
@click.option("--locomo", type=DATA, multiple=True,
              help="LoCoMo file(s). Its licence (CC BY-NC 4.0) binds a model trained on it: "
              "the embedder graphmem ships is trained without it.")
@click.option("--conversations", type=click.IntRange(min=1), default=None,
              help="Per QMSum file, a sample of N whole conversations (seed 0).")
@click.option("--per-dataset", type=click.IntRange(min=1), default=600, show_default=True,
              help="Most (question, evidence turn) pairs taken from one dataset.")
@click.option("--epochs", type=click.IntRange(min=1), default=1, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write the model (sentence-transformers files and a model card).")
@friendly_errors
def train_embedder(longmemeval: tuple[Path, ...], friendsqa: tuple[Path, ...],
                   qmsum: tuple[Path, ...], locomo: tuple[Path, ...],
                   conversations: int | None, per_dataset: int, epochs: int, seed: int,
                   out: Path) -> None:
    """Tune the packaged MiniLM for dialogue memory on (question, evidence turn) pairs of
    development splits (contrastive, hard negatives from plain MiniLM's first turns; needs
    the `train` extra). Use the result with GRAPHMEM_EMBEDDING_MODEL=<folder>, and move
    spaces embedded by another model with `graphmem reembed`."""
    import time
    from collections import Counter

    from graphmem.training.embedder import Source, balanced, card, load, save, tune

    sources = ([Source("longmemeval", p, "longmemeval") for p in longmemeval]
               + [Source("friendsqa", p) for p in friendsqa]
               + [Source("qmsum", p, conversations=conversations) for p in qmsum]
               + [Source("locomo", p) for p in locomo])
    if not sources:
        raise click.UsageError("give at least one of --longmemeval, --friendsqa, --qmsum, "
                               "--locomo")
    try:
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise click.ClickException("training needs PyTorch and sentence-transformers: "
                                   "pip install 'graphmem[train]'") from exc
    from graphmem.providers.embedder import packaged_minilm_path

    plain = SentenceTransformer(str(packaged_minilm_path()), device="cpu")
    conversations_of, asked = load(sources, plain)
    pairs = Counter(a.dataset for a, _ in balanced(asked, per_dataset, seed))
    click.echo(f"{len(asked)} questions, pairs: " + ", ".join(
        f"{name} {n}" for name, n in sorted(pairs.items())))
    began = time.perf_counter()
    model = tune(asked, conversations_of, per_dataset, epochs, seed, log=click.echo)
    command = " ".join(["graphmem eval train-embedder", *(f"--{s.name} {s.path.name}"
                                                          for s in sources),
                        *([f"--conversations {conversations}"] if conversations else []),
                        f"--per-dataset {per_dataset} --epochs {epochs} --seed {seed}",
                        f"--out {out.name}"])
    text = card(sources, per_dataset, epochs, seed, time.perf_counter() - began,
                dict(pairs), command)
    click.echo(f"wrote {save(model, out, text)}")


COMMANDS = (calibrate_segmenter, train_ranker, train_memdecider, train_embedder)
