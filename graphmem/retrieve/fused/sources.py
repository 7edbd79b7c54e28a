"""The fused strategy's candidate sources, declared once: what each is called, the layer it
reads, how deep it looks, the statement that runs it in Neo4j and how its rows reach turns.

Everything else is derived from this table: the layers a space is asked about, which sources
the client scores from held vectors, the order the Neo4j reads run in, the feature columns
each source fills (``<name>:rr``, ``:depth``, ``:score``, in the table's order) and which
sources' ranks the neighbour and session features read.

A plug-in adds a source with :func:`register_source` (``docs/extending.md``). Its columns
come after graphmem's own, so the shipped ranker reads what it read before; a search runs a
plug-in's source only when the ranker in use reads its columns, which a ranker retrained
with the plug-in installed does (``graphmem eval train-ranker``, then ``GRAPHMEM_RANKER``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from graphmem.errors import ConfigurationError

TurnsKey = Literal["id", "turn_ids", "turns"]
COLUMNS = ("rr", "depth", "score")  # the features each source fills


@dataclass(frozen=True)
class Pools:
    """How many items each source fetches (turns, units, statements, scenes, events' turns,
    episodic units)."""

    turns: int = 100
    units: int = 30
    edus: int = 50
    scenes: int = 8
    event_turns: int = 100
    anchors: int = 10  # ES-Mem's k boundaries
    window: int = 3  # ES-Mem's w
    alpha: float = 0.7  # ES-Mem's summary weight
    episodes: int = 20
    kind: int = 20  # turns closest to the kind a list question asks for
    oversample: float = 1.5

    def scaled(self, budget: int, tokens_per_turn: int = 15) -> Pools:
        """Turn pools deep enough to fill ``budget`` (a turn costs ~15 tokens)."""
        deep = min(400, max(self.turns, budget // tokens_per_turn))
        return replace(self, turns=deep, event_turns=max(self.event_turns, deep))



def _none(_: Pools) -> dict[str, Any]:
    return {}


@dataclass(frozen=True)
class Source:
    """One candidate source.

    ``depth`` is a field of :class:`Pools` (so budgets
    scale it) or a fixed number of rows. ``statement`` runs it in Neo4j with ``$space``,
    ``$embedding``, ``$k`` (the depth), ``$exact`` and ``$candidates`` (an exact scan of a
    small space, else the vector index: ``SpaceState.vector``) and whatever ``params`` adds;
    it returns rows best first, each with a ``score`` column (or the one ``score`` names)
    and its turns as ``turns`` says: ``id`` (the row is a turn), ``turn_ids`` (a list of turn
    ids) or ``turns`` (a list of maps with an ``id``). ``dense``: the client may score it
    from the space's vectors, read by ``vectors`` (graphmem's own sources leave it None: one
    statement, ``cypher/retrieve/space_vectors.cypher``, reads their kinds);
    ``turn_level``: it ranks turns by their own text, so the neighbour and session features
    read its ranks; ``reciprocal``: scored 1 / (61 + rank) when held in the client (MMS's
    fusion without BM25); ``cost``: reads run costliest first (measured).

    A plug-in's ``vectors`` statement gets ``$space``, ``$vectors`` (false: leave each
    ``embedding`` null, the client keeps what it holds) and ``$ids`` (null for every unit,
    else only those) and returns one row per unit with ``id``, ``hash`` (what the vector
    embeds changes, so does this), ``embedding`` and ``turn_ids``, ordered by ``id``. Its
    units' order by score must be the ``statement``'s, which a larger space runs instead."""

    name: str
    layer: str
    depth: str | int
    statement: str | None = None
    turns: TurnsKey = "turn_ids"
    score: str = "score"
    params: Callable[[Pools], dict[str, Any]] = field(default=_none, compare=False)
    dense: bool = False
    turn_level: bool = False
    reciprocal: bool = False
    cost: int = 100
    vectors: str | None = None

    def k(self, pools: Pools) -> int:
        return self.depth if isinstance(self.depth, int) else int(getattr(pools, self.depth))

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(f"{self.name}:{c}" for c in COLUMNS)


def _events(pools: Pools) -> dict[str, Any]:
    return {"w": pools.window, "alpha": pools.alpha, "beta": 0.5, "limit": pools.event_turns}


def _units(_: Pools) -> dict[str, Any]:
    return {"query": "", "bm25": False, "rrf_k": 60}


# graphmem's own, in the order of their feature columns (the shipped ranker's file names them)
BUILT_IN: tuple[Source, ...] = (
    Source("bm25", "turns", "turns", turn_level=True),  # the space's BM25, in the client
    Source("vector", "turns", "turns", "retrieve/turns_vector", "id", dense=True,
           turn_level=True, cost=1),
    Source("units", "segments", "units", "retrieve/mms_units", "turns", params=_units,
           dense=True, reciprocal=True, cost=3),
    Source("edus", "edus", "edus", "retrieve/edus_vector", dense=True, turn_level=True,
           cost=0),
    Source("scenes", "scenes", "scenes", "retrieve/scenes_vector", dense=True, cost=4),
    Source("events", "events", "anchors", "retrieve/esmem_turns", "id", "s_event",
           params=_events, cost=2),
    Source("episodes", "episodes", "episodes", "retrieve/episodes_vector", "turns",
           dense=True, cost=5),
)
_TABLE: dict[str, Source] = {s.name: s for s in BUILT_IN}
# names a source may not take: the other feature families' columns start with them
RESERVED = frozenset({"prev", "next", "prev2", "next2", "self", "session", "kind", "pair"})


def register_source(source: Source) -> Source:
    """Add a plug-in's source (its layer is checked when a space is searched: a space none
    of whose sessions hold it is not asked)."""
    if source.name in RESERVED or ":" in source.name or not source.name:
        raise ConfigurationError(f"a source may not be called {source.name!r}")
    if source.statement is None:
        raise ConfigurationError(f"source {source.name!r}: a plug-in's source runs its own "
                                 "statement in Neo4j (statement=...)")
    if source.dense != (source.vectors is not None):
        raise ConfigurationError(f"source {source.name!r}: a dense plug-in source names the "
                                 "statement that reads its vectors (dense=True, vectors=...), "
                                 "and only a dense one does")
    held = _TABLE.get(source.name)
    if held is not None and held != source:
        raise ConfigurationError(f"a source named {source.name!r} is registered already")
    _TABLE[source.name] = source
    return source


def unregister_source(name: str) -> None:
    """Remove a plug-in's source (graphmem's own stay)."""
    if name in {s.name for s in BUILT_IN}:
        raise ConfigurationError(f"source {name!r} is graphmem's own")
    _TABLE.pop(name, None)


def sources() -> tuple[Source, ...]:
    """Every source: graphmem's own, then the plug-ins' in the order they were added."""
    return tuple(_TABLE.values())


def source(name: str) -> Source:
    return _TABLE[name]


def plugin_sources() -> tuple[Source, ...]:
    return tuple(s for s in _TABLE.values() if s not in BUILT_IN)


def layers_read() -> tuple[str, ...]:
    """The layers besides ``turns`` that some source reads."""
    return tuple(dict.fromkeys(s.layer for s in _TABLE.values() if s.layer != "turns"))


def dense_names() -> tuple[str, ...]:
    return tuple(s.name for s in _TABLE.values() if s.dense)


def own_vectors(name: str) -> str | None:
    """The statement reading a dense plug-in source's vectors (None: graphmem's own kinds)."""
    return _TABLE[name].vectors


def turn_level_names() -> tuple[str, ...]:
    return tuple(s.name for s in _TABLE.values() if s.turn_level)


def costliest_first(names: list[str]) -> list[str]:
    return sorted(names, key=lambda n: _TABLE[n].cost)
