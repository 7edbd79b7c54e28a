"""Write conversations into Neo4j, layer by layer: one transaction per conversation.

Ids are built from the space, the conversation key and the ids the input gives, so ingesting
the same file twice (or a file that adds sessions to a stored conversation) changes nothing
that is already there. Every layer computes its part before the transaction opens (embeddings
only where the embedded text changed); then all of it is written at once, and each session
records the layers it holds, so a failure leaves the stored graph exactly as it was.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from typing import Any

from tqdm import tqdm

from graphmem.errors import ConfigurationError, MixedModelsError
from graphmem.ids import check_space
from graphmem.ingest.layer import Job, Layer, LayerContext
from graphmem.ingest.layers import LAYERS, layer_names
from graphmem.models import ConversationRecord, IngestReport, LayerTally
from graphmem.store import Tx
from graphmem.telemetry import stage

# the writes whose caller gets the ingest's advice on a failure (run the same again)
RESUMABLE = ("ingest", "layers added")


class GraphWriter:
    """Runs the given layers (already in needs order) over each conversation."""

    def __init__(self, context: LayerContext, layers: Sequence[str],
                 what: str = "ingest") -> None:
        expected = context.store.settings.embedding_dimensions
        if context.embedder.dimensions != expected:
            raise ConfigurationError(
                f"embedder {context.embedder.name!r} gives {context.embedder.dimensions}-d "
                f"vectors; the vector indexes hold {expected}-d ones "
                "(GRAPHMEM_EMBEDDING_DIMENSIONS)")
        self.context = context
        self.layers: list[Layer[Any]] = [LAYERS[name](context) for name in layers]
        self.what = what  # the kind of change the spaces' history records

    def write(self, space: str, conversations: Sequence[ConversationRecord],
              report: IngestReport | None = None, *,
              finish: Callable[[Tx, Job], None] | None = None,
              check: Callable[[Tx, Job], None] | None = None,
              lock: AbstractContextManager[Any] | None = None) -> IngestReport:
        """Write each conversation in its own transaction; ``finish`` runs last inside it, and
        ``lock`` is held around it (not around the computing before it)."""
        check_space(space)
        report = report or IngestReport(space=space)
        began = time.perf_counter()
        bar = tqdm(conversations, desc=f"ingest {space}", unit="conv",
                   disable=not self.context.progress, leave=False)
        for done, conversation in enumerate(bar):
            try:
                self.write_one(space, conversation, report, finish, lock, check)
            except Exception as exc:
                if self.what in RESUMABLE:  # a file's conversations: some may be stored
                    exc.add_note(f"{done} of {len(conversations)} conversations were stored "
                                 f"before conversation {conversation.key!r} failed, which was "
                                 "not; running the same ingest again completes it (writes are "
                                 "idempotent)")
                raise
        report.seconds += time.perf_counter() - began
        return report

    def _load(self, name: str, job: Job) -> Any:
        """A needed layer's hand-off when that layer is not part of this run."""
        return LAYERS[name](self.context).load(job)

    def write_one(self, space: str, conv: ConversationRecord, report: IngestReport,
                   finish: Callable[[Tx, Job], None] | None = None,
                   lock: AbstractContextManager[Any] | None = None,
                   check: Callable[[Tx, Job], None] | None = None) -> None:
        """Compute every layer's part of ``conv``, then write it in one transaction: first
        the space's lock, then ``check`` (which may raise to abandon the write when what the
        computing read has changed since: it reads after every earlier writer committed),
        the layers, the sessions' layer marks, and ``finish``."""
        with stage("graphmem.ingest", space=space, conversation=conv.key, what=self.what,
                   layers=[layer.name for layer in self.layers]):
            self._write_one(space, conv, report, finish, lock, check)

    def _write_one(self, space: str, conv: ConversationRecord, report: IngestReport,
                   finish: Callable[[Tx, Job], None] | None,
                   lock: AbstractContextManager[Any] | None,
                   check: Callable[[Tx, Job], None] | None) -> None:
        job = Job(space, conv, self._load)
        payloads: list[tuple[Layer[Any], Any, float]] = []
        for layer in self.layers:
            began = time.perf_counter()
            with stage(f"layer.{layer.name}"):
                payload = layer.prepare(job)
                job.handoffs[layer.name] = layer.handoff(payload)
            payloads.append((layer, payload, time.perf_counter() - began))
        written = [layer.name for layer in self.layers]

        mine = self.context.embedder.name

        def work(tx: Tx) -> None:
            # writers of one space take turns (the door's lock); a space's vectors come from
            # one embedder
            if tx.lock["embedder"] != mine:
                raise MixedModelsError(space, tx.lock["embedder"], mine)
            if check is not None:
                check(tx, job)
            for layer, payload, _ in payloads:
                layer.write(tx, job, payload)
            tx.run("ingest/mark_layers", space=space, session_ids=job.session_ids,
                   layers=written, known=layer_names())
            if finish is not None:
                finish(tx, job)

        with lock or nullcontext(), stage("write"):
            began = time.perf_counter()
            self.context.store.change(space, self.what, work, "ingest/conversation",
                                      embedder=mine)
            report.write_seconds += time.perf_counter() - began
        for layer, payload, seconds in payloads:
            report.layers.setdefault(layer.name, LayerTally()).add(layer.result(payload),
                                                                  seconds)
        report.conversations += 1
        report.sessions += len(conv.sessions)
        report.turns += conv.n_turns
