"""LangChain: a retriever over graphmem's packed context, a chat history over live messages,
and graphmem's tools as LangChain tools (``pip install graphmem[langchain]``).

    from graphmem import Memory
    from graphmem.integrations.langchain import GraphmemRetriever, GraphmemChatMessageHistory

    retriever = GraphmemRetriever.of(Memory(), space="alice", budget=1000)
    docs = retriever.invoke("Where does Alice want to travel?")
    history = GraphmemChatMessageHistory.of(Memory(), space="alice", conversation="chat-1")

The retriever returns the hits that fit into the budget, best first (``k`` keeps the best
``k``), one ``Document`` each, with the hit's kind, score, source turns (Turn ids and message ids),
session and date in ``metadata``. The history's messages are the conversation's stored
messages: a ``HumanMessage`` for the speaker ``user`` (or ``human``), an ``AIMessage`` for
``assistant`` (or ``ai``), a ``SystemMessage`` for ``system``, and a ``HumanMessage`` named
after any other speaker. Tool calls and tool results are not memories and are not stored.
"""

from __future__ import annotations

import uuid
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, ModelRequest
from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.documents import Document
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.retrievers import BaseRetriever
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import ConfigDict, Field

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.integrations.core import AgentMemory, in_thread
from graphmem.models import Hit, StoredMessage

# what this adapter offers of graphmem.operations.OPERATIONS, and through which member
OFFERS = {"search": "GraphmemRetriever.invoke", "add_messages":
          "GraphmemChatMessageHistory.add_messages", "messages":
          "GraphmemChatMessageHistory.messages", "forget": "GraphmemChatMessageHistory.clear"}

_ROLE_OF_TYPE = {"human": "user", "ai": "assistant", "system": "system"}
_ROLE_WORDS = {"user", "human", "assistant", "ai", "system", "developer", "tool"}
UNNAMED = "lc~"  # heads the id the history gives a message that came without one
RECALLED = "What you remember from earlier conversations:\n"  # heads the context's part


class GraphmemRetriever(BaseRetriever):
    """The hits graphmem packs for a query within ``agent_memory``'s budget, as Documents,
    best first; ``k`` (here or in ``invoke``) keeps the best ``k`` of them."""

    model_config = ConfigDict(arbitrary_types_allowed=True)
    agent_memory: AgentMemory
    k: int | None = Field(default=None, ge=1, description="at most this many documents")

    @classmethod
    def of(cls, memory: Memory, space: str, **options: Any) -> GraphmemRetriever:
        k = options.pop("k", None)
        return cls(agent_memory=AgentMemory(memory, space, **options), k=k)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun,
                                k: int | None = None) -> list[Document]:
        if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
            raise InputError(f"k must be a whole number of 1 or more, got {k!r}", field="k")
        if not self.agent_memory.memory.has_space(self.agent_memory.space):
            return []
        result = self.agent_memory.search(query)
        return [document(hit, result.space)
                for hit in self.agent_memory.fitted(result, k if k is not None else self.k)]

    async def _aget_relevant_documents(self, query: str, *, run_manager: Any,
                                       k: int | None = None) -> list[Document]:
        return await in_thread(self._get_relevant_documents, query, run_manager=run_manager,
                               k=k)


def document(hit: Hit, space: str) -> Document:
    """One hit as a Document: its rendered text, and where it comes from in ``metadata``."""
    return Document(page_content=hit.text, id=hit.id, metadata={
        "space": space, "kind": hit.kind, "score": hit.score, "speaker": hit.speaker,
        "session_id": hit.session_id, "date": hit.date_text,
        "started_at": hit.started_at.isoformat() if hit.started_at else None,
        "source_turn_ids": hit.source_turn_ids, "source_ids": hit.source_ids})


