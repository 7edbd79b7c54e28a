"""What the servers take and give: one set of models for MCP tools and REST routes alike.

An operation's input model (a subclass of :class:`OperationIn`) is its one declaration on the
servers: it is the REST route's body, the MCP tool's parameters are made from its fields
(``serve/tools/common.takes``), and both hand :meth:`OperationIn.arguments` to the ``Memory``
method. A parameter added to the model reaches REST, MCP, the OpenAPI document and the
TypeScript types with no other edit; ``tests/unit/test_operation_parameters.py``
holds the model to the method's signature, field by field.
"""

from __future__ import annotations

from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, StrictBool, StrictInt
from pydantic.config import JsonDict

from graphmem.explanations import Explanation, Why
from graphmem.ids import turn_parts
from graphmem.ingest.inputs.fields import MAX_ID_CHARS, MAX_NAME_CHARS
from graphmem.markers import mark, recalled
from graphmem.models import (
    ANSWERED,
    Answer,
    CorrectReport,
    ForgetReport,
    Hit,
    LiveReport,
    SearchResult,
)
from graphmem.serve.access import Spaces


class Answered(BaseModel):
    """A server's answer: a field with a default is always sent, so the answer's schema lists
    it as required (the typed clients need not test for it); the same default leaves a request's
    field optional."""

    model_config = ANSWERED


# limits as the schema states them, for generated clients; graphmem's own checks enforce them,
# so a request past one is refused with their error (400, naming the field), not a validator's
# printable: something besides white space, and no control character
PRINTABLE = r"^[^\u0000-\u001f]*[^\s\u0000-\u001f][^\u0000-\u001f]*$"
NAME: JsonDict = {"minLength": 1, "maxLength": MAX_NAME_CHARS,  # a speaker's name
                  "pattern": PRINTABLE}
KEY: JsonDict = {"minLength": 1, "maxLength": MAX_ID_CHARS,  # a conversation, message or
                 "pattern": PRINTABLE}                       # session key


def _given(field: str, **rule: Any) -> JsonDict:
    """The schema of "``field`` is given, as a string (meeting ``rule``)"."""
    return {"required": [field], "properties": {field: {"type": "string", **rule}}}


def _present(field: str) -> JsonDict:
    return {"required": [field], "properties": {field: {"not": {"type": "null"}}}}


def _once(*names: str) -> JsonDict:
    """At most one of ``names`` given (they are synonyms: the write path refuses two)."""
    return {"not": {"anyOf": [{"allOf": [_present(a), _present(b)]}
                              for i, a in enumerate(names) for b in names[i + 1:]]}}


SAID = r"\S"  # holds something besides white space
# who said it and what, each given once (by its name or a synonym), something said; the
# synonyms the model does not declare (name, timestamp, time, message_id) as the write path
# reads them
MESSAGE_RULES: JsonDict = {
    "allOf": [
        {"properties": {"name": {"type": ["string", "null"], **NAME},
                        "message_id": {"type": ["string", "integer", "null"], **KEY},
                        "timestamp": {"type": ["string", "null"], "format": "date-time"},
                        "time": {"type": ["string", "null"], "format": "date-time"}}},
        {"oneOf": [_present(n) for n in ("speaker", "role", "name")]},
        {"oneOf": [_present(n) for n in ("text", "content")]},
        {"anyOf": [_given(n, pattern=SAID) for n in ("text", "content", "image_caption")]},
        _once("at", "timestamp", "time"), _once("id", "message_id"),
    ]}


