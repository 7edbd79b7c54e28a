"""The first `graphmem` search after a live message: the client refreshing what changed in its
copy of the space (the new units' vectors, the new turns' BM25 terms) against reading the
space whole again.

    python benchmarks/space_refresh.py [--data ../shared/data/locomo/locomo_dev.json]
        [--conversation 0] [--messages 20] [--out space_refresh.json]

Ingests one conversation with every default layer into a space of its own (removed at the
end), then for each live message waits for its layers and times the next search, alternating
between the refresh (what a client does) and a client that forgot the space (a whole read).
Keep other CPU work off the machine while it runs.
"""

from __future__ import annotations

import statistics
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
    parser.add_argument("--messages", type=int, default=20)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversation = parse_file(args.data, "locomo").conversations[args.conversation]
    questions = [q.question for q in locomo_questions(args.data)
                 if q.conversation == conversation.key]
    space = f"bench-refresh-{uuid.uuid4().hex[:8]}"
    took: dict[str, list[float]] = {"refresh": [], "whole read": [], "warm": []}
    with Memory(progress=True) as memory:
        try:
            memory.ingest([conversation], space=space)
            memory.search(questions[0], space=space)  # the space's first read, not timed
            for i in range(args.messages):
                memory.add_messages(space, "live", [{
                    "speaker": conversation.speakers[i % len(conversation.speakers)],
                    "text": f"Message {i}: {questions[(i + 1) % len(questions)]}"}])
                memory.flush()
                way = "refresh" if i % 2 == 0 else "whole read"
                if way == "whole read":
                    memory.caches.forget(space)
                question = questions[i % len(questions)]
                began = time.perf_counter()
                memory.search(question, space=space)
                took[way].append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                memory.search(question, space=space)  # nothing changed since: cached
                took["warm"].append((time.perf_counter() - began) * 1000)
        finally:
            memory.delete_space(space)
    result = {"conversation": conversation.key, "turns": conversation.n_turns,
              "messages": args.messages,
              **{f"{way} ms": {"p50": round(percentile(ms, 50), 1),
                               "p95": round(percentile(ms, 95), 1),
                               "mean": round(statistics.fmean(ms), 1)}
                 for way, ms in took.items() if ms}}
    publish(result, args.out, indent=1)


if __name__ == "__main__":
    main()
