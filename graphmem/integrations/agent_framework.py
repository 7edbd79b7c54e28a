"""Microsoft Agent Framework (AutoGen's successor): graphmem as a context provider of an
``Agent``, and graphmem's tools as the framework's function tools
(``pip install graphmem[agent-framework]``).

    from agent_framework import Agent
    from graphmem.integrations.agent_framework import GraphmemContextProvider, tools

    recall = GraphmemContextProvider(Memory(), space="alice", budget=800)
    agent = Agent(client=client, context_providers=[recall], tools=tools(recall.memory_of("chat")))

Before each run ``before_run`` searches the space for the run's new user messages and adds
the packed context, in the ``<graphmem-context>`` marker, as one message of the provider's
own (nothing when there is nothing to recall); after the run ``after_run`` stores the run's
user and assistant texts as messages of the conversation named by the agent session's id, each
under its ``message_id`` when it has one (so a run's messages sent again are stored once, and
one forgotten meanwhile stays forgotten). System prompts, tool calls and tool results are not
memories. The provider keeps nothing of its own in the session's state: forgetting, correcting,
export and deleting the space cover all it stored.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_framework import ContextProvider, FunctionTool, Message, tool

from graphmem.client import Memory
from graphmem.integrations.core import AgentMemory, in_thread

OFFERS = {"search": "GraphmemContextProvider.before_run",
          "add_messages": "GraphmemContextProvider.after_run", "forget": "tools"}
RECALLED = "What you remember from earlier conversations:\n"
DEFAULT_CONVERSATION = "agent-framework"  # a run without a session
_SPEAKERS = ("user", "assistant")  # what is a memory: what people and the agent said


class GraphmemContextProvider(ContextProvider):
    """graphmem as an Agent Framework context provider (see the module)."""

    def __init__(self, memory: Memory, space: str, *, budget: int | None = None,
                 strategy: str | None = None, source_id: str = "graphmem") -> None:
        super().__init__(source_id)
        self.memory = memory
        self.space = space
        self.budget = budget
        self.strategy = strategy
        AgentMemory(memory, space)  # the space id checked now, not at the first run

    def memory_of(self, conversation: str | None) -> AgentMemory:
        """The space and one of its conversations (a session's id) as an agent's memory."""
        return AgentMemory(self.memory, self.space, conversation or DEFAULT_CONVERSATION,
                           budget=self.budget, strategy=self.strategy)

    async def before_run(self, *, agent: Any, session: Any, context: Any,
                         state: dict[str, Any]) -> None:
        query = "\n".join(text for m in context.input_messages
                          if _role(m) == "user" and (text := _text(m)))
        if not query:
            return
        recalled = await in_thread(self.memory_of(_conversation(session, context)).context,
                                   query, budget=self.budget)
        if recalled:
            context.extend_messages(self, [Message(role="user",
                                                   contents=[f"{RECALLED}{recalled}"])])

    async def after_run(self, *, agent: Any, session: Any, context: Any,
                        state: dict[str, Any]) -> None:
        said = list(context.input_messages)
        if context.response is not None and context.response.messages:
            said.extend(context.response.messages)
        messages = _messages(said)
        if messages:
            await in_thread(self.memory_of(_conversation(session, context)).add, messages)


def _role(message: Any) -> str:
    role = getattr(message, "role", "")
    return str(getattr(role, "value", role)).lower()


def _text(message: Any) -> str:
    text = getattr(message, "text", "") or ""
    return text.strip()


def _conversation(session: Any, context: Any) -> str | None:
    return getattr(session, "session_id", None) or getattr(context, "session_id", None)


def _messages(said: Sequence[Any]) -> list[dict[str, Any]]:
    """The user and assistant texts of a run as graphmem messages; an id seen twice in one
    run names no one message and is left out (graphmem then makes one per message)."""
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for message in said:
        role, text = _role(message), _text(message)
        if role not in _SPEAKERS or not text:
            continue
        ident = getattr(message, "message_id", None)
        ident = ident if isinstance(ident, str) and ident and ident not in seen else None
        if ident is not None:
            seen.add(ident)
        out.append({"speaker": role, "text": text, "id": ident})
    return out


def tools(agent_memory: AgentMemory) -> list[FunctionTool]:
    """graphmem's three tools (search_memory, remember, forget_memory) as function tools."""
    return [tool(fn) for fn in agent_memory.tools()]