class MessageIn(BaseModel):
    """A message to remember, in the shape the Python API takes: ``speaker`` / ``text`` or
    their OpenAI-style synonyms ``role`` / ``content`` (one of each pair, not both)."""

    # the other synonyms the Python API takes too
    model_config = ConfigDict(extra="allow", json_schema_extra=MESSAGE_RULES)

    speaker: str | None = Field(default=None, description=(
        "who said it: a person's name, or 'user' / 'assistant' (or give role)"),
        json_schema_extra=NAME)
    role: str | None = Field(default=None, description="a synonym of speaker",
                             json_schema_extra=NAME)
    text: str | None = Field(default=None, description="what was said (or give content)")
    content: str | None = Field(default=None, description="a synonym of text")
    id: str | None = Field(default=None, description="a stable id: adding it again is a no-op",
                           json_schema_extra=KEY)
    at: str | None = Field(default=None, description=(  # read by the write path, as a file's
        "when it was said (ISO 8601); default: now"), json_schema_extra={"format": "date-time"})
    image_caption: str | None = Field(default=None, description="what a shared image shows")
    payload: Any = Field(default=None, description=(
        "your own record of the message (any JSON value, e.g. a framework's item): kept with "
        "it as given and returned with it, never searched; a correction drops it"))

    def message(self) -> dict[str, Any]:
        """The fields given, for the same checks as the Python API's messages."""
        return self.model_dump(exclude_none=True)


class OperationIn(BaseModel):
    """The parameters of one operation as the servers take them."""

    # fields that say where (a conversation named in the body), not what: each surface
    # places them itself
    routing: ClassVar[tuple[str, ...]] = ()
    # a field's name on the wire -> the method's parameter (declared in graphmem.operations)
    python_names: ClassVar[dict[str, str]] = {}

    def arguments(self) -> dict[str, Any]:
        """The method's keyword arguments: every field but the routing ones."""
        return {self.python_names.get(name, name): getattr(self, name)
                for name in type(self).model_fields if name not in self.routing}


class AddIn(OperationIn):
    routing: ClassVar[tuple[str, ...]] = ("conversation",)

    messages: list[MessageIn] = Field(description="the messages, in the order they were said",
                                      json_schema_extra={"minItems": 1})
    conversation: str | None = Field(default=None, description=(
        "the conversation, for the route without it in the path (any key, '/' included)"))
    session: str | None = Field(default=None, description="a session key; default: the open "
                                "session, or a new one after the configured silence",
                                json_schema_extra=KEY)

    def arguments(self) -> dict[str, Any]:
        given = super().arguments()
        return {**given, "messages": [m.message() for m in self.messages]}


class AddTo(AddIn):
    """The same, for the route without the conversation in its path."""

    conversation: str = Field(description=(
        "the conversation (any key, '/' included)"), json_schema_extra=KEY)


class QuestionIn(OperationIn):
    question: str = Field(description="the question, in the user's words",
                          json_schema_extra={"minLength": 1})
    strategy: str | None = Field(default=None, description="default: graphmem")
    budget: StrictInt | None = Field(default=None, description=(
        "context tokens, a whole number (true or 1000.0 are refused); default: 1000"),
        json_schema_extra={"minimum": 1})
    max_tokens: StrictInt | None = Field(default=None, description=(
        "another name for budget (give one, or both equal)"),
        json_schema_extra={"minimum": 1})


class SearchIn(QuestionIn):
    explain: StrictBool = Field(default=False, description=(
        "also say why each piece was recalled (its sources, the ranker's probability and the "
        "features that moved it, where packing put it) and which of the best were left out"))
    marked: StrictBool = Field(default=False, description=(
        "the budget is for marked_context (the context in its <graphmem-context> marker, "
        "what a prompt is given): the context is packed in the budget less the marker's "
        "tokens"))


class HitOut(Answered):
    id: str = Field(description="the unit's node id (GET .../units/{id} opens it)")
    text: str
    score: float
    kind: str
    date: str | None = Field(description="the date of the session it comes from")
    source_ids: list[str] = Field(description="ids of the stored messages it comes from")
    source_turn_ids: list[str] = Field(description=(
        "the same messages' Turn ids, each naming one message of the space (a memory id: "
        "corrections take it, GET .../units/{id} opens it)"))
    source_conversations: list[str | None] = Field(description=(
        "the conversation of each of those messages, so a forget can name it (null when "
        "its key was too long to be read back from the id)"))
    why: Why | None = Field(default=None, description="why it was recalled (with explain)")

    @classmethod
    def of(cls, hit: Hit, space: str) -> HitOut:
        located = [turn_parts(space, t) for t in hit.source_turn_ids]
        return cls(id=hit.id, text=hit.text, score=round(hit.score, 4), kind=hit.kind,
                   date=hit.started_at.date().isoformat() if hit.started_at
                   else hit.date_text, source_ids=hit.source_ids,
                   source_turn_ids=hit.source_turn_ids,
                   source_conversations=[p[0] if p else None for p in located],
                   why=hit.why)


