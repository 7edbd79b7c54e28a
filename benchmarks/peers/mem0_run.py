"""Mem0's retrieval with no LLM, run inside Mem0's own virtualenv by ``benchmarks/peers.py``.

Reads a job (JSON on stdin: conversations, questions, the embedding model's local folder, a
store folder, ``top_k``) and writes each question's ranked turn ids (JSON on stdout). Each turn
is one ``Memory.add([...], user_id=<conversation>, infer=False, metadata={"turn": id})``: stored
as given, embedded by Mem0's HuggingFace embedder from the local folder; each question one
``Memory.search(question, filters={"user_id": ...}, top_k=..., threshold=0)``. Only the
standard library and Mem0 are imported here.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
from typing import Any


def main() -> None:
    job: dict[str, Any] = json.load(sys.stdin)
    os.environ.setdefault("MEM0_TELEMETRY", "False")
    os.environ.setdefault("OPENAI_API_KEY", "unused")  # the LLM Mem0 builds is never called
    mem0 = importlib.import_module("mem0")
    store = job["store"]
    memory = mem0.Memory.from_config({
        "vector_store": {"provider": "qdrant", "config": {
            "path": os.path.join(store, "qdrant"), "collection_name": "peers",
            "embedding_model_dims": job["dims"], "on_disk": True}},
        "embedder": {"provider": "huggingface", "config": {
            "model": job["model"], "embedding_dims": job["dims"]}},
        "history_db_path": os.path.join(store, "history.db"),
    })
    began = time.perf_counter()
    for key, turns in job["conversations"].items():
        for turn in turns:
            memory.add([{"role": "user", "content": turn["content"], "name": turn["speaker"]}],
                       user_id=key, infer=False, metadata={"turn": turn["id"]})
    ingest = time.perf_counter() - began
    rankings: dict[str, list[str]] = {}
    latency: list[float] = []
    for q in job["questions"]:
        began = time.perf_counter()
        found = memory.search(q["question"], filters={"user_id": q["conversation"]},
                              top_k=job["top_k"], threshold=0.0)
        latency.append((time.perf_counter() - began) * 1000)
        rankings[q["qid"]] = [r["metadata"]["turn"] for r in found["results"]
                              if (r.get("metadata") or {}).get("turn")]
    json.dump({"rankings": rankings, "ingest_seconds": ingest, "latency_ms": latency,
               "version": importlib.import_module("importlib.metadata").version("mem0ai")},
              sys.stdout)


if __name__ == "__main__":
    main()
