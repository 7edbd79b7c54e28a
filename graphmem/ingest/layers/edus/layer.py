"""The EDU layer of the graph (EMem): EDUs, arguments and synonym edges of one conversation.

Statements, arguments and embeddings are computed before the conversation's transaction
opens; which arguments are new to the space, and their synonym pairs, are decided inside it,
after the space's write lock (``ingest/lock_space``), so that conversations written at once
by several workers end as if written one after another. A failure leaves nothing
half-written.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from graphmem.ids import conversation_id, part, session_id
from graphmem.ingest.embedding_rows import embedding_rows
from graphmem.ingest.layer import SHARED_READS, Job, Joins, Layer, LayerResult, Owns, VectorKind
from graphmem.ingest.layers.edus.extract import EDURecord, conversation_edus
from graphmem.store import Tx

SYNONYM_THRESHOLD = 0.9
MAX_SYNONYMS = 100
# new x stored arguments compared in the database; past that, the stored vectors are read
IN_DATABASE_COMPARISONS = 200_000


def edu_id(space: str, conversation: str, key: str) -> str:
    return f"{conversation_id(space, conversation)}#{part(key, safe='~')}"


def argument_id(space: str, text: str) -> str:
    return f"{part(space)}/arg/{part(text)}"


@dataclass
class EduPayload:
    session_ids: list[str]
    edus: list[dict[str, Any]] = field(default_factory=list)
    arguments: list[dict[str, str]] = field(default_factory=list)
    links: list[dict[str, str]] = field(default_factory=list)
    embeddings: list[dict[str, Any]] = field(default_factory=list)  # EDUs
    argument_embeddings: list[dict[str, Any]] = field(default_factory=list)  # new when read
    synonyms: list[dict[str, Any]] = field(default_factory=list)
    reused: int = 0
    new_arguments: int = 0  # not in the space before: others are shared with stored EDUs
    fallbacks: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class EduUnit:
    """One stored statement as later layers see it."""

    id: str
    session_id: str
    text: str
    speaker: str
    source_ids: tuple[str, ...]
    arguments: tuple[str, ...]  # sorted: the graph keeps no order among them


@dataclass(frozen=True)
class Edus:
    """The EDU layer's hand-off: the conversation's statements in session and spoken order."""

    units: tuple[EduUnit, ...]


def synonym_pairs(new_ids: list[str], new_vectors: np.ndarray, all_ids: list[str],
                  all_vectors: np.ndarray, threshold: float = SYNONYM_THRESHOLD,
                  cap: int = MAX_SYNONYMS) -> list[dict[str, Any]]:
    """Pairs (lower id first) of a new argument and any argument at cosine >= threshold,
    keeping each new argument's ``cap`` closest."""
    if not new_ids or not all_ids:
        return []
    sims = new_vectors @ all_vectors.T
    close: dict[str, list[tuple[float, str]]] = {}
    for row, source in enumerate(new_ids):
        order = np.argsort(-sims[row])
        kept = close.setdefault(source, [])
        for col in order:
            score = float(sims[row, col])
            if score < threshold or len(kept) >= cap:
                break
            if all_ids[col] != source:
                kept.append((score, all_ids[col]))
    return merge_pairs(close)


def merge_pairs(close: dict[str, list[tuple[float, str]]]) -> list[dict[str, Any]]:
    """Undirected pairs (lower id first, the higher score of the two directions) from each
    new argument's close ones."""
    pairs: dict[tuple[str, str], float] = {}
    for source, found in close.items():
        for score, target in found:
            key = (source, target) if source < target else (target, source)
            pairs[key] = max(score, pairs.get(key, -1.0))
    return [{"source": a, "target": b, "score": round(s, 6)} for (a, b), s in sorted(pairs.items())]


