"""Concurrent read load: threads searching one client at once, LLM-free.

    python benchmarks/read_load.py [--conversations 2] [--threads 1,4,8] [--searches 40]
                                   [--strategy graphmem] [--out load.json]

LoCoMo dev conversations are ingested with every default layer into a fresh space (kept
between runs when --space names one that exists), then for each thread count every thread
asks --searches of the dataset's questions through one shared ``Memory``, as a REST or MCP
server does. Prints, per thread count, the errors (there must be none), the searches per
second and the p50/p95 of one search; and that each answer equals the lone search's. Keep
other CPU work off the machine while it runs.
"""

from __future__ import annotations

import json
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from common import LOCOMO, make_parser

from graphmem.client import Memory
from graphmem.eval.datasets import locomo_questions
from graphmem.ingest.inputs.loaders import parse_file


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--conversations", type=int, default=2)
    parser.add_argument("--threads", default="1,4,8")
    parser.add_argument("--searches", type=int, default=40, help="per thread")
    parser.add_argument("--strategy", default="graphmem")
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--space", default=None, help="keep and reuse this space")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversations = parse_file(args.data, "locomo").conversations[: args.conversations]
    keys = {c.key for c in conversations}
    questions = [q.question for q in locomo_questions(args.data) if q.conversation in keys]
    space = args.space or f"bench-load-{uuid.uuid4().hex[:8]}"
    results: dict[str, Any] = {"strategy": args.strategy, "budget": args.budget, "runs": []}
    with Memory() as memory:
        print(f"warm-up {memory.warm_up():.1f}s")
        if not memory.has_space(space):
            began = time.perf_counter()
            memory.ingest(conversations, space=space)
            print(f"ingested {len(conversations)} conversations in "
                  f"{time.perf_counter() - began:.0f}s")

        def search(question: str) -> tuple[float, list[str] | None]:
            began = time.perf_counter()
            try:
                found = memory.search(question, space=space, strategy=args.strategy,
                                      budget=args.budget)
            except Exception as exc:  # counted, never hidden
                print(f"error: {type(exc).__name__}: {exc}")
                return time.perf_counter() - began, None
            return time.perf_counter() - began, [hit.id for hit in found.hits]

        lone = {q: search(q)[1] for q in dict.fromkeys(questions)}  # also builds caches
        try:
            for threads in (int(n) for n in args.threads.split(",")):
                asked = [questions[(t * 7919 + i) % len(questions)]
                         for t in range(threads) for i in range(args.searches)]
                began = time.perf_counter()
                with ThreadPoolExecutor(max_workers=threads) as pool:
                    answers = list(pool.map(search, asked))
                wall = time.perf_counter() - began
                seconds = np.array([s for s, _ in answers]) * 1000
                run = {"threads": threads, "searches": len(asked),
                       "errors": sum(hits is None for _, hits in answers),
                       "differ_from_lone": sum(hits is not None and hits != lone[q]
                                               for q, (_, hits) in zip(asked, answers,
                                                                       strict=True)),
                       "per_second": round(len(asked) / wall, 1),
                       "p50_ms": round(float(np.percentile(seconds, 50)), 1),
                       "p95_ms": round(float(np.percentile(seconds, 95)), 1)}
                results["runs"].append(run)
                print(json.dumps(run))
        finally:
            if args.space is None:
                memory.delete_space(space)
    if args.out:
        args.out.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
