"""What every framework adapter shares: one space and one conversation of a
:class:`~graphmem.client.Memory` seen as an agent's memory, and the three tools an agent calls.

An :class:`AgentMemory` is bound to a ``space`` (the tenant: a user, a team) and a
``conversation`` (the thread the agent writes to). It searches the whole space within a token
budget, stores what the agent or its user says as live messages of its conversation, and
forgets by message id. The adapters in this package translate their framework's interface into
these calls and add nothing that stores data elsewhere, so ``forget``, ``correct``, export and
``delete_space`` cover what an agent stored like everything else.

The tools (:meth:`AgentMemory.tools`) are plain typed functions with docstrings, which every
framework turns into its own tool type:

* ``search_memory(query, max_tokens=None)`` answers with the packed context and, after it, the
  ids of the memories it holds;
* ``remember(text)`` stores one fact in the agent's own words and answers with its id;
* ``forget_memory(memory_ids)`` forgets memories by the ids the two others gave.

A memory id is the stored message's Turn id (``graphmem.ids.turn_id``): it names exactly one
message of the space, whichever conversation holds it, so a forget never reaches another
message that happens to share its input id.
"""

from __future__ import annotations

import asyncio
import re
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar
from urllib.parse import unquote

from graphmem.async_client import CONCURRENCY
from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.ids import check_space, space_prefix, turn_id, turn_parts
from graphmem.ingest.live import Message
from graphmem.markers import mark, mark_tokens, recalled
from graphmem.models import ForgetReport, Hit, LiveReport, SearchResult, StoredMessage

T = TypeVar("T")
DEFAULT_CONVERSATION = "agent"
AGENT_SPEAKER = "assistant"  # who says what ``remember`` stores


@dataclass
class AgentMemory:
    """One space and conversation of ``memory`` as an agent's memory (see the module)."""

    memory: Memory
    space: str
    conversation: str = DEFAULT_CONVERSATION
    budget: int | None = None  # tokens; None: GRAPHMEM_DEFAULT_BUDGET
    strategy: str | None = None  # None: GRAPHMEM_DEFAULT_STRATEGY

    def __post_init__(self) -> None:
        check_space(self.space)
        if not isinstance(self.conversation, str) or not self.conversation.strip():
            raise InputError("the conversation must be a non-empty string",
                             field="conversation")

    # ------------------------------------------------------------------ operations
    def search(self, query: str, *, budget: int | None = None) -> SearchResult:
        """The evidence for ``query`` from the whole space, packed within ``budget`` tokens."""
        return self.memory.search(query, space=self.space, strategy=self.strategy,
                                  budget=budget or self.budget)

    def context(self, query: str, *, budget: int | None = None) -> str:
        """The packed context of :meth:`search` to put into a prompt: wrapped in the
        ``<graphmem-context>`` marker, which every write path takes out again, so storing the
        prompt later does not store the memories twice ("" when nothing is recalled)."""
        total = self.total(budget)
        if not self.memory.has_space(self.space) or total <= mark_tokens():
            return ""  # nothing stored, or no room inside the marker: no context
        return mark(self.memory.search(query, space=self.space, strategy=self.strategy,
                                       budget=total, marked=True).context)

    def total(self, budget: int | None) -> int:
        """The budget asked for, else the agent's, else the configured default."""
        return budget or self.budget or self.memory.settings.default_budget

    def add(self, messages: Sequence[Message | Mapping[str, Any]]) -> LiveReport:
        """Store ``messages`` in the agent's conversation (a message with a known id is
        skipped, so storing a history again adds only what is new)."""
        return self.memory.add_messages(self.space, self.conversation, messages)

    def remember(self, text: str, *, speaker: str = AGENT_SPEAKER,
                 id: str | None = None) -> str:
        """Store one message (its input id a new one unless ``id`` is given) and return its
        memory id."""
        ident = id or f"mem-{uuid.uuid4().hex[:16]}"
        self.add([Message(speaker=speaker, text=text, id=ident)])
        return turn_id(self.space, self.conversation, ident)

    def forget(self, ids: Sequence[str]) -> list[ForgetReport]:
        """Forget messages by id: a memory id (:meth:`memory_ids`, a Turn id) of any
        conversation of the space, or else a message id of this conversation."""
        by_conversation: dict[str, list[str]] = {}
        for given in ids:
            conversation, message = self._locate(given)
            by_conversation.setdefault(conversation, []).append(message)
        return [self.memory.forget(self.space, conversation, turns=messages)
                for conversation, messages in by_conversation.items()]

    def clear(self, *, reset: bool = False) -> ForgetReport:
        """Forget the agent's whole conversation (the rest of the space stays); nothing to
        do when it holds nothing. A forget sticks: the ids are refused if sent again; with
        ``reset`` (a chat history's ``clear``, which a framework follows by sending the
        messages anew) they may be stored again."""
        if not self.messages(limit=1):
            return ForgetReport(space=self.space, conversation=self.conversation,
                                note="the conversation holds nothing")
        return self.memory.forget(self.space, self.conversation, whole_conversation=True,
                                  reuse_ids=reset)

    def messages(self, limit: int | None = None) -> list[StoredMessage]:
        """The conversation's messages in time order; with ``limit``, the latest ``limit``."""
        if not self.memory.has_space(self.space):
            return []
        if limit is not None:
            if limit <= 0:
                return []
            if limit > 1000:  # more than one page: all of them, then the latest
                return self.messages()[-limit:]
            page = self.memory.messages(self.space, self.conversation, limit=min(limit, 1000),
                                        newest_first=True)
            return page.messages[::-1]
        out: list[StoredMessage] = []
        cursor: int | None = None
        while True:
            page = self.memory.messages(self.space, self.conversation, limit=1000,
                                        cursor=cursor)
            out.extend(page.messages)
            if page.next_cursor is None:
                return out
            cursor = page.next_cursor

    def pop(self) -> StoredMessage | None:
        """Forget the conversation's latest message and return it (None when empty)."""
        latest = self.messages(limit=1)
        if not latest:
            return None
        self.memory.forget(self.space, self.conversation, turns=[latest[0].id])
        return latest[0]

    # ------------------------------------------------------------------ ids
    @staticmethod
    def fitted(result: SearchResult, k: int | None = None) -> list[Hit]:
        """The hits that fit into the context, best first (the context itself keeps them in
        time order); with ``k``, the best ``k`` of them."""
        included = set(result.included)
        ranked = [hit for hit in result.hits if hit.id in included]
        return ranked if k is None else ranked[:max(0, k)]

    def memory_ids(self, result: SearchResult) -> list[str]:
        """The memory ids (Turn ids) of the stored messages behind the hits that fit into
        the context, each once."""
        included = set(result.included)
        seen: dict[str, None] = {}
        for hit in result.hits:
            if hit.id in included:
                seen.update(dict.fromkeys(hit.source_turn_ids))
        return list(seen)

    def _locate(self, given: str) -> tuple[str, str]:
        if not isinstance(given, str) or not given:
            raise InputError("a memory id must be a non-empty string", field="memory_ids")
        found = turn_parts(self.space, given)
        if found is not None:
            return found
        if given.startswith(space_prefix(self.space)) and "%~" in given:
            raise InputError(f"memory id {given!r} is too long to name its message; forget it "
                             "with Memory.forget", field="memory_ids")
        return self.conversation, given

    # ------------------------------------------------------------------ tools
    def tools(self) -> list[Callable[..., str]]:
        """``search_memory``, ``remember`` and ``forget_memory`` as typed functions."""
        return [self.search_tool(), self.remember_tool(), self.forget_tool()]

    def search_tool(self) -> Callable[..., str]:
        def search_memory(query: str, max_tokens: int | None = None) -> str:
            """Search long-term memory: what was said before that bears on `query`, dated,
            within `max_tokens` tokens, each numbered, followed by each number's memory
            ids."""
            if not self.memory.has_space(self.space):
                return "(no memories yet)"
            total = self.total(max_tokens)
            result = self.search(query, budget=max(1, total - mark_tokens()))
            return recalled(result.shown(), total, query) or "(nothing relevant remembered)"
        return search_memory

    def remember_tool(self) -> Callable[..., str]:
        def remember(text: str) -> str:
            """Store one fact worth remembering in later conversations, in your own words;
            answers with its memory id."""
            return f"remembered as {self.remember(text)}"
        return remember

    def forget_tool(self) -> Callable[..., str]:
        def forget_memory(memory_ids: list[str]) -> str:
            """Forget memories for good, by the ids search_memory or remember gave."""
            gone, unknown = 0, []
            for ident in memory_ids:  # one unknown id neither stops the others nor the run
                try:
                    gone += sum(r.turns for r in self.forget([ident]))
                except InputError:
                    unknown.append(ident)
            said = f"forgot {gone} of {len(memory_ids)} memories"
            return f"{said}; no memory has the id {', '.join(unknown)}" if unknown else said
        return forget_memory


