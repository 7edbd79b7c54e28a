"""What every retrieval strategy builds on.

- :class:`Query`: the question, analysed once per search (embedding, mentions, Lucene terms),
  so a strategy that combines others does not embed or parse it again;
- :class:`RetrievalContext`: what a strategy may use (store, embedder, LLM, PPR projections);
- :class:`SpaceState`: what the space holds and its revision (what client caches are keyed
  on), read in one round trip before any search, with the one helper that sizes vector-index
  candidate pools;
- :class:`Strategy`: the base class. ``search`` checks that the space holds the layers the
  strategy ``needs`` (a clear error naming the missing layer and the command that adds it),
  then calls the strategy's own ``retrieve``; ``pack`` makes the context of its hits within
  the budget: the plain packer (:mod:`graphmem.retrieve.packing`, hits in rank order, each
  that fits) unless the strategy chose its hits for the budget itself and says how they
  read (`graphmem` does: its hits are the turns its packing chose, in time order).
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Generic, TypeVar

from graphmem.errors import InputError, MissingLayerError, MixedModelsError
from graphmem.markers import mark_tokens
from graphmem.models import Hit
from graphmem.providers.embedder import Embedder, query_vectors
from graphmem.providers.nlp import parse
from graphmem.retrieve.packing import Packed, pack
from graphmem.retrieve.space_cache import SpaceCaches
from graphmem.store import GraphStore
from graphmem.telemetry import stage
from graphmem.text import arguments_of, lucene_terms

if TYPE_CHECKING:
    from graphmem.providers.llm import LLM
    from graphmem.retrieve.explaining import Explaining
    from graphmem.retrieve.ppr import ProjectionCache

C = TypeVar("C")
# A strategy that packs its own context (``graphmem``) returns only what it packed; to show
# where missed evidence was lost, the evaluation sets this to a list and such a strategy
# appends its whole ranking to it: each candidate's source ids, best first
# (graphmem.eval.diagnosis). None (the default): nothing is recorded.
RANKING: ContextVar[list[list[list[str]]] | None] = ContextVar("graphmem_ranking", default=None)
MAX_VECTOR_CANDIDATES = 20_000
EXACT_TURNS = 2_000  # spaces this small are scanned exactly (see SpaceState.vector)


# the characters of a question that are analysed (parsed, embedded, matched): more than any
# question asks in, and more than the embedding model reads; a longer text is cut at the last
# space before the limit, so a 50,000-character question costs what a short one does
ANALYSED_CHARS = 1_000


def analysed(text: str) -> str:
    """The part of ``text`` a search analyses (see ``ANALYSED_CHARS``)."""
    if len(text) <= ANALYSED_CHARS:
        return text
    head = text[:ANALYSED_CHARS]
    cut = head.rfind(" ")
    return head[:cut] if cut > ANALYSED_CHARS // 2 else head


def check_question(question: object, limit: int) -> None:
    """Refuse, naming the field, a question that is no text, empty, or over ``limit``
    characters (GRAPHMEM_MAX_TURN_CHARS)."""
    if not isinstance(question, str):
        raise InputError(f"the question must be a string, got {type(question).__name__}",
                         field="question")
    if not question.strip():
        raise InputError("the question is empty", field="question")
    try:
        question.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InputError(f"the question holds a character that is not text (an unpaired "
                         f"surrogate at position {exc.start})", field="question") from None
    if len(question) > limit:
        raise InputError(f"a question of {len(question)} characters exceeds the limit of "
                         f"{limit} (GRAPHMEM_MAX_TURN_CHARS)", field="question")


class Query:
    """A question and what is derived from it, each computed at most once. ``text`` is what
    is analysed of it: the whole question, or its beginning when it is very long."""

    def __init__(self, text: str, embedder: Embedder) -> None:
        self.text = analysed(text)
        self._embedder = embedder

    @cached_property
    def embedding(self) -> list[float]:
        return [float(x) for x in query_vectors(self._embedder, [self.text])[0]]

    def embed_with(self, others: Sequence[str]) -> list[list[float]]:
        """The vectors of ``others`` (texts derived from the question: its parts, the kind it
        asks for), embedded in one batch with the question's own when that is not known yet
        (one call to the model instead of two); each text once per question."""
        known: dict[str, list[float]] = self.__dict__.setdefault("_others", {})
        wanted = [t for t in dict.fromkeys(others) if t not in known]
        first = "embedding" not in self.__dict__
        if wanted or first:
            batch = ([self.text] if first else []) + wanted
            vectors = [[float(x) for x in v] for v in query_vectors(self._embedder, batch)]
            if first:
                self.__dict__["embedding"] = vectors.pop(0)
            known.update(zip(wanted, vectors, strict=True))
        return [known[t] for t in others]

    @cached_property
    def terms(self) -> str:
        """Plain Lucene terms ('' when the question has no words)."""
        return lucene_terms(self.text)

    @cached_property
    def doc(self) -> Any:
        """The question parsed by spaCy (once)."""
        return parse([self.text])[0]

    @cached_property
    def entities(self) -> list[str]:
        """The named entities spaCy finds in the question, each once, in order."""
        return list(dict.fromkeys(e.text for e in self.doc.ents))

    @cached_property
    def mentions(self) -> list[str]:
        """Entities and noun phrases, normalised like stored arguments."""
        return list(arguments_of(self.doc[:]))


@dataclass(frozen=True)
class RetrievalContext:
    """What a strategy may use for one search."""

    store: GraphStore
    embedder: Embedder
    query: Query
    projections: ProjectionCache | None = None
    llm: LLM | None = None
    caches: SpaceCaches = field(default_factory=SpaceCaches)  # the client's, kept across
    #                                                          searches; a new one reads afresh
    explaining: Explaining | None = None  # the search is explained: what the strategy notes


@dataclass(frozen=True)
class SpaceState:
    space: str
    turns: int  # in the space
    turns_in_database: int
    sessions: int
    missing: dict[str, int]  # layer -> sessions of the space that lack it
    revision: str | None = None  # new with every change of the space (None: never written)
    embedder: str | None = None  # the embedder its vectors come from (None: not known)
    epoch: str | None = None  # new with every change that is not only an append of turns
    appended: int = 0  # turns appended in this epoch (what a reader may read alone)
    pending: dict[str, int] = field(default_factory=dict)  # layer -> conversations deriving it

    def vector(self, k: int, oversample: float) -> dict[str, Any] | None:
        """How a vector statement finds this space's ``k`` nearest nodes (its ``$exact`` and
        ``$candidates``), or None when the space is empty.

        A space of at most ``EXACT_TURNS`` turns is scanned exactly (its own nodes only), so its
        results never depend on what other spaces hold; so is any space for which the index
        could not promise ``k`` neighbours of its own within ``MAX_VECTOR_CANDIDATES``. Other
        spaces use the index, asking for enough neighbours that filtering to the space leaves
        ``k``, by the space's share of all turns."""
        if self.turns == 0:
            return None
        wanted = math.ceil(k * self.turns_in_database / self.turns * oversample)
        exact = self.turns <= EXACT_TURNS or wanted > MAX_VECTOR_CANDIDATES
        return {"exact": exact, "candidates": int(min(MAX_VECTOR_CANDIDATES, max(k, wanted)))}


