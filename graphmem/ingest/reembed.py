"""Compute every stored vector again with the configured embedder, deriving nothing again.

A user who changes the embedding model (or its backend) keeps every turn, EDU, event, scene
and unit as it is; only the vectors change. Each layer declares the labels it embeds
(:attr:`~graphmem.ingest.layer.Layer.vectors`) and how to rebuild the exact text it embedded
from what the node stores. Per space, in three steps:

1. **Stage.** Each node's new vector is written beside the one searches use
   (``embedding_next``, with its hash), a batch per transaction. Searches keep reading the old
   vectors and a vector index never sees the staged ones. A run that is killed leaves its
   staged batches; the next run keeps every one whose hash still matches the node's text
   (the hash names the embedder and the text, as ingestion's ``embedded_hash`` does).
2. **Swap.** One transaction takes the space's write lock, reads the texts again, computes
   the few that changed since they were staged, moves the staged vectors in, records the
   new embedder on the space and gives it a new revision, so every cache reads afresh.
   Vectors composed from turns' vectors (a CAST scene's: :attr:`VectorKind.composed`) are
   made there too, from the turns' new vectors once those are in: a mean, no model pass.
3. **Indexes.** When the dimension changes, Neo4j's vector indexes (one per label, shared by
   every space of the database) are made again for it once every space has swapped: a
   dimension change therefore re-embeds all spaces. Until then a small space is searched by
   an exact scan and a large one finds fewer neighbours through the old index.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any

from tqdm import tqdm

from graphmem.config import Settings
from graphmem.errors import ConfigurationError, InputError
from graphmem.ids import check_space
from graphmem.ingest.embedding_rows import BATCH, composed_hash, embedding_hash, mean_vector
from graphmem.ingest.layer import VectorKind
from graphmem.ingest.layers import LAYERS
from graphmem.models import ReembedReport, ReembedTally
from graphmem.providers.embedder import Embedder
from graphmem.store import GraphStore, Tx


def vector_kinds() -> list[VectorKind]:
    """Every label some registered layer embeds (plug-in layers included), once each."""
    kinds: dict[str, VectorKind] = {}
    for layer in LAYERS.values():
        for kind in layer.vectors:
            kinds.setdefault(kind.label, kind)
    return list(kinds.values())


@dataclass(frozen=True)
class Stored:
    """One embedded node as read for re-embedding: its key, the text its vector should embed,
    the hash that text has under the configured embedder, and the hashes it holds."""

    key: str
    text: str
    wanted: str
    held: str | None
    staged: str | None


class Reembedder:
    """Moves spaces to ``embedder``; ``after_batch`` hears each staged batch's size."""

    def __init__(self, store: GraphStore, embedder: Embedder, settings: Settings, *,
                 progress: bool = False, batch: int = BATCH,
                 after_batch: Callable[[int], object] | None = None) -> None:
        self.store, self.embedder, self.settings = store, embedder, settings
        self.progress, self.batch, self.after_batch = progress, max(1, batch), after_batch
        self.kinds = vector_kinds()

    def run(self, spaces: Sequence[str] | None = None) -> ReembedReport:
        """Re-embed ``spaces`` (None: every space of the database)."""
        began = time.perf_counter()
        wanted = self.embedder.dimensions
        if wanted != self.settings.embedding_dimensions:
            raise ConfigurationError(
                f"embedder {self.embedder.name!r} gives {wanted}-d vectors but "
                f"GRAPHMEM_EMBEDDING_DIMENSIONS is {self.settings.embedding_dimensions}")
        every = [row["space"] for row in self.store.read("admin/list_spaces")]
        targets = list(every) if spaces is None else self._known(spaces, every)
        rebuild = any(row["dimensions"] is not None and int(row["dimensions"]) != wanted
                      for row in self.store.read("admin/vector_indexes"))
        left = sorted(set(every) - set(targets))
        if rebuild and left:
            raise ConfigurationError(
                f"the vector indexes hold vectors of another dimension than {wanted}; they are "
                f"shared by every space of the database, so a new dimension re-embeds them "
                f"all: run `graphmem reembed --all` ({len(left)} other space(s), e.g. "
                f"{left[0]!r})")
        report = ReembedReport(self.embedder.name, wanted)
        for space in targets:
            tally = ReembedTally(space)
            self._stage(space, tally)
            report.spaces.append(tally)
        for tally in report.spaces:
            self.store.change(tally.space, f"re-embedded with {self.embedder.name}",
                              partial(self._swap, tally=tally), "admin/reembed")
        if rebuild:
            self.store.run_statements("admin/reembed/drop_vector_indexes")
            self.store.apply_schema()
            report.indexes_rebuilt = True
        report.seconds = time.perf_counter() - began
        return report

    @staticmethod
    def _known(spaces: Sequence[str], every: list[str]) -> list[str]:
        for space in spaces:
            check_space(space)
            if space not in every:
                raise InputError(f"space {space!r} does not exist", field="space")
        return list(dict.fromkeys(spaces))

    @property
    def embedded_kinds(self) -> list[VectorKind]:
        return [kind for kind in self.kinds if not kind.composed]

    @property
    def composed_kinds(self) -> list[VectorKind]:
        return [kind for kind in self.kinds if kind.composed]

    def _read(self, run: Callable[..., list[dict[str, Any]]], space: str,
              kind: VectorKind) -> list[Stored]:
        out = []
        for row in run(kind.statement, space=space, kind=kind.label.lower()):
            text = kind.text(row["fields"])
            out.append(Stored(row["key"], text, embedding_hash(self.embedder, text),
                              row["hash"], row["staged"]))
        return out

    def _vectors(self, items: Sequence[Stored]) -> list[dict[str, Any]]:
        vectors = self.embedder.embed([item.text for item in items])
        if vectors.shape != (len(items), self.embedder.dimensions):
            raise ConfigurationError(
                f"embedder {self.embedder.name!r} returned shape {vectors.shape}")
        return [{"key": item.key, "embedding": vector.tolist(), "hash": item.wanted}
                for item, vector in zip(items, vectors, strict=True)]

    def _stage(self, space: str, tally: ReembedTally) -> None:
        todo: list[Stored] = []
        for kind in self.embedded_kinds:
            for item in self._read(self.store.read, space, kind):
                tally.vectors += 1
                if item.staged == item.wanted:
                    tally.resumed += 1
                elif item.held == item.wanted:
                    tally.current += 1
                else:
                    todo.append(item)
        with tqdm(total=len(todo), desc=f"reembed {space}", unit="vector", leave=False,
                  disable=not self.progress) as bar:
            for start in range(0, len(todo), self.batch):
                batch = todo[start:start + self.batch]
                self.store.write("admin/reembed/stage_vectors", space=space,
                                 rows=self._vectors(batch))
                tally.embedded += len(batch)
                bar.update(len(batch))
                if self.after_batch is not None:
                    self.after_batch(len(batch))

    def _swap(self, tx: Tx, tally: ReembedTally) -> None:
        """Inside the space's lock: what is staged and still matches moves in, what changed
        since it was staged is computed now, and stale staged vectors are removed."""
        space = tally.space
        moved: list[dict[str, Any]] = []
        changed: list[Stored] = []
        for kind in self.embedded_kinds:
            for item in self._read(tx.run, space, kind):
                if item.staged == item.wanted or (item.held == item.wanted
                                                  and item.staged is not None):
                    moved.append({"key": item.key, "hash": item.wanted})
                elif item.held != item.wanted:
                    changed.append(item)
        tally.swapped = tally.refreshed = 0
        for start in range(0, len(moved), self.batch):
            [row] = tx.run("admin/reembed/swap_vectors", space=space,
                           rows=moved[start:start + self.batch])
            tally.swapped += row["swapped"]
        for start in range(0, len(changed), self.batch):
            tx.run("admin/reembed/set_vectors", space=space,
                   rows=self._vectors(changed[start:start + self.batch]))
        tally.refreshed = len(changed)
        self._compose(tx, tally)
        tx.run("admin/reembed/stamp_embedder", space=space, embedder=self.embedder.name)

    def _compose(self, tx: Tx, tally: ReembedTally) -> None:
        """Composed vectors whose turns' vectors changed, averaged again from the new ones
        (after those moved in, in the same transaction)."""
        space = tally.space
        todo: list[tuple[str, list[str], str]] = []
        for kind in self.composed_kinds:
            for row in tx.run(kind.statement, space=space, kind=kind.label.lower()):
                tally.vectors += 1
                wanted = composed_hash(self.embedder, row["turn_hashes"])
                if row["hash"] == wanted:
                    tally.current += 1
                else:
                    todo.append((row["key"], row["turn_keys"], wanted))
        for start in range(0, len(todo), self.batch):
            batch = todo[start:start + self.batch]
            keys = sorted({key for _, turns, _ in batch for key in turns})
            held = {row["key"]: row["embedding"] for row in tx.run(
                "admin/reembed/turn_vectors", space=space, keys=keys)}
            rows = [{"key": key, "hash": wanted,
                     "embedding": mean_vector([held[t] for t in turns if t in held]).tolist()}
                    for key, turns, wanted in batch if any(t in held for t in turns)]
            tx.run("admin/reembed/set_vectors", space=space, rows=rows)
            tally.composed += len(rows)