class SearchOut(Answered):
    context: str = Field(description="the memory to read, within the token budget")
    marked_context: str = Field(description=(
        "the context wrapped in <graphmem-context> tags, to put into a prompt: every write "
        "path takes such a block out again, so recalled memory is never stored twice "
        "(\"\" when nothing was found)"))
    context_tokens: int
    tokenizer: str = Field(description="how context_tokens were counted")
    omitted: int = Field(description="pieces retrieved that did not fit the budget")
    strategy: str
    hits: list[HitOut] = Field(description="the pieces the context is made of")
    latency_ms: float
    timings_ms: dict[str, float] = Field(default_factory=dict,
                                         description="milliseconds by stage of the search")
    note: str = Field(default="", description=(
        "why nothing was found when the reason is not the question (the space holds nothing)"))
    explanation: Explanation | None = Field(default=None, description=(
        "with explain: how the strategy ranked, and the best pieces left out and why"))

    readable: str = Field(description=(
        "the result as a memory tool answers a model: the context's pieces numbered in one "
        "<graphmem-context> block that fits the budget (marker and numbers counted), then "
        "each number's memory ids (what forget, correct and get_unit take); or why nothing "
        "was found"))

    @classmethod
    def of(cls, result: SearchResult) -> SearchOut:
        shown = set(result.included)
        readable = recalled(result.shown(), result.budget, result.question) if result.context \
            else ""
        return cls(context=result.context, marked_context=mark(result.context),
                   readable=readable or result.note or "(nothing relevant remembered)",
                   context_tokens=result.context_tokens,
                   tokenizer=result.tokenizer, omitted=result.omitted,
                   strategy=result.strategy, latency_ms=round(result.latency_ms, 1),
                   timings_ms=result.timings_ms, note=result.note,
                   explanation=result.explanation,
                   hits=[HitOut.of(h, result.space) for h in result.hits if h.id in shown])


class AddOut(Answered):
    conversation: str
    session: str = Field(description="the session the messages joined")
    added: list[str] = Field(description="ids of the stored messages")
    skipped: list[str] = Field(description="message ids stored before, left as they were")
    forgotten: list[str] = Field(default_factory=list, description=(
        "message ids forgotten before: refused, so a forget sticks when a history is sent "
        "again"))
    new_session: bool
    notes: list[str] = Field(default_factory=list, description=(
        "what may surprise: a message dated before the open session began joined it"))
    stripped: int = Field(default=0, description=(
        "blocks of recalled context (<graphmem-context>) taken out of the messages"))
    emptied: int = Field(default=0, description=(
        "messages that held only recalled context, and were not stored"))

    @classmethod
    def of(cls, report: LiveReport) -> AddOut:
        return cls(conversation=report.conversation, session=report.session,
                   added=report.added, skipped=report.known, forgotten=report.forgotten,
                   new_session=report.new_session,
                   notes=report.notes, stripped=report.stripped, emptied=report.emptied)


class AnswerOut(Answered):
    answer: str
    fallback: str | None = Field(description="why no LLM answer was used, when none was")
    context: str

    @classmethod
    def of(cls, reply: Answer) -> AnswerOut:
        return cls(answer=reply.answer, fallback=reply.fallback, context=reply.search.context)


class SpaceOut(Answered):
    space: str
    conversations: int
    turns: int
    writes: bool = Field(default=True, description=(
        "whether the caller's token may change the space (false: a read-only token)"))

    @classmethod
    def rows(cls, rows: list[dict[str, Any]], allowed: Spaces) -> list[SpaceOut]:
        return [cls(space=r["space"], conversations=r["conversations"], turns=r["turns"],
                    writes=allowed.writes) for r in rows if r["space"] in allowed.allowed]


