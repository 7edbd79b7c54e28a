"""Scale: search latency, recall of planted facts, store size, memory and ingest rate as the
database grows, in one space and spread over many spaces, LLM-free.

    python benchmarks/scale.py [--sizes 10000,100000] [--layout one|many|both] [--spaces 1000]
                               [--out docs/results/scale.json]   # .md and .png beside it

Runs on a server of its own (GRAPHMEM_HOME/scale, ports of its own, built jars shared), wiped
at the start of each layout, so the dev database is neither measured nor touched.

Data: synthetic conversations recombined from LoCoMo dev (``graphmem.eval.synthetic``): runs
of real sessions with new speaker names and shifted dates. Embeddings come from a pool: every
dev turn line is embedded once by MiniLM, and a synthetic turn gets the vector of the dev
turn it was made from (its names differ, its vector does not follow them), so the benchmark
measures the database and the retrieval, not the embedder. Planted facts (a unique value
said by a named speaker) and their questions are embedded for real.

Layouts: ``one`` puts every turn in one space; ``many`` spreads them over --spaces spaces:
the largest holds 10%, a small tenant stays at ~300 turns at every size (its answers must
not change as the others grow), the rest share what is left. Sizes are reached in turn,
adding to what is stored; facts are planted at the first size and asked at every size.
Only raw turns are ingested (layers=turns): `graphmem` then ranks BM25 and dense turns.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path
from typing import Any

import numpy as np
from common import LOCOMO, make_parser

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.eval.synthetic import PlantedFact, PoolEmbedder, Synthesizer
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.models import ConversationRecord
from graphmem.neo4j_server.local import LocalNeo4j

STRATEGIES = ("turns", "graphmem")
BUDGET = 1000
CHUNK = 40  # conversations per ingest call


def server(settings: Settings, heap: str, pagecache: str) -> LocalNeo4j:
    home = settings.home / "scale"
    subprocess.run(["rm", "-rf", str(home / "neo4j" / "data")], check=True)
    return LocalNeo4j(settings).sibling(
        home, neo4j_uri="bolt://127.0.0.1:17787", neo4j_http_port=17574, neo4j_heap=heap,
        neo4j_pagecache=pagecache, neo4j_timeout=60.0)


def disk_mb(path: Path) -> float:
    out = subprocess.run(["du", "-sk", str(path)], capture_output=True, text=True, check=True)
    return int(out.stdout.split()[0]) / 1024


def ingest(memory: Memory, batches: dict[str, list[ConversationRecord]]) -> tuple[int, float]:
    turns, began = 0, time.perf_counter()
    for space, records in batches.items():
        for start in range(0, len(records), CHUNK):
            turns += memory.ingest(records[start:start + CHUNK], space=space,
                                   layers="turns").turns
    return turns, time.perf_counter() - began


def probe(memory: Memory, space: str, facts: list[PlantedFact]) -> dict[str, Any]:
    """Latency and recall of both strategies on the space's planted questions."""
    out: dict[str, Any] = {}
    for strategy in STRATEGIES:
        began = time.perf_counter()
        memory.search(facts[0].question, space=space, strategy=strategy, budget=BUDGET)
        first = time.perf_counter() - began  # builds the space's BM25 table (graphmem)
        seconds, found, answers = [], 0, []
        for _ in range(3):
            for fact in facts:
                began = time.perf_counter()
                result = memory.search(fact.question, space=space, strategy=strategy,
                                       budget=BUDGET)
                seconds.append(time.perf_counter() - began)
                ids = [i for hit in result.hits for i in hit.source_ids]
                found += fact.source_id in ids
                answers.append(ids)
        ms = np.array(seconds) * 1000
        out[strategy] = {"first_ms": round(first * 1000, 1),
                         "p50_ms": round(float(np.percentile(ms, 50)), 1),
                         "p95_ms": round(float(np.percentile(ms, 95)), 1),
                         "recall": round(found / len(seconds), 3),
                         "answers": answers[: len(facts)]}
    return out


