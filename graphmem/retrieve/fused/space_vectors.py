"""One space's embedded units held in the client and scored with numpy for each question.

The fused strategy's dense sources (turns, MMS retrieval units, EDUs, scenes, EMA units) were
exact scans in Neo4j, 10 to 30 ms each on a LoCoMo conversation, paid on every search. Here a
space's vectors are read once (``cypher/retrieve/space_vectors.cypher``) and kept while the
space keeps its revision (:mod:`space_cache`); a question then costs one matrix product per
source. Scores are Neo4j's own cosine score, (1 + cos) / 2, and the order is the statements'
(score, then id), so rankings and the learned ranker's features are those of the scans.

When the space changes (a live message, an ingest, a layer added), only the units whose
``embedded_hash`` the client has not seen are read with their vectors; the rest keep theirs.
A dense plug-in source reads its units through a statement of its own (``Source.vectors``).

A space of more than ``GRAPHMEM_CLIENT_VECTORS_MAX_TURNS`` turns is left to Neo4j (its vector
indexes); the cache holds at most ``GRAPHMEM_CLIENT_VECTORS_ROWS`` vectors over all spaces.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from graphmem.retrieve.fused.sources import own_vectors
from graphmem.retrieve.space_cache import SpaceCache, SpaceCaches, only_appended
from graphmem.store import present

if TYPE_CHECKING:
    from graphmem.retrieve.base import SpaceState
    from graphmem.store import GraphStore

@dataclass(frozen=True)
class DenseUnits:
    """One source's units of a space: ids (sorted), unit vectors, each unit's turns and the
    ``embedded_hash`` its vector was read with."""

    ids: list[str]
    vectors: np.ndarray  # (n, d) float32, each row of length 1 (or 0 for a zero vector)
    turn_ids: list[list[str]]
    hashes: list[str | None] = field(default_factory=list)

    @classmethod
    def build(cls, ids: list[str], embeddings: Sequence[Sequence[float] | np.ndarray],
              turn_ids: list[list[str]], hashes: list[str | None] | None = None) -> DenseUnits:
        """Rows given as numpy arrays are unit vectors kept from an earlier read (used as they
        are); the others are embeddings as stored, scaled to length 1 here."""
        hashes = hashes if hashes is not None else [None] * len(ids)
        if not ids:
            return cls([], np.zeros((0, 0), dtype=np.float32), [], [])
        fresh = [i for i, e in enumerate(embeddings) if not isinstance(e, np.ndarray)]
        raw = np.asarray([embeddings[i] for i in fresh], dtype=np.float32)
        matrix = np.empty((len(ids), raw.shape[1] if fresh else len(embeddings[0])),
                          dtype=np.float32)
        if fresh:
            norms = np.linalg.norm(raw, axis=1, keepdims=True)
            matrix[fresh] = raw / np.where(norms > 0, norms, 1)
        for i, e in enumerate(embeddings):
            if isinstance(e, np.ndarray):
                matrix[i] = e
        return cls(ids, matrix, turn_ids, hashes)

    def held(self) -> dict[tuple[str, str], np.ndarray]:
        """The vectors by (id, embedded_hash), for a refresh of the space to keep."""
        pairs = zip(self.ids, self.hashes, strict=True)
        return {(i, h): self.vectors[n] for n, (i, h) in enumerate(pairs) if h is not None}

    def nearest(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` units nearest ``query`` as (index, score), best first, ties by id (ids
        are sorted, so by index); the score is (1 + cosine) / 2 like Neo4j's."""
        if not self.ids or k <= 0:
            return []
        norm = float(np.linalg.norm(query))
        cosine = self.vectors @ (query / norm if norm > 0 else query)
        scores = (1.0 + cosine.astype(np.float64)) / 2.0
        if k < len(scores):
            top = np.argpartition(-scores, k - 1)[:k]
            cut = scores[top].min()
            top = np.flatnonzero(scores >= cut)  # keep every tie at the cut, then sort
        else:
            top = np.arange(len(scores))
        order = top[np.lexsort((top, -scores[top]))][:k]
        return [(int(i), float(scores[i])) for i in order]


@dataclass(frozen=True)
class SpaceVectors:
    """The dense units of one space, by source, and the space's epoch and appended turns they
    were read at (:func:`with_appended`)."""

    sources: dict[str, DenseUnits]
    epoch: str | None = None
    appended: int = 0

    @property
    def rows(self) -> int:
        return sum(len(units.ids) for units in self.sources.values())


UNIT_FIELDS = ("id", "hash", "embedding", "turn_ids")


