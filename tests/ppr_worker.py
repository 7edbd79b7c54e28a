"""One process of the concurrent PPR test: several threads search many spaces with emem-g at
once and print, as JSON, the hits each search found, how many searches were tried and every
error met.

    python tests/ppr_worker.py THREADS SEED SPACE...

Once its models are loaded the process prints "ready" and reads from standard input a start
time (seconds since the epoch) that the test gives every process once all are ready: the spaces
searched follow phases of that shared clock, not of each thread's progress, so a slow machine
can neither blur the phases into each other nor leave a process loading past the last phase.
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time

from graphmem.client import Memory

QUESTIONS = ["What did Lena buy in Bergen?", "Where did Omar buy a guitar?"]
PHASE, PHASES, PAUSE = 2.5, 5, 0.3  # a phase lasts well past the test's 1 s grace


def phase_spaces(phase: int, spaces: list[str]) -> list[str]:
    """The two spaces searched in ``phase``: (0, 1), (2, 3), (4, 0), (1, 2), ... over five
    spaces. A space left alone for a whole phase is past the grace period when the next
    phase makes its projections, so it is evicted, and a later phase makes it again."""
    first = 2 * phase
    return [spaces[first % len(spaces)], spaces[(first + 1) % len(spaces)]]


def main() -> None:
    threads, seed = int(sys.argv[1]), int(sys.argv[2])
    spaces = sys.argv[3:]
    found: list[dict[str, object]] = []
    errors: list[str] = []
    tried = [0] * threads  # one count per thread: no two threads add to one number
    with Memory() as memory:
        memory.warm_up()  # models loaded before the clock starts
        print("ready", flush=True)
        start = float(sys.stdin.readline())

        def work(n: int) -> None:
            pick = random.Random(seed * 100 + n)
            time.sleep(max(0.0, start - time.time()) + pick.uniform(0, PAUSE))
            while (elapsed := time.time() - start) < PHASE * PHASES:
                space = pick.choice(phase_spaces(int(elapsed // PHASE), spaces))
                question = pick.choice(QUESTIONS)
                tried[n] += 1
                try:
                    hits = memory.search(question, space=space, strategy="emem-g").hits
                    found.append({"space": space, "question": question,
                                  "ids": [h.id for h in hits]})
                except Exception as exc:  # every failure counts
                    errors.append(f"{type(exc).__name__}: {exc}")
                time.sleep(PAUSE)

        workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
        for worker in workers:
            worker.start()
        for worker in workers:
            worker.join()
        stats = memory.projections.stats
    print(json.dumps({"found": found, "tried": sum(tried), "errors": errors, "stats": stats}))


if __name__ == "__main__":
    main()