class EduLayer(Layer[EduPayload]):
    name = "edus"
    scope = "session"
    reads = (*SHARED_READS, "ingest/edus/known_arguments",
             "ingest/edus/space_arguments", "ingest/edus/argument_neighbours",
             "ingest/edus/conversation_edus")
    writes = ("ingest/edus/merge_edus", "ingest/edus/merge_arguments", "ingest/edus/link_arguments",
              "ingest/set_vectors", "ingest/edus/merge_synonyms")
    prunes = ("ingest/edus/prune_edus", "ingest/edus/prune_argument_links")
    vectors = (VectorKind("EDU"), VectorKind("Argument"))
    owns: ClassVar[Owns] = {
        "EDU": ("text", "session_id", "conversation_id", "source_ids", "embedding"),
        "Argument": ("text", "embedding")}
    joins: ClassVar[Joins] = {
        "HAS_EDU": (("Session", "EDU"),),
        "HAS_ARGUMENT": (("EDU", "Argument"),),
        "SYNONYM": (("Argument", "Argument"),)}
    unsourced = ("Argument",)  # shared by the statements that mention it

    def prepare(self, job: Job) -> EduPayload:
        space, conv, cid = job.space, job.conversation, job.conversation_id
        turns = job.handoff("turns").by_source
        payload = EduPayload(session_ids=job.session_ids)
        texts: dict[str, str] = {}
        argument_texts: dict[str, str] = {}
        for session, edus in conversation_edus(conv, self.llm, payload.fallbacks):
            sid = session_id(space, conv.key, session.key)
            for order, edu in enumerate(edus):
                eid = edu_id(space, conv.key, edu.key)
                payload.edus.append(self._row(cid, sid, order, eid, edu, turns))
                texts[eid] = edu.text
                for arg in edu.arguments:
                    aid = argument_id(space, arg)
                    argument_texts[aid] = arg
                    payload.links.append({"edu_id": eid, "argument_id": aid})
        payload.arguments = [{"id": a, "text": t} for a, t in argument_texts.items()]
        payload.embeddings, payload.reused = self.embed_changed(space, texts, unit="statement")
        [known] = self.store.read("ingest/edus/known_arguments", space=space,
                                  ids=list(argument_texts))
        new_args = [aid for aid in argument_texts if aid not in set(known["known"])]
        payload.argument_embeddings = embedding_rows(self.embedder, new_args, argument_texts)
        return payload

    def _decide_new(self, tx: Tx, space: str, payload: EduPayload) -> list[dict[str, Any]]:
        """Inside the transaction, before this conversation's arguments are merged: which
        arguments are new to the space now (another writer may have stored some since
        ``prepare``), and their synonym pairs. Returns the embedding rows to write."""
        ids = [row["id"] for row in payload.arguments]
        [known] = tx.run("ingest/edus/known_arguments", space=space, ids=ids)
        stored = set(known["known"])
        new_rows = [r for r in payload.argument_embeddings if r["id"] not in stored]
        payload.new_arguments = len(new_rows)
        payload.synonyms = self._synonyms(tx.run, space, new_rows, known["stored"])
        return new_rows

    @staticmethod
    def _synonyms(read: Callable[..., list[dict[str, Any]]], space: str,
                  new_rows: list[dict[str, Any]], stored: int) -> list[dict[str, Any]]:
        """Synonym pairs of the new arguments, among themselves and with the stored ones. A
        few new ones (live messages) are compared with the stored ones in the database;
        many (a whole conversation) against the stored vectors read once."""
        if not new_rows:
            return []
        new_ids = [r["id"] for r in new_rows]
        new_vectors = np.array([r["embedding"] for r in new_rows], dtype=np.float32)
        if len(new_rows) * stored > IN_DATABASE_COMPARISONS:
            rows = read("ingest/edus/space_arguments", space=space)
            everything = np.vstack([np.array([r["embedding"] for r in rows], dtype=np.float32)
                                    .reshape(-1, new_vectors.shape[1]), new_vectors])
            return synonym_pairs(new_ids, new_vectors, [r["id"] for r in rows] + new_ids,
                                 everything, SYNONYM_THRESHOLD, MAX_SYNONYMS)
        found = read("ingest/edus/argument_neighbours", space=space, rows=[
            {"id": r["id"], "embedding": r["embedding"]} for r in new_rows],
            threshold=SYNONYM_THRESHOLD, cap=MAX_SYNONYMS)
        among_new = new_vectors @ new_vectors.T
        close: dict[str, list[tuple[float, str]]] = {i: [] for i in new_ids}
        for row in found:
            close[row["source"]].append((float(row["cosine"]), row["target"]))
        for a, source in enumerate(new_ids):
            close[source].extend((float(among_new[a, b]), target)
                                 for b, target in enumerate(new_ids)
                                 if b != a and among_new[a, b] >= SYNONYM_THRESHOLD)
        return merge_pairs({s: sorted(c, key=lambda x: (-x[0], x[1]))[:MAX_SYNONYMS]
                            for s, c in close.items()})

    @staticmethod
    def _row(cid: str, sid: str, order: int, eid: str, edu: EDURecord,
             turns: dict[str, str]) -> dict[str, Any]:
        return {"id": eid, "session_id": sid, "conversation_id": cid, "kind": edu.kind,
                "text": edu.text, "rendered": edu.rendered, "speaker": edu.speaker,
                "order": order, "source_ids": list(edu.source_ids),
                "source_turn_ids": [turns[s] for s in edu.source_ids],
                "arguments": list(edu.arguments)}

    def result(self, payload: EduPayload) -> LayerResult:
        return LayerResult({"edus": len(payload.edus), "new arguments": payload.new_arguments,
                            "synonym pairs": len(payload.synonyms)},
                           embedded=len(payload.embeddings) + payload.new_arguments,
                           unchanged=payload.reused,
                           fallbacks=payload.fallbacks)

    def handoff(self, payload: EduPayload) -> Edus:
        return Edus(tuple(EduUnit(r["id"], r["session_id"], r["text"], r["speaker"],
                                  tuple(r["source_ids"]), tuple(sorted(r["arguments"])))
                          for r in payload.edus))

    def load(self, job: Job) -> Edus:
        rows = self.store.read("ingest/edus/conversation_edus", space=job.space,
                               conversation_id=job.conversation_id)
        return Edus(tuple(EduUnit(r["id"], r["session_id"], r["text"], r["speaker"],
                                  tuple(r["source_ids"]), tuple(sorted(r["arguments"])))
                          for r in rows))

    def write(self, tx: Tx, job: Job, payload: EduPayload) -> None:
        space = job.space
        new_arguments = self._decide_new(tx, space, payload)
        edu_ids = [row["id"] for row in payload.edus]
        tx.run("ingest/edus/prune_edus", space=space, session_ids=payload.session_ids, keep=edu_ids)
        self.write_rows(tx, "ingest/edus/merge_edus", "edus", payload.edus, space=space)
        tx.run("ingest/edus/prune_argument_links", space=space, edu_ids=edu_ids,
               links=payload.links)
        self.write_rows(tx, "ingest/edus/merge_arguments", "arguments", payload.arguments,
                        space=space)
        self.write_rows(tx, "ingest/edus/link_arguments", "links", payload.links, space=space)
        self.write_rows(tx, "ingest/set_vectors", "rows",
                        payload.embeddings + new_arguments, space=space)
        if payload.synonyms:
            self.write_rows(tx, "ingest/edus/merge_synonyms", "pairs", payload.synonyms,
                            space=space)
