"""AsyncMemory: the same results as the sync client, calls that overlap, a loop that keeps
running while they work."""

from __future__ import annotations

import asyncio

from graphmem import AsyncMemory
from graphmem.client import Memory

from helpers import SAMPLE

QUESTIONS = ["What did Maya adopt?", "Where is the pottery class?", "When is the race?"]


def test_async_calls_match_the_sync_client_and_leave_the_loop_free(memory: Memory,
                                                                    space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    expected = [memory.search(q, space=space, budget=300).context for q in QUESTIONS]

    async def main() -> tuple[list[str], int, list[str], bool]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                ticks += 1
                await asyncio.sleep(0.005)

        clock = asyncio.create_task(ticker())
        client = AsyncMemory(memory=memory, concurrency=2)
        added, *results = await asyncio.gather(  # the add goes to another space
            client.add_messages(elsewhere, "live", [{"role": "user",
                                                     "content": "I got a kayak.", "id": "k1"}]),
            *(client.search(q, space=space, budget=300) for q in QUESTIONS))
        clock.cancel()
        return ([r.context for r in results], ticks, added.added,
                await client.has_space(elsewhere))

    elsewhere = f"{space}-live"
    try:
        contexts, ticks, added, exists = asyncio.run(main())
    finally:
        memory.delete_space(elsewhere)
    assert added == ["k1"] and exists
    assert contexts == expected  # the searches ran beside the add, as the sync client does
    assert ticks > 10  # the event loop kept turning while the calls ran in threads
