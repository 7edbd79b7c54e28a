"""Tools to remember and recall: messages in, a budgeted context or an answer out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

from graphmem.explanations import describe
from graphmem.serve.schemas import AddIn, AddOut, AnswerOut, QuestionIn, SearchIn, SearchOut
from graphmem.serve.tools.common import Allowed, guard, takes

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    # each tool's parameters are its REST body's fields (schemas.py), then its own
    @server.tool()
    @takes(AddIn, leave=AddIn.routing)
    def add_messages(body: AddIn, conversation: str = "default",
                     space: str | None = None) -> AddOut:
        """Remember messages of a conversation, in the order they were said. They join the
        conversation's open session (a new one after 30 minutes of silence) and can be found
        by search_memory as soon as this returns."""
        return guard(lambda: AddOut.of(memory.add_messages(  # type: ignore[no-any-return]
            allowed().changing(space), conversation, **body.arguments())))

    @server.tool()
    @takes(SearchIn)
    def search_memory(body: SearchIn, space: str | None = None
                      ) -> Annotated[CallToolResult, SearchOut]:
        """Find what memory holds about a question: the context (within `budget` tokens,
        default 1000; `max_tokens` is another name for it) and the ranked pieces it is made
        of, with their dates and sources."""
        found: SearchOut = guard(lambda: SearchOut.of(memory.search(
            space=allowed().resolve(space), **body.arguments())))
        # what a model reads: the marked context and the ids to act on, not the context
        # again in every hit (and, asked, why they were recalled); the whole result stays
        # in the structured content
        text = found.readable
        if found.explanation is not None:
            text += "\n\n" + describe([(h.id, h.text, h.why) for h in found.hits],
                                      found.explanation, left_texts=False)
        return CallToolResult(content=[TextContent(type="text", text=text)],
                              structured_content=found.model_dump(mode="json"))

    @server.tool()
    @takes(QuestionIn)
    def answer_question(body: QuestionIn, space: str | None = None) -> AnswerOut:
        """Answer a question from memory with the server's LLM (when none answers, the best
        memory found is returned and `fallback` says why)."""
        return guard(lambda: AnswerOut.of(memory.answer(  # type: ignore[no-any-return]
            space=allowed().resolve(space), **body.arguments())))
