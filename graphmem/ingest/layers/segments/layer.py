"""The segments layer of the graph (MMS): a retrieval unit and a context unit per round.

For each round (:mod:`units`) the layer writes a ``RetrievalUnit`` (the
embedded text a search matches, also in a fulltext index) and a ``ContextUnit`` (the text a
context shows), one to one, linked by ``SHOWS``, both linked to the round's turns, the
retrieval unit to its session by ``HAS_UNIT``. The rules need the EDU layer's statements; with
an LLM, one call per round writes the segments instead.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, ClassVar

from graphmem.ids import conversation_id, part, session_id
from graphmem.ingest.layer import (
    SHARED_READS,
    Job,
    Joins,
    Layer,
    LayerContext,
    LayerResult,
    Owns,
    VectorKind,
)
from graphmem.ingest.layers.edus import Edus
from graphmem.ingest.layers.segments.units import (
    Round,
    SegmentConfig,
    SegmentOptions,
    Segments,
    compose,
    llm_segments,
    round_words,
    rounds,
    rule_segments,
)
from graphmem.providers.nlp import parse
from graphmem.store import Tx
from graphmem.text import display_name


def unit_id(space: str, conversation: str, round_key: str, kind: str) -> str:
    """``kind``: 'r' for the retrieval unit, 'c' for the context unit."""
    return f"{conversation_id(space, conversation)}#{kind}~{part(round_key, safe='~')}"


@dataclass
class SegmentPayload:
    session_ids: list[str]
    units: list[dict[str, Any]] = field(default_factory=list)
    embeddings: list[dict[str, Any]] = field(default_factory=list)
    reused: int = 0
    fallbacks: list[str] = field(default_factory=list)


class SegmentLayer(Layer[SegmentPayload]):
    name = "segments"
    needs = ("turns", "edus")
    scope = "session"
    reads = SHARED_READS
    writes = ("ingest/segments/merge_units", "ingest/set_vectors")
    prunes = ("ingest/segments/prune_units",)
    vectors = (VectorKind("RetrievalUnit"),)
    owns: ClassVar[Owns] = {
        "RetrievalUnit": ("text", "session_id", "source_ids", "embedding"),
        "ContextUnit": ("text", "session_id", "source_ids")}
    joins: ClassVar[Joins] = {
        "HAS_UNIT": (("Session", "RetrievalUnit"),),
        "SHOWS": (("RetrievalUnit", "ContextUnit"),)}
    options_model = SegmentOptions

    def __init__(self, context: LayerContext, config: SegmentConfig | None = None) -> None:
        super().__init__(context)
        self.config = config or SegmentConfig.of(self.read_options(context.settings))

    def prepare(self, job: Job) -> SegmentPayload:
        space, conv = job.space, job.conversation
        turn_ids = job.handoff("turns").by_source
        edus: Edus = job.handoff("edus")
        said: dict[str, list[str]] = defaultdict(list)  # turn source id -> its statements
        for unit in edus.units:
            said[unit.source_ids[0]].append(unit.text)
        names = frozenset(display_name(s) for s in conv.speakers)
        payload = SegmentPayload(session_ids=job.session_ids)
        texts: dict[str, str] = {}
        for session in conv.sessions:
            sid = session_id(space, conv.key, session.key)
            cut = rounds(session, self.config.round_turns)
            stated = [[s for t in r.turns for s in said[t.source_id]] for r in cut]
            # what the rules parse, parsed in one batch (the parser's memo then serves each
            # round): spaCy runs a batch ~1.6x faster than the same texts one by one
            parse([round_words(r) for r in cut] + [s for group in stated for s in group])
            by_rules = [rule_segments(r, group, names)
                        for r, group in zip(cut, stated, strict=True)]
            before = [""] + [r.text() for r in cut[:-1]]
            found = llm_segments(self.llm, cut, before, by_rules, payload.fallbacks)
            for order, (rnd, segments) in enumerate(zip(cut, found, strict=True)):
                row = self._row(space, conv.key, sid, order, rnd, segments, turn_ids)
                payload.units.append(row)
                texts[row["id"]] = row["retrieval_text"]
        payload.embeddings, payload.reused = self.embed_changed(space, texts, unit="unit")
        return payload

    def _row(self, space: str, conv_key: str, sid: str, order: int, rnd: Round,
             segments: Segments, turn_ids: dict[str, str]) -> dict[str, Any]:
        c = self.config
        return {
            "id": unit_id(space, conv_key, rnd.key, "r"),
            "context_id": unit_id(space, conv_key, rnd.key, "c"),
            "session_id": sid, "conversation_id": conversation_id(space, conv_key),
            "order": order,
            "round": rnd.text(), "keywords": list(segments.keywords),
            "perspectives": list(segments.perspectives), "episodic": list(segments.episodic),
            "semantic": list(segments.semantic),
            "retrieval_text": compose(c.retrieval, rnd, segments, dated=False),
            "context_text": compose(c.context, rnd, segments, dated=True),
            "source_ids": [t.source_id for t in rnd.turns],
            "source_turn_ids": [turn_ids[t.source_id] for t in rnd.turns],
        }

    def result(self, payload: SegmentPayload) -> LayerResult:
        return LayerResult({"retrieval units": len(payload.units),
                            "context units": len(payload.units)},
                           embedded=len(payload.embeddings), unchanged=payload.reused,
                           fallbacks=payload.fallbacks)

    def write(self, tx: Tx, job: Job, payload: SegmentPayload) -> None:
        space = job.space
        keep = [row["id"] for row in payload.units]
        tx.run("ingest/segments/prune_units", space=space, session_ids=payload.session_ids,
               keep=keep)
        self.write_rows(tx, "ingest/segments/merge_units", "units", payload.units, space=space)
        self.write_rows(tx, "ingest/set_vectors", "rows", payload.embeddings,
                        space=space)
