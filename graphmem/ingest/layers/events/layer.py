"""The ES-Mem layer of the graph: events, their summaries and the boundaries between them.

Each session is segmented into events (:mod:`segmentation`), by comparing its turns' own
vectors (what the turns layer computed or stored: segmenting embeds nothing). An event keeps
the topics and keywords of its turns as its summary (level 2 of ES-Mem's memory) and links
to the turns themselves (level 3). A boundary opens every event (level 1): a description of
the change from the event before it (the last one of the previous session at a session start)
to this one, embedded as a retrieval anchor. Events are chained in time across the whole
conversation (``NEXT_EVENT``, ``seq``), so boundaries of sessions already stored are
re-described when a session is inserted before them.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from itertools import pairwise
from typing import Any, ClassVar

import numpy as np

from graphmem.config import Settings
from graphmem.ids import part, session_id
from graphmem.ingest.layer import Job, Joins, Layer, LayerContext, LayerResult, Owns, VectorKind
from graphmem.ingest.layers.events.boundary_model import MODEL_PATH
from graphmem.ingest.layers.events.segmentation import (
    DEFAULT,
    SegmentationConfig,
    segment,
)
from graphmem.ingest.layers.events.topics import TurnTopic
from graphmem.ingest.layers.turns import TurnIds
from graphmem.models import SessionRecord
from graphmem.prompts import boundary_description
from graphmem.store import Tx
from graphmem.text import format_date, native_datetime, turn_line, turn_text

CUT_CONTEXT = 4  # turns each side of a cut given to the boundary description
SUMMARY_KEYWORDS = 12
SUMMARY_TOPICS = 6


def event_id(space: str, conversation: str, session: str, first_source_id: str) -> str:
    return f"{session_id(space, conversation, session)}/event/{part(first_source_id)}"


def _line(turn: dict[str, Any]) -> str:
    return turn_line(turn["speaker"], turn["text"], turn.get("image_caption"))


def name_tokens(speakers: Sequence[str]) -> frozenset[str]:
    """The lower-case words of the speakers' names: they are in every event, so they say
    nothing about what one event is about."""
    return frozenset(w for name in speakers for w in name.lower().split())


def summarise(topics: Sequence[TurnTopic], names: frozenset[str] = frozenset()
              ) -> tuple[list[str], list[str], str]:
    """An event's topics (distinct, in order), its keywords (most frequent first; noun
    phrases where the topics carry them) and the summary text built from both. Speakers'
    names are left out."""
    def informative(term: str) -> bool:
        return bool(term) and not set(term.split()) <= names

    distinct = list(dict.fromkeys(t.topic for t in topics if informative(t.topic)))
    distinct = distinct[:SUMMARY_TOPICS]
    counts = Counter(k for t in topics for k in (t.terms or t.keywords) if informative(k))
    words = [k for k, _ in counts.most_common(SUMMARY_KEYWORDS)]
    text = "; ".join(distinct)
    if words:
        text = f"{text}. Keywords: {', '.join(words)}" if text else f"Keywords: {', '.join(words)}"
    return distinct, words, text


@dataclass
class _EventView:
    """One event of the conversation in time order, new or already stored."""

    id: str
    session_id: str
    started_at: datetime | None
    session_index: int
    order: int
    summary: str
    topics: list[str]
    date_text: str | None
    first_lines: list[str]
    last_lines: list[str]
    first_turn_ids: list[str] = field(default_factory=list)
    last_turn_ids: list[str] = field(default_factory=list)
    p_eb: float | None = None

    def sort_key(self) -> tuple[bool, float, int, int]:
        stamp = self.started_at.timestamp() if self.started_at is not None else 0.0
        return (self.started_at is None, stamp, self.session_index, self.order)


@dataclass
class EventPayload:
    conversation_id: str
    session_ids: list[str]
    events: list[dict[str, Any]] = field(default_factory=list)
    boundaries: list[dict[str, Any]] = field(default_factory=list)
    embeddings: list[dict[str, Any]] = field(default_factory=list)
    reused: int = 0
    fallbacks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EventUnit:
    """One event as later layers see it."""

    id: str
    session_id: str
    summary: str
    topics: tuple[str, ...]
    keywords: tuple[str, ...]
    source_ids: tuple[str, ...]


@dataclass(frozen=True)
class Events:
    """The events layer's hand-off: the events of the sessions written, in time order."""

    units: tuple[EventUnit, ...]


