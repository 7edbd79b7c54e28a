"""Changing what a space holds: forgetting and correcting."""

from __future__ import annotations

from fastapi import APIRouter

from graphmem.serve.deps import Caller, Conversation, Memories, named
from graphmem.serve.errors_out import ERRORS
from graphmem.serve.schemas import CorrectIn, CorrectOut, ForgetFrom, ForgetIn, ForgetOut

router = APIRouter(prefix="/v1/spaces/{space}", responses=ERRORS)


@router.post("/conversations/{conversation}/forget")
def forget(space: str, conversation: Conversation, body: ForgetIn, who: Caller,
           memory: Memories) -> ForgetOut:
    """Forget messages, sessions or (with whole_conversation) the whole conversation; an
    empty list forgets nothing."""
    return ForgetOut.of(memory.forget(who.changing(space), conversation, **body.arguments()))


@router.post("/forget")
def forget_in(space: str, body: ForgetFrom, who: Caller, memory: Memories) -> ForgetOut:
    """The same forget, the conversation named in the body."""
    return forget(space, named(body.conversation), body, who, memory)


@router.post("/corrections")
def correct(space: str, body: CorrectIn, who: Caller, memory: Memories) -> CorrectOut:
    """Correct what a stored message says; its conversation's layers are derived again."""
    return CorrectOut.of(memory.correct(who.changing(space), **body.arguments()))
