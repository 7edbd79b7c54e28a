"""The raw layer: conversation, sessions, speakers and turns, each turn embedded.

Every other layer needs it: derived units link to these turns, and raw turns are never
dropped. Embeddings are computed only for turns whose embedded text changed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from graphmem.ids import session_id, speaker_id, turn_id
from graphmem.ingest.embedding_rows import embedding_hash
from graphmem.ingest.layer import SHARED_READS, Job, Joins, Layer, LayerResult, Owns, VectorKind
from graphmem.models import ConversationRecord, TurnRecord
from graphmem.providers.embedder import Embedder
from graphmem.store import GraphStore, Tx
from graphmem.text import turn_line


@dataclass(frozen=True)
class TurnIds:
    """The turns layer's hand-off: the Turn node id of every input turn id, and the vectors it
    computed in this run (by input turn id; :meth:`every_vector` adds the stored ones)."""

    by_source: dict[str, str]
    vectors: dict[str, Any] = field(default_factory=dict)

    def every_vector(self, store: GraphStore, job: Job, embedder: Embedder) -> dict[str, Any]:
        """The vector of every turn of ``job``, by input turn id: those computed in this run,
        the graph's for the others (read once for all the layers of the run that ask), and
        for a turn with neither, its line embedded as :class:`TurnsLayer` embeds it."""
        if any(source not in self.vectors for source in self.by_source):
            for row in store.read("ingest/turns/turn_vectors", space=job.space,
                                  conversation_id=job.conversation_id):
                self.vectors.setdefault(row["source_id"], row["embedding"])
        absent = [t for s in job.conversation.sessions for t in s.turns
                  if t.source_id not in self.vectors]
        if absent:
            fresh = embedder.embed([embedded_line(t) for t in absent])
            self.vectors.update(zip([t.source_id for t in absent], fresh, strict=True))
        return self.vectors


@dataclass
class TurnsPayload:
    speakers: list[dict[str, str]]
    sessions: list[dict[str, Any]]
    turns: list[dict[str, Any]]
    embeddings: list[dict[str, Any]] = field(default_factory=list)
    unchanged: int = 0


def embedded_line(turn: TurnRecord) -> str:
    """The line a turn's vector embeds: its speaker, text and image caption."""
    return turn_line(turn.speaker, turn.text, turn.image_caption)


def vector_hash(embedder: Embedder, turn: TurnRecord) -> str:
    """The ``embedded_hash`` the turns layer stores with the turn's vector."""
    return embedding_hash(embedder, embedded_line(turn))


def stored_line(fields: Mapping[str, Any]) -> str:
    """The line a stored turn's vector embeds (what ``prepare`` embeds for it)."""
    return turn_line(fields["speaker"], fields["text"], fields.get("image_caption"))


def turn_ids(space: str, conv: ConversationRecord) -> TurnIds:
    return TurnIds({t.source_id: turn_id(space, conv.key, t.source_id)
                    for s in conv.sessions for t in s.turns})


class TurnsLayer(Layer[TurnsPayload]):
    name = "turns"
    needs = ()
    scope = "session"
    vectors = (VectorKind("Turn", stored_line,
                          fields="n {.speaker, .text, .image_caption}"),)
    owns: ClassVar[Owns] = {
        "Conversation": ("key",),
        "Session": ("key", "index", "conversation_id"),
        "Speaker": ("name",),
        "Turn": ("text", "speaker", "order", "session_id", "conversation_id", "source_id",
                 "embedding")}
    joins: ClassVar[Joins] = {
        "HAS_CONVERSATION": (("Space", "Conversation"),),
        "HAS_SPEAKER": (("Conversation", "Speaker"),),
        "HAS_SESSION": (("Conversation", "Session"),),
        "HAS_TURN": (("Session", "Turn"),),
        "SPOKEN_BY": (("Turn", "Speaker"),),
        "NEXT": (("Turn", "Turn"),)}
    unsourced = ("Conversation", "Session", "Speaker", "Turn")  # the turns themselves
    reads = SHARED_READS
    writes = ("ingest/turns/merge_conversation", "ingest/turns/merge_sessions",
              "ingest/turns/merge_turns", "ingest/set_vectors",
              "ingest/turns/link_turns", "ingest/turns/link_appended")

    def prepare(self, job: Job) -> TurnsPayload:
        space, conv = job.space, job.conversation
        payload = TurnsPayload(
            speakers=[{"id": speaker_id(space, name), "name": name} for name in conv.speakers],
            sessions=[{"id": session_id(space, conv.key, s.key), "key": s.key, "index": s.index,
                       "started_at": s.started_at, "date_text": s.date_text}
                      for s in conv.sessions],
            turns=[])
        texts: dict[str, str] = {}
        for session in conv.sessions:
            sid = session_id(space, conv.key, session.key)
            for turn in session.turns:
                tid = turn_id(space, conv.key, turn.source_id)
                payload.turns.append({
                    "id": tid, "session_id": sid, "speaker_id": speaker_id(space, turn.speaker),
                    "order": turn.order, "speaker": turn.speaker, "text": turn.text,
                    "source_id": turn.source_id, "image_caption": turn.image_caption,
                    "image_url": turn.image_url, "said_at": turn.said_at,
                    "payload": turn.payload})
                texts[tid] = embedded_line(turn)
        payload.embeddings, payload.unchanged = self.embed_changed(space, texts, unit="turn")
        return payload

    def write(self, tx: Tx, job: Job, payload: TurnsPayload) -> None:
        conv, cid = job.conversation, job.conversation_id
        tx.run("ingest/turns/merge_conversation", space=job.space, conversation_id=cid,
               key=conv.key, source_format=conv.source_format, speakers=payload.speakers)
        tx.run("ingest/turns/merge_sessions", space=job.space, conversation_id=cid,
               sessions=payload.sessions)
        self.write_rows(tx, "ingest/turns/merge_turns", "turns", payload.turns, space=job.space)
        self.write_rows(tx, "ingest/set_vectors", "rows", payload.embeddings,
                        space=job.space)
        if not self._appended(tx, job, payload):
            tx.run("ingest/turns/link_turns", space=job.space, conversation_id=cid)

    @staticmethod
    def _appended(tx: Tx, job: Job, payload: TurnsPayload) -> bool:
        """A live add's new turns chained after the conversation's last one, when that is
        where they belong (the statement checks); False, with nothing written, otherwise."""
        if job.conversation.source_format != "live" or len(payload.sessions) != 1:
            return False
        return tx.run("ingest/turns/link_appended", space=job.space,
                      conversation_id=job.conversation_id,
                      session_id=payload.sessions[0]["id"],
                      turn_ids=[row["id"] for row in payload.turns]) == [{"linked": True}]

    def result(self, payload: TurnsPayload) -> LayerResult:
        return LayerResult({"sessions": len(payload.sessions), "turns": len(payload.turns)},
                           embedded=len(payload.embeddings), unchanged=payload.unchanged)

    def handoff(self, payload: TurnsPayload) -> TurnIds:
        by_id = {row["id"]: row["embedding"] for row in payload.embeddings}
        return TurnIds({row["source_id"]: row["id"] for row in payload.turns},
                       {row["source_id"]: by_id[row["id"]] for row in payload.turns
                        if row["id"] in by_id})

    def load(self, job: Job) -> TurnIds:
        return turn_ids(job.space, job.conversation)  # ids follow from the input's own ids
