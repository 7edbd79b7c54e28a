"""AsyncMemory under ``asyncio.gather``: concurrent searches against one after another, and how
long the event loop is held meanwhile (the longest a 1 ms timer fires late), warm and right
after a write (every search then misses the client's cache of the space at once).

    python benchmarks/async_gather.py [--conversations 1] [--searches 8] [--rounds 5]
                                      [--out docs/results/async_gather.json]

One LoCoMo dev conversation's turns go into a fresh space (turns only: what is measured is
the client, not the layers); the searches ask the dataset's first questions. Prints, per
case, the median over --rounds of the wall time and of the loop's longest lag.
"""

from __future__ import annotations

import asyncio
import statistics
import time
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from common import LOCOMO, make_parser, publish

from graphmem import AsyncMemory
from graphmem.eval.datasets import locomo_questions
from graphmem.ingest.inputs.loaders import parse_file


async def timed(run: Callable[[], Awaitable[Any]]) -> tuple[float, float]:
    """Wall milliseconds of ``run`` and the event loop's longest lag meanwhile."""
    lags: list[float] = []
    done = False

    async def tick() -> None:
        while not done:
            began = time.perf_counter()
            await asyncio.sleep(0.001)
            lags.append(time.perf_counter() - began - 0.001)

    ticker = asyncio.create_task(tick())
    began = time.perf_counter()
    await run()
    wall = time.perf_counter() - began
    done = True
    await ticker
    return wall * 1000, max(lags, default=0.0) * 1000


async def measure(args: Any) -> dict[str, Any]:
    records = parse_file(args.data, "locomo").conversations[:args.conversations]
    questions = [q.question for q in locomo_questions(args.data)][:args.searches]
    space = f"bench-gather-{uuid.uuid4().hex[:8]}"
    rows: dict[str, list[tuple[float, float]]] = {}
    async with AsyncMemory() as memory:
        await memory.ingest(records, space=space, layers="")
        try:
            await memory.search(questions[0], space=space)  # models loaded, caches filled
            for _ in range(args.rounds):
                for after_write in (False, True):
                    for mode in ("one after another", "gather"):
                        if after_write:
                            await memory.add_messages(space, "probe", [
                                {"speaker": "user", "text": f"probe {uuid.uuid4().hex}"}])

                        async def run(gathered: bool = mode == "gather") -> None:
                            if gathered:
                                await asyncio.gather(*(memory.search(q, space=space)
                                                       for q in questions))
                            else:
                                for q in questions:
                                    await memory.search(q, space=space)

                        name = f"{mode}, {'after a write' if after_write else 'warm'}"
                        rows.setdefault(name, []).append(await timed(run))
        finally:
            await memory.delete_space(space)
    return {"searches": len(questions), "rounds": args.rounds, "cases": {
        name: {"wall_ms": round(statistics.median(w for w, _ in got), 1),
               "max_loop_lag_ms": round(statistics.median(lag for _, lag in got), 1)}
        for name, got in rows.items()}}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--conversations", type=int, default=1)
    parser.add_argument("--searches", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    publish(asyncio.run(measure(args)), args.out)


if __name__ == "__main__":
    main()
