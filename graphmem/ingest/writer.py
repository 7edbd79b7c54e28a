"""Write parsed conversations into Neo4j: one transaction per conversation, MERGE on stable ids.

Ids are built from the space, the conversation key and the ids the input gives, so ingesting
the same file twice (or a file that adds sessions to a stored conversation) changes nothing
that is already there. Embeddings are computed before the transaction opens, and only for
turns whose embedded text changed, so a failure leaves the stored graph exactly as it was.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from tqdm import tqdm

from graphmem.errors import ConfigurationError
from graphmem.ingest.embedding_rows import BATCH, changed, embedding_rows
from graphmem.ingest.ids import (
    check_space,
    conversation_id,
    session_id,
    speaker_id,
    turn_id,
)
from graphmem.models import ConversationRecord, TurnRecord
from graphmem.providers.embedder import Embedder
from graphmem.store import GraphStore, Tx


def embedding_text(turn: TurnRecord) -> str:
    """What a turn's vector encodes: who said what, plus the caption of a shared image."""
    text = f"{turn.speaker}: {turn.text}"
    return f"{text} [shares an image: {turn.image_caption}]" if turn.image_caption else text


@dataclass
class IngestReport:
    space: str
    conversations: int = 0
    sessions: int = 0
    turns: int = 0
    embedded: int = 0
    reused_embeddings: int = 0
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    layers: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        text = (f"space {self.space!r}: {self.conversations} conversations, {self.sessions} "
                f"sessions, {self.turns} turns ({self.embedded} embedded, "
                f"{self.reused_embeddings} unchanged) in {self.seconds:.1f}s")
        if self.layers:
            text += "; " + ", ".join(f"{n} {name}" for name, n in self.layers.items())
        if self.warnings:
            text += f"; {len(self.warnings)} warnings"
        if self.errors:
            text += f"; {len(self.errors)} records rejected"
        return text


class Layer(Protocol):
    """A derived layer of memory (EDUs, events, ...) written with its conversation's turns."""

    name: str

    def prepare(self, store: GraphStore, space: str, conv: ConversationRecord) -> Any:
        """Compute everything (statements, embeddings) before the transaction opens."""
        ...

    def write(self, tx: Tx, space: str, payload: Any) -> None:
        """Write inside the conversation's transaction."""
        ...

    def counts(self, payload: Any) -> dict[str, int]: ...


def _batches(rows: Sequence[dict[str, Any]], size: int) -> Iterator[Sequence[dict[str, Any]]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


class GraphWriter:
    def __init__(self, store: GraphStore, embedder: Embedder, *, batch_size: int = 500,
                 progress: bool = True, layers: Sequence[Layer] = ()) -> None:
        expected = store.settings.embedding_dimensions
        if embedder.dimensions != expected:
            raise ConfigurationError(
                f"embedder {embedder.name!r} gives {embedder.dimensions}-d vectors; the vector "
                f"indexes hold {expected}-d ones (GRAPHMEM_EMBEDDING_DIMENSIONS)"
            )
        self.store = store
        self.embedder = embedder
        self.batch_size = batch_size
        self.progress = progress
        self.layers = list(layers)

    def write(self, space: str, conversations: Sequence[ConversationRecord],
              report: IngestReport | None = None) -> IngestReport:
        check_space(space)
        report = report or IngestReport(space=space)
        began = time.perf_counter()
        bar = tqdm(conversations, desc=f"ingest {space}", unit="conv", disable=not self.progress,
                   leave=False)
        for conversation in bar:
            self._write_one(space, conversation, report)
        report.seconds += time.perf_counter() - began
        return report

    def _write_one(self, space: str, conv: ConversationRecord, report: IngestReport) -> None:
        cid = conversation_id(space, conv.key)
        speakers = [{"id": speaker_id(space, name), "name": name} for name in conv.speakers]
        sessions = [
            {"id": session_id(space, conv.key, s.key), "key": s.key, "index": s.index,
             "started_at": s.started_at, "date_text": s.date_text}
            for s in conv.sessions
        ]
        turns: list[dict[str, Any]] = []
        texts: dict[str, str] = {}
        for session in conv.sessions:
            sid = session_id(space, conv.key, session.key)
            for turn in session.turns:
                tid = turn_id(space, conv.key, turn.source_id)
                turns.append({
                    "id": tid, "session_id": sid, "speaker_id": speaker_id(space, turn.speaker),
                    "order": turn.order, "speaker": turn.speaker, "text": turn.text,
                    "source_id": turn.source_id, "image_caption": turn.image_caption,
                    "image_url": turn.image_url,
                })
                texts[tid] = embedding_text(turn)
        vectors = self._embeddings(space, cid, texts, report)
        payloads = [(layer, layer.prepare(self.store, space, conv)) for layer in self.layers]

        def work(tx: Tx) -> None:
            tx.run("ingest/merge_conversation", space=space, conversation_id=cid, key=conv.key,
                   source_format=conv.source_format, speakers=speakers)
            tx.run("ingest/merge_sessions", space=space, conversation_id=cid, sessions=sessions)
            for batch in _batches(turns, self.batch_size):
                tx.run("ingest/merge_turns", space=space, turns=list(batch))
            for batch in _batches(vectors, self.batch_size):
                tx.run("ingest/set_turn_embeddings", space=space, rows=list(batch))
            tx.run("ingest/link_turns", space=space, conversation_id=cid)
            for layer, payload in payloads:
                layer.write(tx, space, payload)

        self.store.write_tx(work)
        for layer, payload in payloads:
            for name, count in layer.counts(payload).items():
                report.layers[name] = report.layers.get(name, 0) + count
        report.conversations += 1
        report.sessions += len(sessions)
        report.turns += len(turns)

    def _embeddings(self, space: str, cid: str, texts: dict[str, str],
                    report: IngestReport) -> list[dict[str, Any]]:
        known = {
            row["id"]: row["embedded_hash"]
            for row in self.store.read("ingest/turn_embedding_hashes", space=space,
                                       conversation_id=cid)
        }
        todo = changed(self.embedder, texts, known)
        report.reused_embeddings += len(texts) - len(todo)
        with tqdm(total=len(todo), desc="embed", unit="turn", leave=False,
                  disable=not self.progress or len(todo) < BATCH) as bar:
            rows = embedding_rows(self.embedder, todo, texts, bar.update)
        report.embedded += len(rows)
        return rows
