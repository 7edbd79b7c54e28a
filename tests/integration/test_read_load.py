"""A concurrent read load through one client (as the REST and MCP servers use it): threads
searching two spaces with the default, the raw-turn and the PPR strategies at once, while a
third space is being ingested. No search may fail, and each must find what a lone search
finds (latency is measured by benchmarks/read_load.py, not here)."""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

from graphmem.client import Memory

from helpers import SAMPLE

QUESTIONS = ["What is the name of the dog?", "When is the half marathon?",
             "What did Maya make in pottery class?", "Where is the rescue?"]
STRATEGIES = ["graphmem", "turns", "emem-g"]
THREADS, ROUNDS = 6, 8


def test_threads_searching_at_once_never_fail_and_find_what_one_finds(
        memory: Memory, space: str) -> None:
    spaces = [space, f"{space}-b", f"{space}-writing"]
    try:
        for name in spaces[:2]:
            memory.ingest(SAMPLE, space=name, layers="turns,edus")
        asks = [(s, q, k) for s in spaces[:2] for q in QUESTIONS for k in STRATEGIES]

        def ids(ask: tuple[str, str, str]) -> list[str]:
            name, question, strategy = ask
            found = memory.search(question, space=name, strategy=strategy, budget=300)
            return [hit.id for hit in found.hits]

        lone = {ask: ids(ask) for ask in asks}
        writer = threading.Thread(target=memory.ingest, args=(SAMPLE,),
                                  kwargs={"space": spaces[2]})
        writer.start()
        load = [asks[(t * 5 + r) % len(asks)] for t in range(THREADS) for r in range(ROUNDS)]
        with ThreadPoolExecutor(max_workers=THREADS) as pool:
            answers = list(pool.map(ids, load))  # the first failure is raised here
        writer.join()
        assert len(answers) == len(load) == THREADS * ROUNDS
        assert [lone[ask] for ask in load] == answers
        assert all(answers)
        assert memory.has_space(spaces[2])
    finally:
        for name in spaces[1:]:
            memory.delete_space(name)
