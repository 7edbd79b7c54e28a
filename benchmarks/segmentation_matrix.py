"""What the events layer's segmentation signals do to `graphmem` on the leave-one-dataset-out
matrix (issue 50, items 1 and 3), by category.

    python benchmarks/segmentation_matrix.py [--conversations 8] [--tag signals] \
        [--out segmentation_matrix.json]

Run it with the segmentation to measure in the code, on a database whose eval spaces were
written by the code before it (`ranker_transfer.py` ingests them and caches their
candidates, the baseline). The events layer alone is then derived again in each of those
spaces by the code as it is now (the other layers do not read events, so they stay as they
were), the candidates are collected again (cached under ``--tag``), and the shipped recipe is
fitted without each dataset in turn on each side's candidates and measured on it
(`composed_vectors.compare`). The spaces keep the new events afterwards.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from common import DATA, LOCOMO, make_parser, publish
from composed_vectors import compare
from ranker_transfer import samples as collect_samples
from tqdm import tqdm

import graphmem.training.ranker as ranker_module
from graphmem.client import Memory
from graphmem.eval.runner import Dataset, space_prefix
from graphmem.ingest.layers.events import EventLayer
from graphmem.ingest.stored import stored_conversations
from graphmem.ingest.writer import GraphWriter
from graphmem.models import IngestReport

DATASETS: tuple[tuple[Dataset, Path], ...] = (
    ("locomo", LOCOMO),
    ("longmemeval", DATA / "longmemeval" / "longmemeval_oracle_dev.json"),
    ("locomo", DATA / "friendsqa" / "friendsqa_dev.json"),
    ("locomo", DATA / "qmsum" / "qmsum_val.json.gz"))


def rederive_events(memory: Memory) -> int:
    """The events layer written again, by the code as it is, in every eval space of
    :data:`DATASETS`; returns how many spaces."""
    prefixes = tuple(f"{space_prefix(d, path, memory)}-" for d, path in DATASETS)
    spaces = [row["space"] for row in memory.spaces() if row["space"].startswith(prefixes)]
    writer = GraphWriter(memory._layer_context(), ["events"], "events derived again")
    for space in tqdm(spaces, desc="events", unit="space"):
        writer.write(space, stored_conversations(memory.store, space), IngestReport(space=space))
    return len(spaces)


def main() -> None:
    parser = make_parser(__doc__)
    parser.add_argument("--conversations", type=int, default=8)
    parser.add_argument("--tag", default="signals", help="names the new candidates' cache")
    parser.add_argument("--baseline-fingerprint", default="",
                        help="the events layer's fingerprint when the baseline spaces were "
                             "written (none before session 31)")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    # find the spaces the code before wrote (its events layer had no fingerprint)
    EventLayer.fingerprint = classmethod(  # type: ignore[method-assign,assignment]
        lambda cls, settings: args.baseline_fingerprint)
    before = collect_samples(args.conversations, False)  # the spaces as they were written
    with Memory(progress=True) as memory:
        spaces = rederive_events(memory)
    version = ranker_module._version
    ranker_module._version = lambda prefix: f"{version(prefix)}-events-{args.tag}"
    after = collect_samples(args.conversations, False)
    result: dict[str, Any] = {"tag": args.tag, "spaces": spaces,
                              "datasets": compare(before, after, "before", args.tag)}
    publish(result, args.out)


if __name__ == "__main__":
    main()