class ForgetIn(OperationIn):
    routing: ClassVar[tuple[str, ...]] = ("conversation",)
    python_names: ClassVar[dict[str, str]] = {"messages": "turns"}

    conversation: str | None = Field(default=None, description=(
        "the conversation, for the route without it in the path (any key, '/' included)"))
    sessions: list[str] | None = Field(default=None, description="session keys to forget",
                                       json_schema_extra={"items": KEY})
    messages: list[str] | None = Field(default=None, description=(
        "message ids to forget; an empty list forgets nothing"),
        json_schema_extra={"items": KEY})
    whole_conversation: StrictBool = Field(default=False, description=(
        "forget the whole conversation (given instead of messages and sessions)"))

    model_config = ConfigDict(json_schema_extra={"oneOf": [  # what to forget, said one way
        {"anyOf": [{"required": [n], "properties": {n: {"type": "array"}}}
                   for n in ("messages", "sessions")],
         "not": {"required": ["whole_conversation"],
                 "properties": {"whole_conversation": {"const": True}}}},
        {"required": ["whole_conversation"], "properties": {
            "whole_conversation": {"const": True}, "messages": {"type": "null"},
            "sessions": {"type": "null"}}},
    ]})


class ForgetFrom(ForgetIn):
    """The same, for the route without the conversation in its path."""

    conversation: str = Field(description=(
        "the conversation (any key, '/' included)"), json_schema_extra=KEY)


class ForgetOut(Answered):
    conversation: str
    messages: int = Field(description="messages forgotten")
    sessions: int = Field(description="sessions forgotten whole")
    whole_conversation: bool
    layers: list[str] = Field(description="layers derived again from what remains")
    note: str = Field(default="", description="why nothing was forgotten, when nothing was")
    pending: list[str] = Field(default_factory=list, description=(
        "of those layers, the ones still being derived when this answered (in the "
        "background, a moment later; the forgotten messages are gone already)"))

    conversations: list[str] = Field(default_factory=list, description=(
        "every conversation a forget by memory ids reached (conversation: the first)"))

    @classmethod
    def of(cls, report: ForgetReport) -> ForgetOut:
        return cls(conversation=report.conversation, messages=report.turns,
                   sessions=report.sessions, whole_conversation=report.whole_conversation,
                   layers=report.layers, note=report.note, pending=report.pending,
                   conversations=[report.conversation])

    @classmethod
    def of_many(cls, reports: list[ForgetReport]) -> ForgetOut:
        """Forgets in several conversations as one answer, their counts added."""
        if not reports:
            return cls(conversation="", messages=0, sessions=0, whole_conversation=False,
                       layers=[], note="no memory ids: nothing was forgotten")
        first = cls.of(reports[0])
        return first.model_copy(update={
            "messages": sum(r.turns for r in reports),
            "sessions": sum(r.sessions for r in reports),
            "whole_conversation": all(r.whole_conversation for r in reports),
            "layers": sorted({n for r in reports for n in r.layers}),
            "conversations": [r.conversation for r in reports]})


class CorrectIn(OperationIn):
    turn_id: str = Field(description="the stored message's turn id (a hit's source_turn_ids)",
                         json_schema_extra={"minLength": 1})
    text: str = Field(description="what the message says now",
                      json_schema_extra={"minLength": 1})
    keep_old: StrictBool = Field(default=True, description=(
        "keep the old text on the turn as a revision; false: it is gone everywhere"))


class CorrectOut(Answered):
    turn_id: str
    revisions: int = Field(description="earlier texts kept on the turn")
    layers: list[str] = Field(description="layers derived again")
    stripped: int = Field(default=0, description=(
        "blocks of recalled context (<graphmem-context>) taken out of the new text"))
    pending: list[str] = Field(default_factory=list, description=(
        "of those layers, the ones still being derived when this answered (in the "
        "background, a moment later; the message reads as corrected already)"))

    @classmethod
    def of(cls, report: CorrectReport) -> CorrectOut:
        return cls(turn_id=report.turn_id, revisions=report.revisions, layers=report.layers,
                   stripped=report.stripped, pending=report.pending)


class Deleted(Answered):
    deleted: bool


class Refreshed(Answered):
    refreshed: dict[str, list[str]]