def unit_rows(kinds: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``retrieve/space_vectors``'s kinds (each with its units as lists) as one row per unit
    (``kind``, ``id``, ``hash``, ``embedding``, ``turn_ids``), in the same order."""
    return [{"kind": found["kind"], **dict(zip(UNIT_FIELDS, unit, strict=True))}
            for found in kinds for unit in found["units"]]


def _read(store: GraphStore, space: str, kinds: Sequence[str], vectors: bool,
          ids: dict[str, list[str]] | None = None) -> list[dict[str, Any]]:
    """Rows of ``kinds`` (``kind``, ``id``, ``hash``, ``embedding``, ``turn_ids``): graphmem's
    own kinds through one statement, each dense plug-in source through its own; with ``ids``
    only those units, by kind, and always with their vectors."""
    own = [k for k in kinds if own_vectors(k) is None]
    rows: list[dict[str, Any]] = []
    if ids is None and own:
        rows = unit_rows(store.read_plain("retrieve/space_vectors", space=space, kinds=own,
                                          vectors=vectors))
    elif ids is not None:
        lacking = [{"kind": k, "id": i} for k in own for i in ids.get(k, ())]
        if lacking:
            rows = store.read_plain("retrieve/space_vectors_by_id", space=space, rows=lacking)
    for kind in kinds:
        statement = own_vectors(kind)
        if statement is None or (ids is not None and not ids.get(kind)):
            continue
        found = store.read_plain(statement, space=space, vectors=vectors or ids is not None,
                                 ids=None if ids is None else ids[kind])
        rows.extend({**row, "kind": kind} for row in found)
    return rows


def read_space_vectors(store: GraphStore, space: str, kinds: Sequence[str],
                       previous: SpaceVectors | None = None) -> SpaceVectors:
    """The vectors of ``kinds``; with ``previous`` (an older read of the space) only the units
    it lacks, or whose embedded text changed since, are read with their vectors."""
    rows = _read(store, space, kinds, vectors=previous is None)
    if previous is not None:
        held = {kind: units.held() for kind, units in previous.sources.items()}
        for row in rows:
            known = held.get(row["kind"], {}).get((row["id"], row["hash"]))
            row["embedding"] = known
        lacking: dict[str, list[str]] = defaultdict(list)
        for row in rows:
            if row["embedding"] is None:
                lacking[row["kind"]].append(row["id"])
        if lacking:
            fetched = {(r["kind"], r["id"]): r for r in _read(store, space, kinds, True,
                                                              lacking)}
            for row in rows:
                if row["embedding"] is None:  # a unit deleted meanwhile is left out below
                    got = fetched.get((row["kind"], row["id"]))
                    if got is not None:
                        row["embedding"], row["hash"] = got["embedding"], got["hash"]
    rows = present(rows, ("embedding", "turn_ids"))  # a unit deleted while it was read
    found: dict[str, tuple[list[str], list[Any], list[list[str]], list[str | None]]] = \
        defaultdict(lambda: ([], [], [], []))
    for row in rows:  # each kind's rows come from one statement, in the order of their ids
        ids, vectors, turns, hashes = found[row["kind"]]
        ids.append(row["id"])
        vectors.append(row["embedding"])
        turns.append(list(row["turn_ids"]))
        hashes.append(row["hash"])
    return SpaceVectors({kind: DenseUnits.build(*found[kind]) for kind in kinds})


TURNS = "vector"  # the kind of the turns' own vectors


def read_appended(store: GraphStore, space: str, previous: SpaceVectors) -> SpaceVectors | None:
    """``previous`` with the vectors of the turns appended to the space since it was read
    (the only units such a change adds), or None when the space changed otherwise since."""
    found = store.read_plain("retrieve/appended_vectors", space=space, epoch=previous.epoch,
                             **{"from": previous.appended})
    if not found:
        return None
    sources = dict(previous.sources)
    if TURNS in sources:
        sources[TURNS] = with_appended(sources[TURNS], found[0]["turns"])
    return SpaceVectors(sources, previous.epoch, found[0]["appended"])


def with_appended(units: DenseUnits, turns: list[list[Any]]) -> DenseUnits:
    """The turns' ``units`` with ``turns`` ([id, hash, embedding] each) among them in the order
    of their ids; a turn held already keeps its vector (an append changes no stored turn)."""
    held = set(units.ids)
    fresh = [t for t in turns if t[0] not in held]
    if not fresh:
        return units
    added = DenseUnits.build([t[0] for t in fresh], [t[2] for t in fresh],
                             [[t[0]] for t in fresh], [t[1] for t in fresh])
    if not units.ids:
        ids, order = added.ids, sorted(range(len(fresh)), key=added.ids.__getitem__)
        matrix = added.vectors
    else:
        ids = [*units.ids, *added.ids]
        order = sorted(range(len(ids)), key=ids.__getitem__)
        matrix = np.concatenate([units.vectors, added.vectors])
    turn_ids = [*units.turn_ids, *added.turn_ids]
    hashes = [*units.hashes, *added.hashes]
    return DenseUnits([ids[i] for i in order], matrix[order], [turn_ids[i] for i in order],
                      [hashes[i] for i in order])


def _rows(vectors: SpaceVectors) -> int:
    return vectors.rows


def space_vectors(store: GraphStore, state: SpaceState, kinds: Sequence[str],
                  caches: SpaceCaches) -> SpaceVectors | None:
    """The vectors of ``kinds`` for ``state.space``, or None when the space is too large to
    hold in the client (its searches then run in Neo4j)."""
    settings = store.settings
    if state.turns > settings.client_vectors_max_turns:
        return None
    cache: SpaceCache[SpaceVectors] = caches.part("vectors", settings.client_vectors_rows, _rows)
    kinds = tuple(sorted(kinds))

    def load() -> SpaceVectors:
        previous = cache.latest(store, state.space, kinds)
        if previous is not None and only_appended(previous.epoch, previous.appended, state):
            kept = read_appended(store, state.space, previous)
            if kept is not None:
                return kept
        read = read_space_vectors(store, state.space, kinds, previous)
        return SpaceVectors(read.sources, state.epoch, state.appended)

    return cache.get(store, state, load, extra=kinds)