def run_layout(layout: str, sizes: list[int], args: argparse.Namespace,
               synth: Synthesizer, pool: PoolEmbedder) -> list[dict[str, Any]]:
    local = server(Settings(), args.heap, args.pagecache)
    local.start()
    rows: list[dict[str, Any]] = []
    plan = synth.plan(layout, args.spaces)
    first: dict[tuple[str, str], Any] = {}  # the first size's answers, by tenant and strategy
    try:
        with Memory(local.settings, embedder=pool) as memory:
            memory.ensure_schema()
            stored = 0
            for size in sizes:
                batches = synth.grow(plan, size - stored)
                if stored == 0:
                    synth.plant(batches, plan.probed, args.facts)
                turns, seconds = ingest(memory, batches)
                stored += turns
                row: dict[str, Any] = {
                    "layout": layout, "turns": stored,
                    "spaces": sum(n > 0 for n in plan.stored.values()),
                    "ingest_turns_per_s": round(turns / seconds, 1), "tenants": {}}
                for name, space in plan.probed.items():
                    tenant_turns = memory.store.read("admin/space_state", space=space,
                                                     layers=[])[0]["in_space"]
                    found = probe(memory, space, synth.facts[space])
                    for strategy in STRATEGIES:  # a tenant that did not grow answers the same
                        answers = found[strategy].pop("answers")
                        found[strategy]["same_as_first_size"] = \
                            first.setdefault((name, strategy), answers) == answers
                    row["tenants"][name] = {"space_turns": tenant_turns, **found}
                row["neo4j_rss_mb"] = round(local.status().rss_mb or 0.0, 1)
                local.stop()  # a clean shutdown writes everything into the store files
                row["store_mb"] = round(disk_mb(local.home / "data" / "databases"), 1)
                row["tx_log_mb"] = round(disk_mb(local.home / "data" / "transactions"), 1)
                local.start()
                rows.append(row)
                brief = {k: v for k, v in row.items() if k != "tenants"}
                print(json.dumps(brief), flush=True)
                for name, tenant in row["tenants"].items():
                    print(f"  {name} ({tenant['space_turns']} turns): " + ", ".join(
                        f"{s} p50 {tenant[s]['p50_ms']} p95 {tenant[s]['p95_ms']} ms "
                        f"recall {tenant[s]['recall']}, same as first size "
                        f"{tenant[s]['same_as_first_size']}" for s in STRATEGIES), flush=True)
    finally:
        local.stop()
    return rows