def rule_description(before: _EventView | None, after: _EventView, cut_lines: Sequence[str]) -> str:
    """The LLM-free boundary text: what ended, what began, and the turns at the cut."""
    day = format_date(after.started_at) or after.date_text or ""
    if before is None:
        opening = f"The conversation begins{' on ' + day if day else ''}"
    elif before.session_id != after.session_id:
        opening = f"A new session begins{' on ' + day if day else ''} after talk of " \
                  f"{before.summary or 'other things'}"
    else:
        opening = f"Talk of {before.summary or 'earlier things'} ends"
    return f"{opening}. It turns to {after.summary or 'something new'}. " \
           f"At the change: {' / '.join(cut_lines)}"


class EventLayer(Layer[EventPayload]):
    name = "events"
    scope = "session"
    reads = ("ingest/events/conversation_events", "ingest/turns/turn_vectors")
    writes = ("ingest/events/merge_events", "ingest/events/merge_boundaries",
              "ingest/set_vectors", "ingest/events/link_events")
    prunes = ("ingest/events/prune_events",)
    vectors = (VectorKind("Event", fields="{text: n.summary}"),
               VectorKind("Boundary", fields="{text: n.description}"))
    owns: ClassVar[Owns] = {
        "Event": ("session_id", "conversation_id", "source_ids", "embedding"),
        "Boundary": ("conversation_id", "embedding")}
    joins: ClassVar[Joins] = {
        "HAS_EVENT": (("Session", "Event"),),
        "OPENS": (("Boundary", "Event"),),
        "CLOSES": (("Boundary", "Event"),),
        "NEXT_EVENT": (("Event", "Event"),)}

    def __init__(self, context: LayerContext, config: SegmentationConfig = DEFAULT) -> None:
        super().__init__(context)
        self.config = config

    @classmethod
    def fingerprint(cls, settings: Settings) -> str:
        """The boundary model decides where LLM-free events are cut."""
        return hashlib.sha256(MODEL_PATH.read_bytes()).hexdigest()[:12]

    def prepare(self, job: Job) -> EventPayload:
        space, conv, cid = job.space, job.conversation, job.conversation_id
        payload = EventPayload(cid, job.session_ids)
        stored = self._stored(job)
        known = {row["id"]: row["embedded_hash"] for row in stored}
        known.update({row["boundary_id"]: row["boundary_hash"] for row in stored
                      if row["boundary_id"]})
        views = [self._stored_view(row) for row in stored
                 if row["session_id"] not in set(payload.session_ids)]
        handed = job.handoff("turns")
        vectors = handed.every_vector(self.store, job, self.embedder)  # segmentation compares these
        for session in conv.sessions:
            views.extend(self._session_events(space, conv.key, session, payload, handed,
                                              vectors, name_tokens(conv.speakers)))
        views.sort(key=_EventView.sort_key)
        texts: dict[str, str] = {row["id"]: row["summary"] for row in payload.events}
        for i, view in enumerate(views):
            before = views[i - 1] if i else None
            boundary = self._boundary(cid, before, view, payload.fallbacks)
            payload.boundaries.append(boundary)
            texts[boundary["id"]] = boundary["description"]
        payload.embeddings, payload.reused = self.embed_changed(space, texts, known, "event")
        return payload

    def _stored(self, job: Job) -> list[dict[str, Any]]:
        return self.store.read("ingest/events/conversation_events", space=job.space,
                               conversation_id=job.conversation_id, context=CUT_CONTEXT)

    @staticmethod
    def _stored_view(row: dict[str, Any]) -> _EventView:
        return _EventView(row["id"], row["session_id"], native_datetime(row["started_at"]),
                          int(row["session_index"] or 0),
                          int(row["order"]), row["summary"] or "", list(row["topics"] or []),
                          row["date_text"], [_line(t) for t in row["first_turns"]],
                          [_line(t) for t in row["last_turns"]],
                          [t["id"] for t in row["first_turns"]],
                          [t["id"] for t in row["last_turns"]], row["p_eb"])

    def _session_events(self, space: str, conv_key: str, session: SessionRecord,
                        payload: EventPayload, handed: TurnIds, vectors: dict[str, Any],
                        names: frozenset[str]) -> list[_EventView]:
        turns = list(session.turns)
        if not turns:
            return []
        sid = session_id(space, conv_key, session.key)
        result = segment([turn_text(t.text, t.image_caption) for t in turns],
                         self.embedder, self.config, self.llm, turn_vectors=np.asarray(
                             [vectors[t.source_id] for t in turns], dtype=np.float32))
        payload.fallbacks.extend(f"{conv_key}/{session.key} {note}" for note in result.notes)
        starts = [0, *result.boundaries, len(turns)]
        views = []
        for order, (a, b) in enumerate(pairwise(starts)):
            span = turns[a:b]
            topics, words, summary = summarise(result.topics[a:b], names)
            eid = event_id(space, conv_key, session.key, span[0].source_id)
            ids = [handed.by_source[t.source_id] for t in span]
            name = (topics[0] if topics else (words[0] if words else "event"))[:40]
            payload.events.append({
                "id": eid, "session_id": sid, "conversation_id": payload.conversation_id,
                "order": order, "name": name, "summary": summary, "topics": topics,
                "keywords": words, "source_ids": [t.source_id for t in span],
                "source_turn_ids": ids, "started_at": session.started_at,
                "date_text": session.date_text})
            lines = [turn_line(t.speaker, t.text, t.image_caption) for t in span]
            views.append(_EventView(
                eid, sid, session.started_at, session.index, order, summary, topics,
                session.date_text, lines[:CUT_CONTEXT], lines[-CUT_CONTEXT:],
                ids[:CUT_CONTEXT], ids[-CUT_CONTEXT:], result.p_eb.get(a) if a else None))
        return views

    def _boundary(self, cid: str, before: _EventView | None, after: _EventView,
                  fallbacks: list[str]) -> dict[str, Any]:
        cut_lines = [*(before.last_lines if before else []), *after.first_lines]
        if before is None:
            kind = "conversation_start"
        elif before.session_id != after.session_id:
            kind = "session_start"
        else:
            kind = "topic"
        description = boundary_description.STEP.run(
            self.llm, lambda: boundary_description.messages(
                before.summary if before else "", after.summary, cut_lines),
            accept=lambda reply: _non_empty(reply.description),
            fallback=lambda: rule_description(before, after, cut_lines),
            notes=fallbacks, where=f"boundary before {after.id}")
        turn_ids = [*(before.last_turn_ids if before else []), *after.first_turn_ids]
        label = after.topics[0] if after.topics else "event"
        return {"id": f"{after.id}/boundary", "conversation_id": cid, "opens": after.id,
                "kind": kind, "name": f"→ {label}"[:42], "description": description,
                "p_eb": after.p_eb, "source_turn_ids": turn_ids}

    def result(self, payload: EventPayload) -> LayerResult:
        return LayerResult({"events": len(payload.events),
                            "boundaries": len(payload.boundaries)},
                           embedded=len(payload.embeddings), unchanged=payload.reused,
                           fallbacks=payload.fallbacks)

    def handoff(self, payload: EventPayload) -> Events:
        return Events(tuple(EventUnit(r["id"], r["session_id"], r["summary"],
                                      tuple(r["topics"]), tuple(r["keywords"]),
                                      tuple(r["source_ids"])) for r in payload.events))

    def load(self, job: Job) -> Events:
        wanted = set(job.session_ids)
        return Events(tuple(EventUnit(r["id"], r["session_id"], r["summary"] or "",
                                      tuple(r["topics"] or ()), tuple(r["keywords"] or ()),
                                      tuple(r["source_ids"] or ()))
                            for r in self._stored(job) if r["session_id"] in wanted))

    def write(self, tx: Tx, job: Job, payload: EventPayload) -> None:
        space = job.space
        tx.run("ingest/events/prune_events", space=space, conversation_id=payload.conversation_id,
               session_ids=payload.session_ids,
               keep_events=[row["id"] for row in payload.events],
               keep_boundaries=[row["id"] for row in payload.boundaries],
               event_turns=[{"id": r["id"], "source_turn_ids": r["source_turn_ids"]}
                            for r in payload.events])
        self.write_rows(tx, "ingest/events/merge_events", "events", payload.events, space=space)
        self.write_rows(tx, "ingest/events/merge_boundaries", "boundaries", payload.boundaries,
                        space=space)
        self.write_rows(tx, "ingest/set_vectors", "rows", payload.embeddings,
                        space=space)
        tx.run("ingest/events/link_events", space=space, conversation_id=payload.conversation_id)


def _non_empty(text: str) -> str:
    if not text.strip():
        raise ValueError("empty description")
    return text.strip()
