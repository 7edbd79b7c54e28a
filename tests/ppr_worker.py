"""One process of the concurrent PPR test: several threads search many spaces with emem-g at
once and print, as JSON, the hits each search found and every error met.

    python tests/ppr_worker.py THREADS ROUNDS SEED SPACE...
"""

from __future__ import annotations

import json
import random
import sys
import threading
import time

from graphmem.client import Memory

QUESTIONS = ["What did Lena buy in Bergen?", "Where did Omar buy a guitar?"]
PHASE, PAUSE = 4, 0.4  # a phase lasts over 1.6 s, past the test's 1 s grace


def main() -> None:
    threads, rounds, seed = (int(a) for a in sys.argv[1:4])
    spaces = sys.argv[4:]
    found: list[dict[str, object]] = []
    errors: list[str] = []
    with Memory() as memory:
        def work(n: int) -> None:
            pick = random.Random(seed * 100 + n)
            for r in range(rounds):
                # phases of PHASE rounds, each over two spaces: the spaces of a past phase sit
                # unused past the grace period, so the next phase's projections evict them,
                # and a later phase makes them again, however fast the searches run
                first = 2 * (r // PHASE)
                phase = [spaces[first % len(spaces)], spaces[(first + 1) % len(spaces)]]
                space, question = pick.choice(phase), pick.choice(QUESTIONS)
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
    print(json.dumps({"found": found, "errors": errors, "stats": stats}))


if __name__ == "__main__":
    main()