def markdown(rows: list[dict[str, Any]], remark: str = "") -> str:
    """The table for docs/results.md: one row per size, layout and probed tenant."""
    out = [*([remark, ""] if remark else []),
           f"Search at {BUDGET} tokens; recall = planted facts whose turn is in the context; "
           "'same' = the tenant's answers equal those at the first size (a tenant that did "
           "not grow must answer the same); graphmem's first search on a space after a "
           "restart builds the space's BM25 table in the client.", "",
           "| layout | turns | spaces | ingest turns/s | store MB | tx logs MB | Neo4j RSS MB "
           "| tenant (turns) | turns p50 / p95 ms | graphmem p50 / p95 ms | graphmem first "
           "search ms | recall turns / graphmem | same turns / graphmem |",
           "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for row in rows:
        for tenant, found in row["tenants"].items():
            t, g = found["turns"], found["graphmem"]
            out.append(
                f"| {row['layout']} | {row['turns']:,}{' (busy)' if row.get('noisy') else ''} | "
                f"{row['spaces']} | "
                f"{row['ingest_turns_per_s']:.0f} | {row['store_mb']:.0f} | "
                f"{row['tx_log_mb']:.0f} | {row['neo4j_rss_mb']:.0f} | "
                f"{tenant} ({found['space_turns']:,}) | {t['p50_ms']:.0f} / {t['p95_ms']:.0f} | "
                f"{g['p50_ms']:.0f} / {g['p95_ms']:.0f} | {g['first_ms']:,.0f} | "
                f"{t['recall']:.2f} / {g['recall']:.2f} "
                f"| {'yes' if t['same_as_first_size'] else 'no'} / "
                f"{'yes' if g['same_as_first_size'] else 'no'} |")
    return "\n".join(out) + "\n"


def save(rows: list[dict[str, Any]], sizes: list[int], out: Path, remark: str = "") -> None:
    """JSON, Markdown table and PNG plot side by side; ``remark`` heads the table."""
    out.write_text(json.dumps({"sizes": sizes, "budget": BUDGET, "remark": remark,
                               "rows": rows}, indent=1, default=str))
    out.with_suffix(".md").write_text(markdown(rows, remark))
    quiet = [row for row in rows if not row.get("noisy")]  # measured beside other work
    png = out.with_suffix(".png")
    png.unlink(missing_ok=True)
    if len({row["turns"] for row in quiet}) > 1:
        plot(quiet, png)


def plot(rows: list[dict[str, Any]], path: Path) -> None:
    """Search p50 and p95 against the database's size, one line per layout, tenant and
    strategy."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
    lines: dict[tuple[str, str, str], list[tuple[int, float, float]]] = {}
    for row in rows:
        for tenant, found in row["tenants"].items():
            for strategy in STRATEGIES:
                lines.setdefault((row["layout"], tenant, strategy), []).append(
                    (row["turns"], found[strategy]["p50_ms"], found[strategy]["p95_ms"]))
    for (layout, tenant, strategy), points in sorted(lines.items()):
        label = f"{strategy}, {tenant} tenant" + (" (one space)" if layout == "one" else "")
        style = "-" if strategy == "graphmem" else "--"
        for ax, col in zip(axes, (1, 2), strict=True):
            ax.plot([p[0] for p in points], [p[col] for p in points], style, marker="o",
                    label=label)
    for ax, title in zip(axes, ("p50", "p95"), strict=True):
        ax.set_xscale("log")
        ax.set_ylim(bottom=0)
        ax.set_xlabel("turns in the database")
        ax.set_title(f"search latency {title} (budget {BUDGET} tokens)")
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("ms")
    axes[1].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--layout", choices=["one", "many", "both"], default="both")
    parser.add_argument("--spaces", type=int, default=1000)
    parser.add_argument("--facts", type=int, default=10, help="planted per probed tenant")
    parser.add_argument("--heap", default="2g")
    parser.add_argument("--pagecache", default="2g")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=None,
                        help="JSON; its Markdown table and PNG plot beside it")
    parser.add_argument("--plot-only", action="store_true",
                        help="redraw --out's table and plot from its JSON")
    parser.add_argument("--remark", default="", help="a line to head the table with")
    args = parser.parse_args()
    if args.plot_only:
        saved = json.loads(args.out.read_text())
        save(saved["rows"], saved["sizes"], args.out, args.remark or saved.get("remark", ""))
        return
    sizes = sorted(int(s) for s in args.sizes.split(","))
    source = parse_file(args.data, "locomo").conversations
    settings = Settings()
    with Memory(settings) as real:
        began = time.perf_counter()
        pool = PoolEmbedder.from_conversations(real.embedder, source)
        print(f"embedding pool: {len(pool)} dev turn lines in "
              f"{time.perf_counter() - began:.0f}s", flush=True)
    synth = Synthesizer(source, pool, seed=args.seed)
    layouts = ["one", "many"] if args.layout == "both" else [args.layout]
    rows = [row for layout in layouts for row in run_layout(layout, sizes, args, synth, pool)]
    if args.out:
        save(rows, sizes, args.out, args.remark)


if __name__ == "__main__":
    main()