# what a label may not hold as it is in a space id: the joint, the escape, control characters
_UNSAFE = re.compile(r"[%/\x00-\x1f\x7f]")


def joined(labels: Sequence[str]) -> str:
    """One space name for a framework's several identifiers (a LangGraph namespace, an ADK app
    and user), told apart for good: each label's ``%``, ``/`` and control characters (a label
    ``"alice\n"``, which LangGraph accepts) are percent-encoded before the labels are joined
    by ``/``, so two different tuples never name one space
    (``("alice/bank",)`` is ``alice%2Fbank``, ``("alice", "bank")`` is ``alice/bank``)."""
    if isinstance(labels, str) or not labels:
        raise InputError("give at least one label", field="namespace")
    for label in labels:
        if not isinstance(label, str) or not label:
            raise InputError(f"a label must be a non-empty string, got {label!r}",
                             field="namespace")
    return check_space("/".join(_UNSAFE.sub(lambda m: f"%{ord(m.group()):02X}", label)
                                for label in labels))


def split(space: str) -> tuple[str, ...]:
    """The labels :func:`joined` made ``space`` of."""
    return tuple(unquote(label) for label in space.split("/"))


# each event loop's slots: at most CONCURRENCY blocking calls of the adapters at once, as
# AsyncMemory allows, so a burst of calls queues on the loop instead of crowding the threads
_SLOTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Semaphore] = \
    weakref.WeakKeyDictionary()


async def in_thread(call: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run one blocking graphmem call off the event loop (what every async adapter does),
    at most ``CONCURRENCY`` at once per loop."""
    loop = asyncio.get_running_loop()
    slots = _SLOTS.get(loop)
    if slots is None:
        slots = _SLOTS[loop] = asyncio.Semaphore(CONCURRENCY)
    async with slots:
        return await asyncio.to_thread(call, *args, **kwargs)