class GraphmemChatMessageHistory(BaseChatMessageHistory):
    """A conversation's live messages as LangChain chat history."""

    def __init__(self, agent_memory: AgentMemory) -> None:
        self.agent_memory = agent_memory

    @classmethod
    def of(cls, memory: Memory, space: str, conversation: str,
           **options: Any) -> GraphmemChatMessageHistory:
        return cls(AgentMemory(memory, space, conversation, **options))

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return [chat_message(m, hide=UNNAMED) for m in self.agent_memory.messages()]

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append ``messages``, as every LangChain history does: one without an id is a new
        message each time it is given (it is stored under an id of graphmem's making, which
        :attr:`messages` does not show); one with an id is stored once."""
        stored = [m for m in (graphmem_message(msg, system=True) for msg in messages)
                  if m is not None]
        for message in stored:
            if message["id"] is None:
                message["id"] = f"{UNNAMED}{uuid.uuid4().hex}"
        if stored:
            self.agent_memory.add(stored)

    def clear(self) -> None:
        """Empty the history: a reset, after which the same messages (``RunnableWithMessage
        History`` sends them again, ids and all) are stored anew. To forget for good, so
        that an id sent again is refused, use ``Memory.forget`` or the forget tool."""
        self.agent_memory.clear(reset=True)

    async def aget_messages(self) -> list[BaseMessage]:
        return await in_thread(lambda: self.messages)

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await in_thread(self.add_messages, messages)

    async def aclear(self) -> None:
        await in_thread(self.clear)


def message_text(message: BaseMessage) -> str:
    """The text of a message: its string content, or its text blocks joined."""
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(block if isinstance(block, str) else str(block.get("text", ""))
                     for block in content
                     if isinstance(block, str) or block.get("type") == "text").strip()


def graphmem_message(message: BaseMessage, *, system: bool = False) -> dict[str, Any] | None:
    """A LangChain message as a live message, or None for what is not a memory (a tool
    result, an AI message that only calls tools, an empty text, and a system message unless
    ``system``: a chat history keeps what it is given, an agent's memory keeps what was
    said). A human's display name is its speaker, unless the name is a role's (``system``,
    ``assistant``...), which would come back as that role: then the speaker is ``user``."""
    role = _ROLE_OF_TYPE.get(message.type)
    text = message_text(message)
    if role is None or not text.strip() or (role == "system" and not system):
        return None
    name = message.name if role == "user" else None
    speaker = name if name and name.strip().lower() not in _ROLE_WORDS else role
    return {"speaker": speaker, "text": text, "id": message.id}


def chat_message(stored: StoredMessage, hide: str | None = None) -> BaseMessage:
    """A stored message as LangChain's, with its id (none when it starts with ``hide``: an
    id graphmem made for a message given without one)."""
    speaker = stored.speaker.lower()
    ident = None if hide and stored.id.startswith(hide) else stored.id
    if speaker in ("assistant", "ai"):
        return AIMessage(content=stored.text, id=ident)
    if speaker == "system":
        return SystemMessage(content=stored.text, id=ident)
    name = None if speaker in ("user", "human") else stored.speaker
    return HumanMessage(content=stored.text, id=ident, name=name)


class GraphmemMiddleware(AgentMiddleware):
    """graphmem as middleware of a LangChain 1.x agent (``create_agent(model, tools,
    middleware=[GraphmemMiddleware(chat)])``): before each model call it searches for the
    latest human message and hands the model the budgeted context in its system message (for
    that call only: the agent's state never holds it), then stores the state's new human and
    AI messages; after each model call it stores the answer. Messages are stored by their
    ids, so each once, and one forgotten meanwhile is refused (a forget sticks)."""

    def __init__(self, agent_memory: AgentMemory, budget: int | None = None) -> None:
        super().__init__()
        self.agent_memory = agent_memory
        self.budget = budget

    def _prepare(self, request: ModelRequest) -> ModelRequest:
        messages = list(request.messages)
        query = next((message_text(m) for m in reversed(messages) if m.type == "human"), "")
        context = self.agent_memory.context(query, budget=self.budget) if query.strip() else ""
        self._store(messages)  # after the search: the question is not its own evidence
        if not context:
            return request
        recalled = f"{RECALLED}{context}"
        system = request.system_message
        if system is None:
            return request.override(system_message=SystemMessage(content=recalled))
        content = system.content
        joined = (f"{content}\n\n{recalled}" if isinstance(content, str)
                  else [*content, {"type": "text", "text": recalled}])
        return request.override(system_message=SystemMessage(content=joined))

    def _store(self, messages: Sequence[BaseMessage]) -> None:
        new = [m for m in (graphmem_message(msg) for msg in messages) if m is not None]
        if new:
            self.agent_memory.add(new)

    def wrap_model_call(self, request: ModelRequest,
                        handler: Callable[[ModelRequest], Any]) -> Any:
        return handler(self._prepare(request))

    async def awrap_model_call(self, request: ModelRequest,
                               handler: Callable[[ModelRequest], Awaitable[Any]]) -> Any:
        return await handler(await in_thread(self._prepare, request))

    def after_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        self._store(state["messages"])
        return None

    async def aafter_model(self, state: Any, runtime: Any) -> dict[str, Any] | None:
        await in_thread(self._store, state["messages"])
        return None


def tools(agent_memory: AgentMemory) -> list[BaseTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as LangChain tools."""
    return [StructuredTool.from_function(fn) for fn in agent_memory.tools()]
