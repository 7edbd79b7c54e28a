"""Tools to remember and recall: messages in, a budgeted context or an answer out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from mcp.server import MCPServer
from mcp.types import CallToolResult, TextContent

from graphmem.serve.schemas import AddOut, AnswerOut, MessageIn, SearchOut
from graphmem.serve.tools.common import Allowed, guard

if TYPE_CHECKING:  # the client (and the driver) load after the handshake
    from graphmem.client import Memory


def register(server: MCPServer, memory: Memory, allowed: Allowed) -> None:
    @server.tool()
    def add_messages(messages: list[MessageIn], conversation: str = "default",
                     space: str | None = None, session: str | None = None) -> AddOut:
        """Remember messages of a conversation, in the order they were said. They join the
        conversation's open session (a new one after 30 minutes of silence) and can be found
        by search_memory as soon as this returns."""
        return guard(lambda: AddOut.of(memory.add_messages(  # type: ignore[no-any-return]
            allowed().resolve(space), conversation, [m.message() for m in messages],
            session=session)))

    @server.tool()
    def search_memory(question: str, space: str | None = None, strategy: str | None = None,
                      budget: int | None = None, max_tokens: int | None = None,
                      ) -> Annotated[CallToolResult, SearchOut]:
        """Find what memory holds about a question: the context (within `budget` tokens,
        default 1000; `max_tokens` is another name for it) and the ranked pieces it is made
        of, with their dates and sources."""
        found: SearchOut = guard(lambda: SearchOut.of(memory.search(
            question, space=allowed().resolve(space), strategy=strategy, budget=budget,
            max_tokens=max_tokens)))
        # what a model reads: the marked context and the ids to act on, not the context
        # again in every hit; the whole result stays in the structured content
        return CallToolResult(content=[TextContent(type="text", text=found.readable())],
                              structured_content=found.model_dump(mode="json"))

    @server.tool()
    def answer_question(question: str, space: str | None = None, strategy: str | None = None,
                        budget: int | None = None, max_tokens: int | None = None) -> AnswerOut:
        """Answer a question from memory with the server's LLM (when none answers, the best
        memory found is returned and `fallback` says why)."""
        return guard(lambda: AnswerOut.of(memory.answer(  # type: ignore[no-any-return]
            question, space=allowed().resolve(space), strategy=strategy, budget=budget,
            max_tokens=max_tokens)))
