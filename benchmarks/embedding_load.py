"""What each ingest layer gives the embedding model: LoCoMo dev conversations into a fresh space.

    python benchmarks/embedding_load.py [--limit 1] [--layers edus,events] [--out load.json]

Every text the layers embed is counted by the layer that asked for it (texts, words, and the
word pieces the model reads, cut at its sequence limit), against the turns' own text. The
model's time is about proportional to the pieces, so this is where LLM-free ingest spends most
of its time and what leaving a layer out saves. The space is deleted afterwards.
"""

from __future__ import annotations

import inspect
import uuid
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import LOCOMO, make_parser, publish

from graphmem.client import Memory
from graphmem.config import Settings
from graphmem.ingest.inputs.loaders import parse_file
from graphmem.providers.embedder import Embedder, SentenceTransformerEmbedder, Vectors


class CountingEmbedder:
    """Another embedder that tallies, by the ingest module that called it, what it embeds."""

    def __init__(self, inner: SentenceTransformerEmbedder) -> None:
        self.inner = inner
        self.tally: dict[str, dict[str, int]] = defaultdict(
            lambda: {"calls": 0, "texts": 0, "words": 0, "pieces": 0, "repeated_pieces": 0})
        self.seen: set[str] = set()  # every text embedded so far in this ingest

    @property
    def name(self) -> str:
        return self.inner.name

    @property
    def dimensions(self) -> int:
        return self.inner.dimensions

    def embed(self, texts: Sequence[str]) -> Vectors:
        row = self.tally[_caller()]
        row["calls"] += 1
        row["texts"] += len(texts)
        row["words"] += sum(len(t.split()) for t in texts)
        pieces = _pieces(self.inner, texts)
        row["pieces"] += sum(pieces)
        # what a cache shared by the layers of one ingest would not embed again
        row["repeated_pieces"] += sum(n for t, n in zip(texts, pieces, strict=True)
                                      if t in self.seen)
        self.seen.update(texts)
        return self.inner.embed(texts)


def _caller() -> str:
    """The layer module (``turns``, ``events/segmentation``...) on whose behalf the model
    runs: the innermost frame under ``graphmem/ingest/layers/``."""
    for frame in inspect.stack()[2:]:
        parts = Path(frame.filename).with_suffix("").parts
        if "ingest" in parts and "layers" in parts[:-1]:
            return "/".join(parts[parts.index("layers") + 1:])
    return "other"


def _pieces(embedder: SentenceTransformerEmbedder, texts: Sequence[str]) -> list[int]:
    model: Any = embedder._load()  # the ONNX model holds a truncating tokenizer
    tokenizer = getattr(model, "_tokenizer", None)
    if tokenizer is None:
        return [len(t.split()) for t in texts]
    return [len(e.ids) for e in tokenizer.encode_batch(list(texts))]


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--data", type=Path, default=LOCOMO)
    parser.add_argument("--limit", type=int, default=1, help="conversations to ingest")
    parser.add_argument("--layers", default=None, help="default: GRAPHMEM_INGEST_LAYERS")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    conversations = parse_file(args.data, "locomo").conversations[: args.limit]
    counting = CountingEmbedder(SentenceTransformerEmbedder.from_settings(Settings()))
    embedder: Embedder = counting
    space = f"bench-load-{uuid.uuid4().hex[:8]}"
    with Memory(embedder=embedder) as memory:
        memory.ensure_schema()
        counting.tally.clear()
        counting.seen.clear()
        try:
            report = memory.ingest(conversations, space=space, layers=args.layers)
        finally:
            memory.delete_space(space)
    own = counting.tally.get("turns", {}).get("pieces") or 1
    rows = {name: {**row, "x_turn_text": round(row["pieces"] / own, 2)}
            for name, row in sorted(counting.tally.items(), key=lambda kv: -kv[1]["pieces"])}
    total = sum(row["pieces"] for row in rows.values())
    repeated = sum(row["repeated_pieces"] for row in rows.values())
    result = {"conversations": report.conversations, "turns": report.turns, "by_caller": rows,
              "pieces_total": total, "pieces_repeated": repeated,
              "pieces_per_turn": round(total / max(1, report.turns), 1),
              "x_turn_text": round(total / own, 2)}
    publish(result, args.out, indent=1)


if __name__ == "__main__":
    main()
