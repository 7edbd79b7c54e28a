"""What ``explain`` adds to a search: search latency with and without it, per strategy.

    python benchmarks/explain_cost.py [--data ../shared/data/locomo/locomo_dev.json]
        [--conversation 0] [--questions 60] [--layers turns,edus,events,segments]
        [--strategies graphmem,turns,emem-g,esmem,mms] [--out explain_cost.json]

Ingests one LoCoMo conversation (the layers named; default every default layer) into a
space of its own (removed at the end), warms each strategy up, then asks each question twice
in alternating order (explained first on every second question), so the two sides share the
machine's state. Reports p50/p95 of each side and the ratio of the p50s; the target is at
most 1.2 (docs/explain.md). Keep other CPU work off the machine while it runs.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from common import LOCOMO, make_parser, publish

from graphmem import Memory
from graphmem.eval.datasets import locomo_questions
from graphmem.eval.metrics import percentile
from graphmem.ingest.inputs.loaders import parse_file


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--conversation", type=int, default=0)
    parser.add_argument("--questions", type=int, default=60)
    parser.add_argument("--budget", type=int, default=1000)
    parser.add_argument("--layers", default=None, help="comma-separated; default: the defaults")
    parser.add_argument("--strategies", default="graphmem,turns,emem-g,esmem,mms")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversation = parse_file(args.data, "locomo").conversations[args.conversation]
    questions = [q.question for q in locomo_questions(args.data)
                 if q.conversation == conversation.key][: args.questions]
    space = f"bench-explain-{uuid.uuid4().hex[:8]}"
    strategies: dict[str, object] = {}
    out = {"conversation": conversation.key, "turns": conversation.n_turns,
           "questions": len(questions), "budget": args.budget, "strategies": strategies}
    with Memory(progress=True) as memory:
        try:
            layers = args.layers.split(",") if args.layers else None
            memory.ingest([conversation], space=space, layers=layers)
            for strategy in args.strategies.split(","):
                took: dict[bool, list[float]] = {False: [], True: []}
                for explain in (False, True):  # warm: the space's first read, the models
                    memory.search(questions[0], space=space, strategy=strategy,
                                  budget=args.budget, explain=explain)
                for i, question in enumerate(questions):
                    for explain in ((True, False) if i % 2 else (False, True)):
                        began = time.perf_counter()
                        memory.search(question, space=space, strategy=strategy,
                                      budget=args.budget, explain=explain)
                        took[explain].append((time.perf_counter() - began) * 1000)
                plain, told = (percentile(took[e], 50) for e in (False, True))
                strategies[strategy] = {
                    "plain ms": {"p50": round(plain, 1),
                                 "p95": round(percentile(took[False], 95), 1)},
                    "explained ms": {"p50": round(told, 1),
                                     "p95": round(percentile(took[True], 95), 1)},
                    "p50 ratio": round(told / plain, 3)}
        finally:
            memory.delete_space(space)
    publish(out, args.out, indent=1)


if __name__ == "__main__":
    main()
