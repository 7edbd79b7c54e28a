"""What a layer of memory is: the contract every ingest layer (raw turns included) keeps.

A layer is written one conversation at a time. ``prepare`` computes everything (statements,
segmentations, embeddings) before the conversation's transaction opens; ``write`` stores it
inside that transaction, together with every other layer of the run, so a failure leaves the
graph as it was. A layer declares the layers it ``needs`` (they run before it), the Cypher
files it ``reads``, ``writes`` and ``prunes`` with, and may hand a result to later layers of
the same conversation (:meth:`Layer.handoff`): the events layer hands over its events, so a
layer built on events never segments again. When a needed layer is not part of the run
(``graphmem layers add``), its hand-off is read back from the graph (:meth:`Layer.load`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeVar

from pydantic import ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict
from tqdm import tqdm

from graphmem.config import Settings
from graphmem.errors import ConfigurationError
from graphmem.ids import conversation_id, session_id
from graphmem.ingest.embedding_rows import BATCH, changed, embedding_rows
from graphmem.models import ConversationRecord
from graphmem.providers.embedder import Embedder
from graphmem.providers.llm import LLM
from graphmem.store import GraphStore, Tx

P = TypeVar("P")


class LayerOptions(BaseSettings):
    """A layer's options, as a model the layer declares (:attr:`Layer.options_model`) with
    each option's default, bounds and description: the one place an option is declared.
    Each is read from ``GRAPHMEM_<LAYER>_<OPTION>`` (``scenes`` window:
    ``GRAPHMEM_SCENES_WINDOW``; ``.env`` too), unless code gives it in
    ``Settings.layer_options`` (:func:`with_options`), which wins."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", frozen=True)


def with_options(settings: Settings, layer: str, **values: Any) -> Settings:
    """``settings`` with ``values`` given to ``layer``'s options (over its variables)."""
    given = {**settings.layer_options, layer: {**settings.layer_options.get(layer, {}),
                                                **values}}
    return settings.model_copy(update={"layer_options": given})


def field_text(fields: Mapping[str, Any]) -> str:
    return str(fields.get("text") or "")


@dataclass(frozen=True)
class VectorKind:
    """Nodes of one label whose ``embedding`` a layer writes: ``statement`` reads a space's
    ones given ``$space`` and ``$kind`` (the label in lower case), with their key, id,
    ``fields``, hash and staged hash (``cypher/admin/reembed/vector_texts.cypher`` serves
    graphmem's own labels), and ``text`` rebuilds from ``fields``
    the exact text ingestion embedded, so ``graphmem reembed`` computes every vector again
    without deriving anything again. ``fields`` is the Cypher map ``vector_texts`` returns for
    a node ``n`` of the label (the statement is made from it: ``docs/generate_vocabulary.py``).

    A ``composed`` kind embeds no text: its vector is the length-1 mean of the vectors of the
    turns it comes from (``FROM_TURN``), with :func:`~graphmem.ingest.embedding_rows.
    composed_hash`. ``graphmem reembed`` makes it again from the turns' new vectors once they
    are in; its ``statement`` reads the node's key, id, hash and its turns' keys and hashes
    (``cypher/admin/reembed/composed_units.cypher`` serves any label)."""

    label: str
    text: Callable[[Mapping[str, Any]], str] = field_text
    statement: str = "admin/reembed/vector_texts"
    composed: bool = False
    # what ``vector_texts`` returns as ``fields`` for a node ``n`` of the label (a Cypher map)
    fields: str = "{text: n.text}"

    def __post_init__(self) -> None:
        if self.composed and self.statement == "admin/reembed/vector_texts":
            object.__setattr__(self, "statement", "admin/reembed/composed_units")


@dataclass(frozen=True)
class LayerContext:
    """What every layer is built with."""

    store: GraphStore
    embedder: Embedder
    llm: LLM | None = None  # the model for ingestion steps; None: the LLM-free paths
    batch_size: int = 500  # rows per statement (GRAPHMEM_WRITE_BATCH_SIZE)
    progress: bool = False
    settings: Settings | None = None  # layer options (GRAPHMEM_SEGMENTS_*); None: defaults


@dataclass
class Job:
    """One conversation being written, and what the layers of the run handed over so far."""

    space: str
    conversation: ConversationRecord
    load: Callable[[str, Job], Any]  # a needed layer's hand-off from the graph
    handoffs: dict[str, Any] = field(default_factory=dict)

    @property
    def conversation_id(self) -> str:
        return conversation_id(self.space, self.conversation.key)

    @property
    def session_ids(self) -> list[str]:
        return [session_id(self.space, self.conversation.key, s.key)
                for s in self.conversation.sessions]

    def handoff(self, layer: str) -> Any:
        """What ``layer`` handed over for this conversation (read from the graph when that
        layer is not part of this run)."""
        if layer not in self.handoffs:
            self.handoffs[layer] = self.load(layer, self)
        return self.handoffs[layer]


@dataclass
class LayerResult:
    """What one layer did for one conversation: items written by kind, vectors computed and
    kept, and the items an LLM step left to the LLM-free path (with the reasons)."""

    written: dict[str, int]
    embedded: int = 0
    unchanged: int = 0
    fallbacks: list[str] = field(default_factory=list)


# statements any layer writes with, beside those of its own folder: every layer stores its
# vectors through the one statement that knows every embedded label
SHARED_WRITES = ("ingest/set_vectors",)
# and the hashes of the vectors already stored, read by the same union (Layer.embed_changed)
SHARED_READS = ("ingest/embedded_hashes",)

