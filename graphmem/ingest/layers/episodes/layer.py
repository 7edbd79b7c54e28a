"""The episodes layer of the graph (EMA): MemDecider admission and episodic memory units.

Every turn of the conversation is scored by MemDecider (:mod:`memdecider`)
and keeps its score as ``salience``; the turns that reach the threshold become ``Episode``
nodes (:mod:`units`), linked from their session (``HAS_EPISODE``) and to
their turns (``FROM_TURN``). A rejected turn stays a Turn like any other: only no unit is made
of it.

Units link to related ones (``RELATED``) and are superseded by later ones that change their
fact (``SUPERSEDED_BY``; with an LLM a prompt decides among the most similar earlier units of
the same speaker, without one the slot rule). With an LLM each unit's summary, tags and
confidence come from one call. What the Caller matches is the unit's *representation*: tags,
summary and its links' tags, embedded once when the unit is made. Links and updates are
counted per conversation; once ``reorganise_after`` have accumulated, the next ingest of the
conversation reorganises it: every representation is rebuilt from the current links (and
re-embedded where it changed) and near-duplicates are merged (``MERGED_INTO``), then the count
starts again.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from graphmem.config import Settings
from graphmem.errors import ConfigurationError
from graphmem.ids import part, session_id
from graphmem.ingest.layer import Job, Joins, Layer, LayerContext, LayerResult, Owns, VectorKind
from graphmem.ingest.layers.episodes.memdecider import (
    MODEL_PATH,
    TurnText,
    hand_features,
    load_memdecider,
    parse,
)
from graphmem.ingest.layers.episodes.units import (
    EpisodeConfig,
    EpisodeOptions,
    Unit,
    build_units,
    duplicates,
    link,
    representation,
    supersessions,
)
from graphmem.prompts import episode_unit, episode_update
from graphmem.providers.embedder import model_identity
from graphmem.store import Tx
from graphmem.text import display_name, format_date

UPDATE_CANDIDATES = 5  # earlier units of the same speaker an LLM is shown per new unit


@dataclass
class EpisodePayload:
    salience: list[dict[str, Any]] = field(default_factory=list)
    units: list[dict[str, Any]] = field(default_factory=list)
    related: list[dict[str, Any]] = field(default_factory=list)
    superseded: list[dict[str, Any]] = field(default_factory=list)
    merged: list[dict[str, Any]] = field(default_factory=list)
    embeddings: list[dict[str, Any]] = field(default_factory=list)
    operations: int = 0
    reorganised: bool = False
    reused: int = 0
    fallbacks: list[str] = field(default_factory=list)


class EpisodeLayer(Layer[EpisodePayload]):
    name = "episodes"
    needs = ("turns",)
    reads = ("ingest/turns/turn_vectors", "ingest/episodes/episode_state")
    writes = ("ingest/episodes/set_salience", "ingest/episodes/merge_episodes",
              "ingest/episodes/link_episodes", "ingest/set_vectors")
    prunes = ("ingest/episodes/prune_episodes",)
    vectors = (VectorKind("Episode", fields="{text: n.representation}"),)
    owns: ClassVar[Owns] = {"Episode": ("conversation_id", "source_ids", "embedding")}
    joins: ClassVar[Joins] = {
        "HAS_EPISODE": (("Session", "Episode"),),
        "RELATED": (("Episode", "Episode"),),
        "SUPERSEDED_BY": (("Episode", "Episode"),),
        "MERGED_INTO": (("Episode", "Episode"),)}
    options_model = EpisodeOptions

    def __init__(self, context: LayerContext, config: EpisodeConfig | None = None) -> None:
        super().__init__(context)
        self.config = config or EpisodeConfig.of(self.read_options(context.settings))
        self.model = load_memdecider(model_path(context.settings))
        self.tau = self.model.tau if self.config.tau is None else self.config.tau
        self._check_embedder(context)

    def _check_embedder(self, context: LayerContext) -> None:
        """The MemDecider reads the turns' vectors: one trained on another model's vectors
        would score nonsense (or fail on their length), so it is refused before any work."""
        mine = model_identity(context.embedder.name)
        other = mine != self.model.embedder and not mine.startswith("hash-")  # tests' vectors
        if self.model.dimensions != context.embedder.dimensions or other:
            raise ConfigurationError(
                f"EMA's MemDecider ({model_path(context.settings)}) was trained on "
                f"{self.model.dimensions}-d vectors of {self.model.embedder}, not on "
                f"{context.embedder.name}'s: train one for it (GRAPHMEM_EMBEDDING_MODEL="
                f"{context.embedder.name.split('@')[0]} graphmem eval train-memdecider --out "
                "FILE.npz, then GRAPHMEM_EPISODES_MODEL=FILE.npz), or leave the episodes layer "
                "out of GRAPHMEM_INGEST_LAYERS")

    @classmethod
    def fingerprint(cls, settings: Settings) -> str:
        return hashlib.sha256(model_path(settings).read_bytes()).hexdigest()[:12]

    def prepare(self, job: Job) -> EpisodePayload:
        space, conv, cid = job.space, job.conversation, job.conversation_id
        handed = job.handoff("turns")
        stored = handed.every_vector(self.store, job, self.embedder)
        turns = [(s, t) for s in conv.sessions for t in s.turns]
        payload = EpisodePayload()
        if not turns:
            return payload
        docs = parse([t.text for _, t in turns])
        vectors = np.asarray([stored[t.source_id] for _, t in turns], dtype=np.float32)
        hand = hand_features([TurnText(t.text, t.image_url is not None
                                       or t.image_caption is not None) for _, t in turns], docs)
        scores = self.model.scores(vectors, hand)
        payload.salience = [{"id": handed.by_source[t.source_id], "salience": round(float(p), 4)}
                            for (_, t), p in zip(turns, scores, strict=True)]
        units = build_units([
            {"source_id": t.source_id, "session": s.index, "speaker": t.speaker, "text": t.text,
             "image_caption": t.image_caption, "time": s.started_at, "vector": v,
             "score": float(p), "doc": d, "admitted": float(p) >= self.tau}
            for (s, t), v, p, d in zip(turns, vectors, scores, docs, strict=True)], self.config)
        self._describe(units, payload.fallbacks)
        ids = [f"{cid}#emu~{part(u.key)}" for u in units]
        state = self.store.read("ingest/episodes/episode_state", space=space,
                                conversation_id=cid)[0]
        known = {row["id"]: row for row in state["units"]}
        pairs = link(units, self.config)
        replaced = self._supersessions(units, payload.fallbacks)
        payload.related = [{"a": ids[i], "b": ids[j], "score": s} for i, j, s in pairs]
        payload.superseded = [{"old": ids[i], "new": ids[j]} for i, j in replaced.items()]
        edges = ({("RELATED", r["a"], r["b"]) for r in payload.related}
                 | {("SUPERSEDED_BY", r["old"], r["new"]) for r in payload.superseded})
        stored_edges = {(e["type"], e["a"], e["b"]) for e in state["edges"]}
        operations = state["operations"] + len(edges - stored_edges)
        payload.reorganised = operations >= self.config.reorganise_after
        payload.operations = 0 if payload.reorganised else operations
        merged = (duplicates(units, self.config, set(replaced)) if payload.reorganised else
                  {i: ids.index(known[u]["merged_into"]) for i, u in enumerate(ids)
                   if u in known and known[u]["merged_into"] in ids})
        payload.merged = [{"dup": ids[j], "into": ids[i]} for j, i in merged.items()]
        linked: dict[int, list[Unit]] = {}
        for i, j, _ in pairs:
            linked.setdefault(i, []).append(units[j])
            linked.setdefault(j, []).append(units[i])
        texts = {}
        session_ids = {s.index: session_id(space, conv.key, s.key) for s in conv.sessions}
        for n, (uid, unit) in enumerate(zip(ids, units, strict=True)):
            keep = uid in known and known[uid]["representation"] and not payload.reorganised
            texts[uid] = (known[uid]["representation"] if keep
                          else representation(unit, linked.get(n, [])))
            payload.units.append({
                "id": uid, "conversation_id": cid, "session_id": session_ids[unit.session],
                "order": n, "speaker": unit.speaker, "started_at": unit.time,
                "title": _title(unit),
                "content": unit.content, "summary": unit.summary, "tags": unit.tags,
                "participants": unit.participants, "importance": unit.importance,
                "confidence": unit.confidence, "representation": texts[uid],
                "merged_into": ids[merged[n]] if n in merged else None,
                "source_ids": unit.source_ids,
                "source_turn_ids": [handed.by_source[s] for s in unit.source_ids]})
        payload.embeddings, payload.reused = self.embed_changed(
            space, texts, {k: v["embedded_hash"] for k, v in known.items()}, "unit")
        return payload

    def _describe(self, units: list[Unit], notes: list[str]) -> None:
        """Summary, tags and confidence by the LLM, where there is one and it answers."""
        if self.llm is None or not units:
            return
        requests = [episode_unit.messages(format_date(u.time), u.content) for u in units]
        replies = episode_unit.STEP.run_batch(
            self.llm, requests, accept=_described, notes=notes,
            where=lambda i: f"unit {units[i].key}")
        for unit, reply in zip(units, replies, strict=True):
            if reply is not None:
                unit.summary, tags, unit.confidence = reply
                unit.tags = tags or unit.tags

    def _supersessions(self, units: list[Unit], notes: list[str]) -> dict[int, int]:
        rule = supersessions(units, self.config)
        if self.llm is None:
            return rule
        asks: list[tuple[int, list[int]]] = []
        for j, new in enumerate(units):
            earlier = [i for i in range(j) if units[i].speaker == new.speaker]
            earlier.sort(key=lambda i: -float(units[i].vector @ new.vector))
            if earlier:
                asks.append((j, earlier[:UPDATE_CANDIDATES]))
        requests = [episode_update.messages(_line(units[j]), [_line(units[i]) for i in cands])
                    for j, cands in asks]
        replies = episode_update.STEP.run_batch(
            self.llm, requests, accept=lambda r: r.replaced, notes=notes,
            where=lambda n: f"update by unit {units[asks[n][0]].key}")
        out: dict[int, int] = {}
        for (j, cands), reply in zip(asks, replies, strict=True):
            chosen = ([cands[k - 1] for k in reply if 1 <= k <= len(cands)] if reply is not None
                      else [i for i, new in rule.items() if new == j])
            for i in chosen:
                out.setdefault(i, j)
        return out

    def result(self, payload: EpisodePayload) -> LayerResult:
        return LayerResult({"scored turns": len(payload.salience),
                            "episodic units": len(payload.units),
                            "links": len(payload.related), "updates": len(payload.superseded),
                            "merged": len(payload.merged)},
                           embedded=len(payload.embeddings), unchanged=payload.reused,
                           fallbacks=payload.fallbacks)

    def write(self, tx: Tx, job: Job, payload: EpisodePayload) -> None:
        space, cid = job.space, job.conversation_id
        self.write_rows(tx, "ingest/episodes/set_salience", "rows", payload.salience, space=space)
        tx.run("ingest/episodes/prune_episodes", space=space, conversation_id=cid,
               keep=[row["id"] for row in payload.units])
        self.write_rows(tx, "ingest/episodes/merge_episodes", "units", payload.units, space=space)
        self.write_rows(tx, "ingest/set_vectors", "rows", payload.embeddings,
                        space=space)
        tx.run("ingest/episodes/link_episodes", space=space, conversation_id=cid,
               related=payload.related, superseded=payload.superseded, merged=payload.merged,
               operations=payload.operations, reorganised=payload.reorganised)


def model_path(settings: Settings | None) -> Path:
    chosen = EpisodeLayer.read_options(settings).model
    return Path(chosen) if chosen else MODEL_PATH


def _title(unit: Unit) -> str:
    what = ", ".join(unit.tags[:3]) or unit.summary[:40]
    return f"{display_name(unit.speaker)}: {what}"


def _line(unit: Unit) -> str:
    day = format_date(unit.time)
    return f"[{day}] {unit.summary}" if day else unit.summary


def _described(reply: episode_unit.EpisodeUnitOutput) -> tuple[str, list[str], float]:
    text = reply.summary.strip()
    if not text:
        raise ValueError("the summary is empty")
    tags = [t.strip().lower() for t in reply.tags if t.strip()][:8]
    return text, tags, round(float(reply.confidence), 2)
