"""neo4j-agent-memory's retrieval with no LLM, run inside its own virtualenv by
``benchmarks/peers.py``, against a Neo4j of its own (the peer's labels, ``Conversation`` among
them, would mix with graphmem's in one database).

Reads a job (JSON on stdin) and writes each question's ranked turn ids (JSON on stdout). Its
documented LLM-free set-up: ``llm=None``, no entity extractor, the sentence-transformers
embedder from the local model folder. Each turn is one ``short_term.add_message(session_id=
<conversation>, extract_entities=False, metadata={"turn": id})``; each question one
``short_term.search_messages(question, limit=top_k, threshold=0)``, which searches every
stored message, so each conversation is searched alone and cleared (``clear_session``)
before the next. Only the standard library and the peer are imported here.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import sys
import time
from typing import Any


async def run(job: dict[str, Any]) -> dict[str, Any]:
    nam = importlib.import_module("neo4j_agent_memory")
    settings = nam.MemorySettings(
        backend="bolt", llm=None,
        neo4j={"uri": job["neo4j"]["uri"], "username": job["neo4j"]["user"],
               "password": job["neo4j"]["password"]},
        embedding={"provider": "sentence_transformers", "model": job["model"],
                   "dimensions": job["dims"]},
        extraction={"extractor_type": "none"})
    rankings: dict[str, list[str]] = {}
    latency: list[float] = []
    ingest = 0.0
    async with nam.MemoryClient(settings) as memory:
        for key, turns in job["conversations"].items():
            began = time.perf_counter()
            for turn in turns:
                await memory.short_term.add_message(
                    session_id=key, role="user", content=turn["content"],
                    extract_entities=False, extract_relations=False,
                    metadata={"turn": turn["id"]})
            ingest += time.perf_counter() - began
            for q in (q for q in job["questions"] if q["conversation"] == key):
                began = time.perf_counter()
                found = await memory.short_term.search_messages(
                    q["question"], limit=job["top_k"], threshold=0.0)
                latency.append((time.perf_counter() - began) * 1000)
                rankings[q["qid"]] = [m.metadata["turn"] for m in found
                                      if m.metadata.get("turn")]
            await memory.short_term.clear_session(key)
    version = importlib.import_module("importlib.metadata").version("neo4j-agent-memory")
    return {"rankings": rankings, "ingest_seconds": ingest, "latency_ms": latency,
            "version": version}


def main() -> None:
    json.dump(asyncio.run(run(json.load(sys.stdin))), sys.stdout)


if __name__ == "__main__":
    main()
