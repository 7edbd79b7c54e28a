"""Remembering and recalling: messages in, a budgeted context or an answer out."""

from __future__ import annotations

from fastapi import APIRouter

from graphmem.serve.deps import Caller, Conversation, Counted, Memories, Searcher, named
from graphmem.serve.errors_out import ERRORS
from graphmem.serve.schemas import (
    AddIn,
    AddOut,
    AddTo,
    AnswerOut,
    QuestionIn,
    Refreshed,
    SearchIn,
    SearchOut,
)

router = APIRouter(prefix="/v1/spaces/{space}", responses=ERRORS)


@router.post("/conversations/{conversation}/messages")
def add_messages(space: str, conversation: Conversation, body: AddIn, who: Caller, memory: Memories,
                 metrics: Counted) -> AddOut:
    """Remember messages; they are searchable when this returns."""
    report = memory.add_messages(who.changing(space), conversation, **body.arguments())
    metrics.added(report)
    return AddOut.of(report)


@router.post("/messages")
def add_messages_to(space: str, body: AddTo, who: Caller, memory: Memories,
                    metrics: Counted) -> AddOut:
    """The same, the conversation named in the body (a key holding '/' cannot be a path
    segment)."""
    return add_messages(space, named(body.conversation), body, who, memory, metrics)


@router.post("/search")
def search(space: str, body: SearchIn, who: Caller, searcher: Searcher,
           metrics: Counted) -> SearchOut:
    """The memory context for a question, within a token budget."""
    result = searcher.search(space=who.resolve(space), **body.arguments())
    metrics.searched(result.strategy)
    return SearchOut.of(result)


@router.post("/answer")
def answer(space: str, body: QuestionIn, who: Caller, memory: Memories) -> AnswerOut:
    """An answer from memory by the server's LLM."""
    return AnswerOut.of(memory.answer(space=who.resolve(space), **body.arguments()))


@router.post("/refresh")
def refresh(space: str, who: Caller, memory: Memories) -> Refreshed:
    """Bring the whole-conversation layers up to date with live messages now."""
    return Refreshed(refreshed=memory.refresh(who.changing(space)))
