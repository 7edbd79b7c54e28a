"""What `graphmem reembed` costs against ingesting again: LoCoMo dev conversations ingested into
a fresh space with every default layer (LLM-free), then every vector of it computed again by
another backend of the embedder (`onnx-int8`: another model's name, the same dimension).

    python benchmarks/reembed_rate.py [--limit 1] [--backend onnx-int8] [--out reembed.json]

Prints the ingest's wall seconds, the re-embedding's wall seconds, vectors and vectors per
second, and its stages (staged, swapped). The space is deleted afterwards. Keep other CPU work
off the machine while it runs.
"""

from __future__ import annotations

import time
import uuid
from pathlib import Path

from common import LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.ingest.reembed import vector_kinds


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=1, help="conversations to ingest")
    parser.add_argument("--backend", default="onnx-int8")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversations = parse_file(args.data, "locomo").conversations[: args.limit]
    space = f"bench-reembed-{uuid.uuid4().hex[:8]}"
    with Memory() as first:
        first.embedder.embed(["warm up"])  # model loads are not the work measured
        first.ensure_schema()
        began = time.perf_counter()
        try:
            ingest = first.ingest(conversations, space=space)
            ingest_wall = time.perf_counter() - began
            kinds = {kind.label: len(first.store.read(kind.statement, space=space,
                                                      kind=kind.label.lower()))
                     for kind in vector_kinds()}
            other = Settings().model_copy(update={"embedding_backend": args.backend})
            second = Memory(other, store=first.store)  # shares the driver: not closed here
            second.embedder.embed(["warm up"])
            began = time.perf_counter()
            report = second.reembed(space)
            wall = time.perf_counter() - began
            second.live.close()
        finally:
            first.delete_space(space)
    [tally] = report.spaces
    publish({"conversations": ingest.conversations, "turns": ingest.turns,
             "ingest_seconds": round(ingest_wall, 1), "embedder": report.embedder,
             "vectors": tally.vectors, "by_label": kinds, "reembed_seconds": round(wall, 1),
             "vectors_per_second": round(tally.vectors / wall, 1),
             "staged": tally.embedded, "swapped": tally.swapped,
             "share_of_ingest": round(wall / ingest_wall, 3)}, args.out)


if __name__ == "__main__":
    main()
