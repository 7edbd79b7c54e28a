"""Typed records shared by the write path and the read path."""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


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
    started_at: datetime | None = None
    date_text: str | None = None
    speaker: str | None = None


class SearchResult(BaseModel):
    question: str
    space: str
    strategy: str
    budget: int
    hits: list[Hit]
    context: str = Field(description="the hits rendered in rank order within the budget")
    context_tokens: int
    included: list[str] = Field(description="ids of the hits that fit into the context")
    latency_ms: float
    timings_ms: dict[str, float] = Field(default_factory=dict, description=(
        "milliseconds by stage (space_state, question, table, candidates, ranking, packing; "
        "source.* per kind of candidate source), as far as the strategy reports them"))


class Answer(BaseModel):
    question: str
    answer: str
    search: SearchResult
    model: str
    fallback: str | None = Field(default=None, description=(
        "why the LLM gave no usable answer; ``answer`` is then the best memory found"))


class StoredConversation(BaseModel):
    """One conversation of a space, as :meth:`Memory.conversations` lists it."""

    conversation: str
    sessions: int
    messages: int
    first_session_at: datetime | None = None
    last_session_at: datetime | None = None
    pending_layers: list[str] = Field(default_factory=list, description=(
        "derived layers still catching up with live messages"))


class StoredMessage(BaseModel):
    """One stored message (a turn) with its session."""

    id: str = Field(description="the message's id in its conversation (the input's id)")
    turn_id: str = Field(description="the Turn node's id")
    speaker: str
    text: str
    image_caption: str | None = None
    said_at: datetime | None = None
    session: str
    session_started_at: datetime | None = None


class MessagePage(BaseModel):
    space: str
    conversation: str
    messages: list[StoredMessage]
    next_cursor: int | None = Field(default=None, description=(
        "pass as ``cursor`` for the next page; None when this page is the last"))


class StoredUnit(BaseModel):
    """Any node of a space (a turn, a statement, an event, a scene...) with its sources."""

    kind: str
    id: str
    properties: dict[str, object] = Field(description="every property but vectors")
    source_turns: list[dict[str, object]] = Field(description=(
        "the turns it comes from, in time order: id, source_id, speaker, text, seq"))


class SpaceChange(BaseModel):
    """One entry of a space's history: a kind of change, never its content."""

    id: str
    at: datetime
    what: str = Field(description="ingest, messages added, layers derived, forget, correct...")
    surface: str = Field(description="python, cli, rest, mcp or background")
    caller: str | None = Field(default=None, description="a digest of the server token")
    revision: str | None = None
    nodes_created: int = 0
    nodes_deleted: int = 0
    relationships_created: int = 0
    relationships_deleted: int = 0
    properties_set: int = 0
