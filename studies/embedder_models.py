"""Another embedding model as the space's embedder, turns and questions only (issue 90, use
a): the dev datasets ingested with the turns layer by each model, then `turns-vector` (cosine
alone), `turns` (BM25 and cosine fused) and `graphmem` (its ranker over the sources a
turns-only space holds) measured by `graphmem eval` under `docs/evaluation.md`'s contract.

    python studies/embedder_models.py --model all-MiniLM-L6-v2 --model embeddinggemma-300m \
        [--lme-limit 150] [--qmsum-conversations 8] [--work /tmp/embedder_models] \
        [--out embedder_models.json]

Each model other than the packaged MiniLM must be installed (`graphmem models install`). Each
runs against a Neo4j server of its own (vector indexes are one dimension per database): its
own GRAPHMEM_HOME under ``--work`` (sharing the installed models of this one) and its own
ports, started by `graphmem neo4j start`. A run already written under ``--work`` is reused,
so a stopped study goes on where it stopped. Prints, per dataset, model and strategy,
evidence recall at 500 / 1,000 / 2,000 tokens, by category at 1,000, answer recall, search
p50 / p95 and the seconds ingest took.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from common import DATA, make_parser, publish

from graphmem.config import Settings

STRATEGIES = ("turns-vector", "turns", "graphmem")


def datasets(args: Any) -> list[tuple[str, str, list[str]]]:
    """(name, eval command, its arguments) of each dev dataset."""
    return [
        ("locomo", "locomo", ["--data", str(DATA / "locomo" / "locomo_dev.json")]),
        ("friendsqa", "locomo", ["--data", str(DATA / "friendsqa" / "friendsqa_dev.json")]),
        ("qmsum", "locomo", ["--data", str(DATA / "qmsum" / "qmsum_val.json.gz"),
                             "--conversations", str(args.qmsum_conversations)]),
        ("longmemeval", "longmemeval", [
            "--data", str(DATA / "longmemeval" / "longmemeval_oracle_dev.json"),
            "--limit", str(args.lme_limit)]),
    ]


def environment(model: str, number: int, work: Path) -> dict[str, str]:
    home = work / model
    home.mkdir(parents=True, exist_ok=True)
    models = home / "models"
    if not models.exists():
        models.symlink_to(Settings().models_dir, target_is_directory=True)
    return {**os.environ, "GRAPHMEM_HOME": str(home), "GRAPHMEM_EMBEDDING_MODEL": model,
            "GRAPHMEM_INGEST_LAYERS": "",  # the turns layer only (every layer: issue 90, 2a)
            "GRAPHMEM_NEO4J_URI": f"bolt://127.0.0.1:{27687 + 10 * number}",
            "GRAPHMEM_NEO4J_HTTP_PORT": str(27474 + 10 * number)}


def run(model: str, number: int, args: Any) -> dict[str, Any]:
    env = environment(model, number, args.work)
    graphmem = [sys.executable, "-m", "graphmem"]
    subprocess.run([*graphmem, "neo4j", "start"], env=env, check=True,
                   stdout=subprocess.DEVNULL)
    found: dict[str, Any] = {}
    for name, command, options in datasets(args):
        out = args.work / model / f"{name}.json"
        if not out.exists():
            chosen = [a for s in STRATEGIES for a in ("--strategy", s)]
            subprocess.run([*graphmem, "eval", command, *options, *chosen, "--out", str(out)],
                           env=env, check=True, stdout=subprocess.DEVNULL)
        found[name] = json.loads(out.read_text())
    subprocess.run([*graphmem, "neo4j", "stop"], env=env, check=False,
                   stdout=subprocess.DEVNULL)
    return found


def summary(report: dict[str, Any]) -> dict[str, Any]:
    """What the study's table shows of one eval report."""
    out = {}
    for strategy, r in report["strategies"].items():
        out[strategy] = {
            "questions": r["n_questions"],
            "evidence": {k: round(100 * v, 1) for k, v in r["evidence_recall"].items()},
            "evidence_1000_by_category": {
                c: round(100 * v["1000"], 1)
                for c, v in sorted(r["evidence_recall_by_category"].items())},
            "answers": {k: round(100 * v, 1) for k, v in r["answer_recall"].items()},
            "latency_ms": r["latency_ms"], "ingest_seconds": r.get("ingest_seconds")}
    return out


def table(result: dict[str, Any]) -> str:
    """The study as one Markdown table: a row per dataset, model and strategy."""
    rows = ["| dataset | model | strategy | @500 | @1,000 | @2,000 | by category @1,000 | "
            "answers @1,000 | p50 / p95 ms | ingest s |", "|" + "---|" * 10]
    for dataset, models in result.items():
        for model, strategies in models.items():
            for strategy, r in strategies.items():
                e = r["evidence"]
                kinds = ", ".join(f"{c} {v}" for c, v in r["evidence_1000_by_category"].items())
                rows.append(f"| {dataset} | {model} | {strategy} | {e['500']} | {e['1000']} | "
                            f"{e['2000']} | {kinds} | {r['answers']['1000']} | "
                            f"{r['latency_ms']['p50']:.0f} / {r['latency_ms']['p95']:.0f} | "
                            f"{r['ingest_seconds']} |")
    return "\n".join(rows)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--model", action="append", required=True)
    parser.add_argument("--lme-limit", type=int, default=150)
    parser.add_argument("--qmsum-conversations", type=int, default=8)
    parser.add_argument("--work", type=Path, default=Path("/tmp/embedder_models"))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    result: dict[str, Any] = {}
    for number, model in enumerate(args.model):
        for name, report in run(model, number, args).items():
            result.setdefault(name, {})[model] = summary(report)
    publish(result, args.out)
    print(table(result))


if __name__ == "__main__":
    main()