def space_state(store: GraphStore, space: str, layers: tuple[str, ...] = ()) -> SpaceState:
    row = store.read("admin/space_state", space=space, layers=list(layers))[0]
    return SpaceState(space, row["in_space"], row["in_database"], row["sessions"],
                      {r["layer"]: r["missing"] for r in row["layers"] if r["missing"]},
                      row["revision"], row["embedder"], row["epoch"], row["appended"],
                      {r["layer"]: r["pending"] for r in row["layers"] if r["pending"]})


def hits_for(budget: int, tokens_per_hit: int, low: int, high: int | None = None) -> int:
    """How many hits to ask for so that ``budget`` tokens can be filled: the budget over a
    typical hit's size, within [low, high]."""
    wanted = max(low, budget // max(1, tokens_per_hit))
    return min(wanted, high) if high is not None else wanted


class Strategy(ABC, Generic[C]):
    """A named, configured way of turning a question into ranked hits of one space."""

    needs: ClassVar[tuple[str, ...]] = ("turns",)  # layers the space must hold
    uses: ClassVar[tuple[str, ...]] = ()  # layers used where the space holds them
    config_type: ClassVar[type[Any]]  # the dataclass of its options

    def __init__(self, name: str, config: C) -> None:
        self.name = name
        self.config = config

    def search(self, ctx: RetrievalContext, space: str, budget: int) -> list[Hit]:
        """Hits for ``ctx.query`` from ``space`` only, enough to fill ``budget`` tokens;
        none for a space that holds nothing."""
        with stage("space_state"):
            state = space_state(ctx.store, space, self.needs + self.layers_used())
        if state.sessions == 0:
            return []
        if state.embedder is not None and state.embedder != ctx.embedder.name:
            raise MixedModelsError(space, state.embedder, ctx.embedder.name)
        for layer, lacking in state.missing.items():
            if layer not in self.needs:
                continue
            if state.pending.get(layer):
                raise MissingLayerError(
                    f"strategy {self.name!r} needs the {layer!r} layer, which is still being "
                    f"derived for {state.pending[layer]} conversation(s) of space {space!r} "
                    "(after live messages, a forget or a correction); search again in a "
                    f"moment, or derive it now: graphmem refresh --space {space}", layer=layer)
            raise MissingLayerError(
                f"strategy {self.name!r} needs the {layer!r} layer, which {lacking} of the "
                f"{state.sessions} sessions of space {space!r} lack; add it with: "
                f"graphmem layers add {layer} --space {space}", layer=layer)
        return self.retrieve(ctx, state, budget)

    @classmethod
    def layers_used(cls) -> tuple[str, ...]:
        """``uses``, or what the strategy reads where that depends on what is installed."""
        return cls.uses

    @abstractmethod
    def retrieve(self, ctx: RetrievalContext, state: SpaceState, budget: int) -> list[Hit]:
        """The strategy itself: ranked hits of ``state.space``."""

    def pack(self, hits: Sequence[Hit], budget: int) -> Packed:
        """The context ``hits`` make within ``budget`` tokens: by default, in rank order,
        each hit that still fits."""
        return pack(hits, budget)

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "needs": list(self.needs), "uses": list(self.layers_used()),
                "config": vars(self.config)}


def same_budget(budget: int | None, max_tokens: int | None) -> int | None:
    """The budget given under either name; both, unequal, is an error."""
    if max_tokens is None:
        return budget
    if budget is not None and budget != max_tokens:
        raise InputError(f"budget ({budget!r}) and max_tokens ({max_tokens!r}) name the same "
                         "limit: give one", field="max_tokens")
    return max_tokens


def search_budget(budget: int | None, max_tokens: int | None, default: int,
                  marked: bool) -> int:
    """The tokens a search packs: ``budget`` or ``max_tokens`` (or the default), less the
    marker's when the context is ``marked``."""
    budget = same_budget(budget, max_tokens)
    budget = default if budget is None else budget
    if not isinstance(budget, int) or isinstance(budget, bool) or budget <= 0:
        raise InputError(f"the budget must be a positive whole number of tokens, got "
                         f"{budget!r}", field="budget")
    if not marked:
        return budget
    if budget <= mark_tokens():
        raise InputError(f"a budget of {budget} tokens leaves no room inside the marker "
                         f"({mark_tokens()} tokens)", field="budget")
    return budget - mark_tokens()