# what a layer declares of the graph: label -> the properties its nodes always have, and
# relationship type -> the (from, to) labels it joins
Owns = Mapping[str, tuple[str, ...]]
Joins = Mapping[str, tuple[tuple[str, str], ...]]


class Layer(ABC, Generic[P]):
    """Base class of the ingest layers; ``P`` is what ``prepare`` returns."""

    name: ClassVar[str]
    needs: ClassVar[tuple[str, ...]] = ("turns",)
    reads: ClassVar[tuple[str, ...]] = ()
    writes: ClassVar[tuple[str, ...]] = ()
    prunes: ClassVar[tuple[str, ...]] = ()
    # what changes what it writes: GRAPHMEM_<NAME>_<OPTION> variables (see read_options)
    options_model: ClassVar[type[LayerOptions]] = LayerOptions
    # the part of the graph the layer writes, declared the same way by graphmem's layers and
    # a plug-in's: the node labels, each with the properties its nodes always have (besides
    # id and space), and the relationships besides FROM_TURN, each with the labels it joins.
    # Every label it owns may link to its turns by FROM_TURN (forgetting a turn finds what
    # came from it that way) except those in ``unsourced``: nodes several sources share (a
    # speaker, an argument, a character), removed when nothing supports them any more. A
    # backup of a space restores what the layers declare, and tests hold graphmem's Cypher
    # statements that name every label of a kind to these declarations (spacefile.declared)
    owns: ClassVar[Owns] = {}
    joins: ClassVar[Joins] = {}
    unsourced: ClassVar[tuple[str, ...]] = ()
    # the labels whose vectors it writes (graphmem reembed computes them again)
    vectors: ClassVar[tuple[VectorKind, ...]] = ()
    # "session": its output for a session depends on that session alone (and what is stored),
    # so live messages rewrite only the open session; "conversation": it reads the whole
    # conversation and catches up on live messages when a session closes
    scope: ClassVar[Literal["session", "conversation"]] = "conversation"

    def __init__(self, context: LayerContext) -> None:
        self.context = context

    @classmethod
    def read_options(cls, settings: Settings | None) -> Any:
        """The layer's options (an instance of its ``options_model``): for each option, what
        ``settings.layer_options`` gives it, else ``GRAPHMEM_<NAME>_<OPTION>``, else its
        default. A bad value is a configuration error naming the variable."""
        given = dict(settings.layer_options.get(cls.name, {})) if settings is not None else {}
        unknown = sorted(set(given) - set(cls.options_model.model_fields))
        if unknown:
            raise ConfigurationError(
                f"layer {cls.name!r} has no option {', '.join(map(repr, unknown))}; its "
                f"options: {', '.join(cls.options_model.model_fields) or 'none'}")
        try:
            return cls.options_model(  # type: ignore[call-arg]  # pydantic-settings option
                _env_prefix=f"GRAPHMEM_{cls.name.upper()}_", **given)
        except ValidationError as exc:
            problems = "; ".join(
                f"GRAPHMEM_{cls.name.upper()}_{'_'.join(map(str, e['loc'])).upper()}: "
                f"{e['msg']}" for e in exc.errors())
            raise ConfigurationError(f"layer {cls.name!r} options: {problems}") from None

    @classmethod
    def fingerprint(cls, settings: Settings) -> str:
        """What else than its options changes what the layer writes (a model file's
        digest, say); cached evaluation spaces are keyed on it."""
        return ""

    @property
    def store(self) -> GraphStore:
        return self.context.store

    @property
    def embedder(self) -> Embedder:
        return self.context.embedder

    @property
    def llm(self) -> LLM | None:
        return self.context.llm

    @abstractmethod
    def prepare(self, job: Job) -> P:
        """Compute everything for ``job`` before the transaction opens (reads allowed)."""

    @abstractmethod
    def write(self, tx: Tx, job: Job, payload: P) -> None:
        """Store ``payload`` inside the conversation's transaction."""

    @abstractmethod
    def result(self, payload: P) -> LayerResult:
        """Counts for the ingest report."""

    def handoff(self, payload: P) -> Any:
        """What later layers of the same conversation may use (None: nothing)."""
        return None

    def load(self, job: Job) -> Any:
        """The same hand-off as :meth:`handoff`, read back from the graph."""
        raise ConfigurationError(
            f"layer {self.name!r} cannot hand its results over from the graph; run it in the "
            f"same ingest as the layers that need it")

    def embed_changed(self, space: str, texts: Mapping[str, str],
                      known: Mapping[str, str | None] | None = None,
                      unit: str = "item") -> tuple[list[dict[str, Any]], int]:
        """Vectors for the ``texts`` (by node id) whose stored vector embeds another text or
        came from another model, as rows for ``ingest/set_vectors``, and how many were kept.
        ``known`` gives the stored hashes when the layer has read them already; else they are
        read here, for any embedded label. A bar shows progress for a long run."""
        if known is None:
            known = {row["id"]: row["embedded_hash"] for row in self.store.read(
                "ingest/embedded_hashes", space=space, ids=list(texts))}
        todo = changed(self.embedder, texts, known)
        with tqdm(total=len(todo), desc="embed", unit=unit, leave=False,
                  disable=not self.context.progress or len(todo) < BATCH) as bar:
            rows = embedding_rows(self.embedder, todo, texts, bar.update)
        return rows, len(texts) - len(todo)

    def write_rows(self, tx: Tx, statement: str, key: str, rows: list[dict[str, Any]],
                   **params: Any) -> None:
        """Run ``statement`` over ``rows`` (passed as ``$key``), a batch at a time."""
        size = max(1, self.context.batch_size)
        for start in range(0, len(rows), size):
            tx.run(statement, **params, **{key: rows[start : start + size]})
