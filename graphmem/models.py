"""Typed records shared by the write path and the read path, and the result of every public
operation (what ``Memory``, ``AsyncMemory``, the CLI, REST and MCP return)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field, PlainSerializer, WithJsonSchema

from graphmem.explanations import Explanation, Why

# a sent result's fields with defaults are always there: required in the answer's schema
ANSWERED = ConfigDict(json_schema_serialization_defaults_required=True)


def _rfc3339(moment: datetime) -> str:
    return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).isoformat()


# a time in a result: graphmem keeps times in UTC, and sends them with their offset (RFC 3339,
# "2023-05-08T13:56:00+00:00"); in Python it stays the datetime it was
Moment = Annotated[datetime, PlainSerializer(_rfc3339, return_type=str, when_used="json"),
                   WithJsonSchema({"type": "string", "format": "date-time"})]


class TurnRecord(BaseModel):
    """One utterance as parsed from an input file (before it becomes a Turn node)."""

    model_config = ConfigDict(frozen=True)

    order: int = Field(description="position inside its session, from 0")
    speaker: str
    text: str
    source_id: str = Field(description="the id the input file gives it, e.g. LoCoMo's dia_id")
    image_caption: str | None = None
    image_url: str | None = None
    said_at: datetime | None = Field(default=None, description=(
        "when it was said, when the input tells (live messages do)"))
    payload: str | None = Field(default=None, description="a live message's payload, as JSON")


def stored_turn(row: dict[str, Any]) -> TurnRecord:
    """A turn as the graph returns it (its time in the driver's type) as a record."""
    said = row.get("said_at")
    native = said.to_native() if said is not None and hasattr(said, "to_native") else said
    return TurnRecord(**{**row, "said_at": native})


class SessionRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str = Field(description="the session's id inside its conversation")
    index: int = Field(description="position of the session in the input, from 0")
    started_at: datetime | None = None
    date_text: str | None = Field(default=None, description="the date as the input wrote it")
    turns: tuple[TurnRecord, ...]


class ConversationRecord(BaseModel):
    model_config = ConfigDict(frozen=True)

    key: str = Field(description="the conversation's id inside its space")
    sessions: tuple[SessionRecord, ...]
    source_format: str
    source_file: str

    @property
    def speakers(self) -> list[str]:
        seen: dict[str, None] = {}
        for session in self.sessions:
            for turn in session.turns:
                seen.setdefault(turn.speaker, None)
        return list(seen)

    @property
    def n_turns(self) -> int:
        return sum(len(s.turns) for s in self.sessions)


TOKENIZER = "words-and-symbols"  # graphmem.retrieve.packing.count_tokens
HitKind = Literal["turn", "event", "boundary", "edu", "chunk", "scene", "profile", "memory",
                  "unit", "round"]


class Hit(BaseModel):
    """A ranked memory unit returned by a retrieval strategy."""

    id: str
    kind: HitKind
    text: str = Field(description="the unit rendered for the context window")
    score: float
    source_turn_ids: list[str] = Field(description="ids of the Turn nodes it came from")
    source_ids: list[str] = Field(default_factory=list, description="input ids of those turns")
    session_id: str | None = None
    started_at: Moment | None = None
    date_text: str | None = None
    speaker: str | None = None
    why: Why | None = Field(default=None, description="why it was recalled (with explain)")


class SearchResult(BaseModel):
    question: str
    space: str
    strategy: str
    budget: int
    hits: list[Hit]
    context: str = Field(description="the hits rendered in rank order within the budget")
    context_tokens: int = Field(description="tokens the context uses, by ``tokenizer``")
    tokenizer: str = Field(default=TOKENIZER, description=(
        "how tokens are counted: each run of letters and digits and each other visible "
        "character is one token (close to an LLM's count for English text)"))
    included: list[str] = Field(description="ids of the hits that fit into the context")
    omitted: int = Field(default=0, description=(
        "hits retrieved that did not fit into the budget (``graphmem`` returns only what it "
        "chose, so 0 there)"))
    latency_ms: float
    timings_ms: dict[str, float] = Field(default_factory=dict, description=(
        "milliseconds by stage (space_state, question, table, candidates, ranking, packing; "
        "source.* per kind of candidate source), as far as the strategy reports them"))
    note: str = Field(default="", description=(
        "why nothing was found when the reason is not the question: the space holds nothing "
        "(a misspelt name, or nothing stored yet)"))
    explanation: Explanation | None = Field(default=None, description=(
        "with explain: how the strategy ranked, and the best candidates left out"))

    def shown(self) -> list[tuple[str, list[str]]]:
        """The context's units in its order, each with its messages' memory (Turn) ids."""
        by_id = {hit.id: hit for hit in self.hits}
        return [(by_id[i].text, by_id[i].source_turn_ids) for i in self.included if i in by_id]


class Answer(BaseModel):
    question: str
    answer: str
    search: SearchResult
    model: str
    fallback: str | None = Field(default=None, description=(
        "why the LLM gave no usable answer; ``answer`` is then the best memory found"))


class StoredConversation(BaseModel):
    """One conversation of a space, as :meth:`Memory.conversations` lists it."""

    model_config = ANSWERED

    conversation: str
    sessions: int
    messages: int
    first_session_at: Moment | None = None
    last_session_at: Moment | None = None
    pending_layers: list[str] = Field(default_factory=list, description=(
        "derived layers still catching up with live messages"))


class StoredMessage(BaseModel):
    """One stored message (a turn) with its session."""

    model_config = ANSWERED

    id: str = Field(description="the message's id in its conversation (the input's id)")
    turn_id: str = Field(description="the Turn node's id")
    speaker: str
    text: str
    image_caption: str | None = None
    payload: Any = Field(default=None, description=(
        "the payload it was added with (any JSON value; null: none, or corrected since)"))
    said_at: Moment | None = None
    session: str
    session_started_at: Moment | None = None


class MessagePage(BaseModel):
    model_config = ANSWERED

    space: str
    conversation: str
    messages: list[StoredMessage]
    next_cursor: int | None = Field(default=None, description=(
        "pass as ``cursor`` for the next page; None when this page is the last"))


class StoredUnit(BaseModel):
    """Any node of a space (a turn, a statement, an event, a scene...) with its sources."""

    model_config = ANSWERED

    kind: str
    id: str
    properties: dict[str, object] = Field(description="every property but vectors")
    source_turns: list[dict[str, object]] = Field(description=(
        "the turns it comes from, in time order: id, source_id, speaker, text, seq"))
    derived: list[dict[str, str | None]] = Field(default_factory=list, description=(
        "for a turn: what every layer derived from it (kind, id, text), by kind"))


class SpaceChange(BaseModel):
    """One entry of a space's history: a kind of change, never its content."""

    model_config = ANSWERED

    id: str
    at: Moment
    what: str = Field(description="ingest, messages added, layers derived, forget, correct...")
    surface: str = Field(description="python, cli, rest, mcp or background")
    caller: str | None = Field(default=None, description="a digest of the server token")
    revision: str | None = None
    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0


# ------------------------------------------------------------- reports of the write path
class Counted(Protocol):
    """What a layer's result counts (``graphmem.ingest.layer.LayerResult``)."""

    written: dict[str, int]
    embedded: int
    unchanged: int
    fallbacks: list[str]


@dataclass
class LayerTally:
    """One layer's counts over a whole ingest."""

    written: dict[str, int] = field(default_factory=dict)
    embedded: int = 0
    unchanged: int = 0
    fallbacks: list[str] = field(default_factory=list)
    seconds: float = 0.0  # spent computing (prepare); the writes share one transaction

    def add(self, result: Counted, seconds: float = 0.0) -> None:
        self.seconds += seconds
        for kind, n in result.written.items():
            self.written[kind] = self.written.get(kind, 0) + n
        self.embedded += result.embedded
        self.unchanged += result.unchanged
        self.fallbacks.extend(result.fallbacks)

    def absorb(self, other: LayerTally) -> None:
        """Add another tally of the same layer (a worker process's) to this one."""
        self.add(other, other.seconds)

    def describe(self) -> str:
        parts = ", ".join(f"{n} {kind}" for kind, n in self.written.items())
        text = (f"{parts} ({self.embedded} embedded, {self.unchanged} unchanged; "
                f"{self.seconds:.1f}s)")
        return text + (f", {len(self.fallbacks)} LLM fallbacks" if self.fallbacks else "")


@dataclass
class IngestReport:
    space: str
    conversations: int = 0
    sessions: int = 0
    turns: int = 0
    seconds: float = 0.0
    write_seconds: float = 0.0  # in the conversations' transactions
    errors: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    layers: dict[str, LayerTally] = field(default_factory=dict)
    stripped: int = 0  # blocks of recalled context (graphmem's own marker) taken out
    emptied: int = 0  # turns that held only recalled context: not stored

    def absorb(self, other: IngestReport) -> None:
        """Add the counts of another report of the same space (a worker's conversation)."""
        self.stripped += other.stripped
        self.emptied += other.emptied
        self.conversations += other.conversations
        self.sessions += other.sessions
        self.turns += other.turns
        self.write_seconds += other.write_seconds
        self.errors.extend(other.errors)
        self.warnings.extend(other.warnings)
        for name, tally in other.layers.items():
            self.layers.setdefault(name, LayerTally()).absorb(tally)

    def count(self, kind: str) -> int:
        """Items of one kind written by any layer ("edus", "boundaries", ...)."""
        return sum(t.written.get(kind, 0) for t in self.layers.values())

    def summary(self) -> str:
        text = (f"space {self.space!r}: {self.conversations} conversations, {self.sessions} "
                f"sessions, {self.turns} turns in {self.seconds:.1f}s "
                f"({self.write_seconds:.1f}s writing)")
        for name, tally in self.layers.items():
            text += f"\n  {name}: {tally.describe()}"
        if self.stripped:
            text += (f"\n  {self.stripped} blocks of recalled context taken out "
                     f"({self.emptied} turns held nothing else and were not stored)")
        if self.warnings:
            text += f"\n  {len(self.warnings)} warnings"
        if self.errors:
            text += f"\n  {len(self.errors)} records rejected"
        return text


@dataclass
class LiveReport:
    """What one ``add_messages`` call did."""

    space: str
    conversation: str
    session: str  # the key of the session the messages joined
    added: list[str] = field(default_factory=list)  # input ids of the new turns
    known: list[str] = field(default_factory=list)  # message ids stored before: skipped
    new_session: bool = False
    forgotten: list[str] = field(default_factory=list)  # message ids forgotten before: refused
    refreshed: list[str] = field(default_factory=list)  # layers that caught up in this call
    pending: list[str] = field(default_factory=list)  # layers still waiting for a refresh
    seconds: float = 0.0
    layers: dict[str, float] = field(default_factory=dict)  # seconds computing, per layer
    write_seconds: float = 0.0  # in the write transaction
    notes: list[str] = field(default_factory=list)  # what the caller may not expect
    stripped: int = 0  # blocks of recalled context (graphmem's own marker) taken out
    emptied: int = 0  # messages that held only recalled context: not stored


@dataclass
class ForgetReport:
    """What one forget removed: counts only, never what was said."""

    space: str
    conversation: str
    turns: int = 0
    sessions: int = 0
    whole_conversation: bool = False
    layers: list[str] = field(default_factory=list)  # derived again (now, or a moment later)
    note: str = ""  # said when nothing was forgotten, and why
    pending: list[str] = field(default_factory=list)  # of layers, still to derive at return


@dataclass
class CorrectReport:
    space: str
    turn_id: str
    revisions: int  # earlier texts kept on the turn
    layers: list[str] = field(default_factory=list)  # derived again (now, or a moment later)
    stripped: int = 0  # blocks of recalled context taken out of the new text
    conversation: str = ""  # the message's conversation (its key)
    pending: list[str] = field(default_factory=list)  # of layers, still to derive at return


@dataclass
class SpaceFileReport:
    space: str
    nodes: int
    relationships: int
    path: Path
    replaced: bool = False

    def summary(self, verb: str) -> str:
        what = f"{self.nodes} nodes and {self.relationships} relationships"
        extra = " (replacing what was stored)" if self.replaced else ""
        return f"{verb} space {self.space!r}{extra}: {what} ({self.path})"


@dataclass
class ReembedTally:
    """One space's vectors in a re-embedding, by what happened to them."""

    space: str
    vectors: int = 0  # embedded nodes the space holds
    embedded: int = 0  # computed by this run and staged
    resumed: int = 0  # staged by an earlier, interrupted run: kept
    current: int = 0  # made by the configured embedder already: nothing to do
    refreshed: int = 0  # changed between staging and the swap: computed at the swap
    swapped: int = 0  # staged vectors moved in
    composed: int = 0  # averaged again from their turns' new vectors at the swap (no model)


@dataclass
class ReembedReport:
    """What ``graphmem reembed`` did: the embedder, each space, and whether the vector
    indexes were made again for another dimension."""

    embedder: str
    dimensions: int
    spaces: list[ReembedTally] = field(default_factory=list)
    indexes_rebuilt: bool = False
    seconds: float = 0.0

    def summary(self) -> str:
        computed = sum(t.embedded + t.refreshed for t in self.spaces)
        kept = sum(t.resumed for t in self.spaces)
        current = sum(t.current for t in self.spaces)
        total = sum(t.vectors for t in self.spaces)
        composed = sum(t.composed for t in self.spaces)
        lines = [f"re-embedded {len(self.spaces)} space(s) with {self.embedder} "
                 f"({self.dimensions}-d): {total} vectors, {computed} computed, {composed} "
                 f"averaged from their turns, {kept} staged by an earlier run, {current} "
                 f"current already ({self.seconds:.1f}s)"]
        if self.indexes_rebuilt:
            lines.append(f"the vector indexes were made again for {self.dimensions}-d vectors")
        return "\n".join(lines)
