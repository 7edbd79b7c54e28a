"""Ingestion rate per layer: LoCoMo dev conversations into a fresh space, LLM-free by default.

    python benchmarks/ingest_rate.py [--limit 2] [--layers edus,events] [--workers 2]
                                     [--out rate.json]

Prints, for each layer, the seconds spent computing it (spaCy, embeddings, segmentation) and
the turns per second that makes, and the seconds spent in the write transactions (with
--workers, layer seconds add up over the worker processes; the wall time is what counts, and
it includes the workers' model loading). Both models (the embedder and spaCy) are loaded
before the clock starts (until session 32 spaCy's load, ~7 s, was counted in the first layer
that parses). The space is deleted afterwards. Keep other CPU
work off the machine while it runs.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from common import LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.nlp import parse


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=2, help="conversations to ingest")
    parser.add_argument("--layers", default=None, help="default: GRAPHMEM_INGEST_LAYERS")
    parser.add_argument("--workers", type=int, default=1)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversations = parse_file(args.data, "locomo").conversations[: args.limit]
    space = f"bench-rate-{uuid.uuid4().hex[:8]}"
    with Memory() as memory:
        memory.embedder.embed(["warm up"])  # loading the models is not ingestion
        parse(["Warm up the parser."])
        memory.ensure_schema()
        began = time.perf_counter()
        try:
            report = memory.ingest(conversations, space=space, layers=args.layers,
                                   workers=args.workers)
        finally:
            memory.delete_space(space)
        wall = time.perf_counter() - began
    turns = report.turns
    result = {"conversations": report.conversations, "turns": turns, "workers": args.workers,
              "wall_seconds": round(wall, 2), "turns_per_second": round(turns / wall, 2),
              "write_seconds": round(report.write_seconds, 2),
              "layers": {name: {"seconds": round(t.seconds, 2),
                                "turns_per_second": round(turns / t.seconds, 1)
                                if t.seconds else None, "written": t.written}
                         for name, t in report.layers.items()}}
    publish(result, args.out, indent=1)


if __name__ == "__main__":
    main()
