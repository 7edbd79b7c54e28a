"""LangGraph: graphmem as a LangGraph store, and two steps (nodes of your own graph) that
store each turn of an agent and give its model the budgeted context
(``pip install graphmem[langgraph]``).

    from langchain.agents import create_agent
    from graphmem.integrations.langchain import GraphmemMiddleware
    from graphmem.integrations.langgraph import GraphmemStore

    chat = AgentMemory(memory, "alice", "chat")
    agent = create_agent(model, tools, store=GraphmemStore(memory),
                         middleware=[GraphmemMiddleware(chat)])

``context_hook`` and ``store_hook`` are the middleware's two steps for a graph of your own
(they also fit the ``pre_model_hook`` and ``post_model_hook`` of LangGraph's deprecated
``create_react_agent``).

**How namespaces map to graphmem** (the one rule): a namespace is a space, its labels joined
by ``/`` (``("alice", "memories")`` is the space ``alice/memories``), a ``/`` or ``%`` inside a
label percent-encoded first (``("alice/bank",)`` is ``alice%2Fbank``), so two namespaces never
share a space (:func:`graphmem.integrations.core.joined`); each item is a message of
that space's conversation ``langgraph-store`` (``conversation=`` to change it) whose message id
is the item's key. So spaces isolate namespaces as they isolate tenants, a search with a
``namespace_prefix`` reads the spaces named by the prefix and those below it, and forgetting,
correcting, exporting or deleting a space covers its items like any message.

A value ``{"content": "..."}`` (what langmem writes) is stored as its text; any other value is
stored as its JSON, so ``get`` returns every value exactly as it was put. A ``put`` of a known
key replaces the message's text for good (``correct`` without a revision) and derives again.
A search with a ``query`` returns the items graphmem's strategy finds within its budget (items
that no hit reaches are not returned, and hits from the space's other conversations are
skipped), best first by ``score``, the query's cosine similarity with the item's text (what
LangGraph's own stores give: 1.0 for the same text);
without a query it lists the items in the order they were put. An item put with
``index=False`` is kept in the same space under the conversation ``langgraph-store-unindexed``,
which a query's search never returns (a listing does); ``index=[fields]`` indexes the whole
item, as graphmem embeds an item's text whole. ``filter`` matches as
LangGraph's own stores do: a field by name or by a dotted path (``"user.level"``), a nested
object field by field, a list element by element, and the operators ``$eq``, ``$ne``, ``$gt``,
``$gte``, ``$lt`` and ``$lte`` (the ordering ones on numbers). The store keeps no time-to-live.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from langchain_core.messages import SystemMessage
from langgraph.store.base import (
    BaseStore,
    GetOp,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.ids import conversation_id, turn_id
from graphmem.integrations.core import AgentMemory, in_thread, joined, split
from graphmem.integrations.langchain import graphmem_message, message_text
from graphmem.providers.embedder import query_vectors
from graphmem.text import naive_utc

OFFERS = {"search": "GraphmemStore.search", "add_messages": "GraphmemStore.put",
          "unit": "GraphmemStore.get", "correct": "GraphmemStore.put",
          "forget": "GraphmemStore.delete", "spaces": "GraphmemStore.list_namespaces",
          "messages": "GraphmemStore.search"}
STORE_CONVERSATION = "langgraph-store"
STORE_SESSION = "items"
SPEAKER = "memory"


class GraphmemStore(BaseStore):
    """A LangGraph ``BaseStore`` on graphmem (see the module for the namespace rule)."""

    def __init__(self, memory: Memory, *, conversation: str = STORE_CONVERSATION,
                 budget: int | None = None, strategy: str | None = None) -> None:
        self.memory = memory
        self.conversation = conversation
        # items put with index=False: the same space, a conversation a query never reads
        self.unindexed = f"{conversation}-unindexed"
        self.budget = budget
        self.strategy = strategy

    # ------------------------------------------------------------------ batch
    def batch(self, ops: Iterable[Op]) -> list[Result]:
        out: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                out.append(self._get(op.namespace, op.key))
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value, op.index)
                out.append(None)
            elif isinstance(op, SearchOp):
                out.append(self._search(op))
            elif isinstance(op, ListNamespacesOp):
                out.append(self._namespaces(op))
            else:
                raise TypeError(f"unknown store operation {type(op).__name__}")
        return out

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        return await in_thread(self.batch, list(ops))

    # ------------------------------------------------------------------ one item
    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        return self._find(namespace, key)[0]

    def _find(self, namespace: tuple[str, ...], key: str) -> tuple[Item | None, str]:
        """The item and the conversation that holds it (indexed or not)."""
        space = space_of(namespace)
        if not self.memory.has_space(space):
            return None, self.conversation
        for conversation in (self.conversation, self.unindexed):
            unit = self.memory.unit(space, turn_id(space, conversation, key))
            if unit is not None and unit.kind == "Turn":
                props = unit.properties
                return _item(namespace, key, str(props["text"]), props.get("said_at"),
                             props.get("corrected_at")), conversation
        return None, self.conversation

    def _put(self, namespace: tuple[str, ...], key: str, value: Any,
             index: Any = None) -> None:
        space = space_of(namespace)
        known, held = self._find(namespace, key)
        if value is None:  # a delete; an absent key is nothing to do, as in InMemoryStore
            if known is not None:  # a key may be put again later
                self.memory.forget(space, held, turns=[key], reuse_ids=True)
            return
        text = encode(value)
        where = self.unindexed if index is False else self.conversation
        if known is not None and held != where:  # indexed now and not before, or the reverse
            self.memory.forget(space, held, turns=[key], reuse_ids=True)
            known = None
        if known is None:
            report = self.memory.add_messages(space, where,
                                              [{"speaker": SPEAKER, "text": text, "id": key}],
                                              session=STORE_SESSION)
            if report.emptied:
                raise InputError(f"the value of {key!r} holds only recalled context "
                                 "(<graphmem-context>): nothing to store", field="value")
        elif known.value != value:
            self.memory.correct(space, turn_id(space, where, key), text, keep_old=False)

    # ------------------------------------------------------------------ many
    def _search(self, op: SearchOp) -> list[SearchItem]:
        found: list[SearchItem] = []
        for namespace in self._namespaces_under(op.namespace_prefix):
            found.extend(self._ranked(namespace, op.query) if op.query
                         else self._listed(namespace))
        if op.query:
            found.sort(key=lambda item: -(item.score or 0.0))
        if op.filter:
            found = [i for i in found if passes(i.value, op.filter)]
        return found[op.offset:op.offset + op.limit]

    def _ranked(self, namespace: tuple[str, ...], query: str) -> list[SearchItem]:
        space = space_of(namespace)
        result = self.memory.search(query, space=space, strategy=self.strategy,
                                    budget=self.budget)
        own = f"{conversation_id(space, self.conversation)}#"
        keys = dict.fromkeys(key for hit in AgentMemory.fitted(result)
                             for turn, key in zip(hit.source_turn_ids, hit.source_ids,
                                                  strict=False) if turn.startswith(own))
        items = [item for item in (self._get(namespace, key) for key in keys)
                 if item is not None]
        if not items:
            return []
        # the score LangGraph's own stores give: the query's cosine with the item's text, so
        # an exact match scores 1.0 and a caller's threshold means what it does there
        asked = query_vectors(self.memory.embedder, [query])[0]
        similarity = self.memory.embedder.embed([encode(i.value) for i in items]) @ asked
        return [SearchItem(namespace, item.key, item.value, item.created_at, item.updated_at,
                           float(score)) for item, score in zip(items, similarity, strict=True)]

    def _listed(self, namespace: tuple[str, ...]) -> list[SearchItem]:
        space = space_of(namespace)
        held = {c.conversation for c in self.memory.conversations(space)}
        messages = [m for conversation in (self.conversation, self.unindexed)
                    if conversation in held
                    for m in AgentMemory(self.memory, space, conversation).messages()]
        messages.sort(key=lambda m: m.said_at or datetime.min)  # in the order they were put
        return [SearchItem(namespace, m.id, decode(m.text), m.said_at or datetime.now(),
                           m.said_at or datetime.now()) for m in messages]

    def _store_spaces(self) -> list[str]:
        mine = {self.conversation, self.unindexed}
        return [row["space"] for row in self.memory.spaces()
                if any(c.conversation in mine for c in self.memory.conversations(row["space"]))]

    def _namespaces_under(self, prefix: tuple[str, ...]) -> list[tuple[str, ...]]:
        head = space_of(prefix) if prefix else ""
        return [split(s) for s in self._store_spaces()
                if not head or s == head or s.startswith(head + "/")]

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        found = [split(s) for s in self._store_spaces()]
        for condition in op.match_conditions or ():
            found = [n for n in found if _matches(n, condition.match_type,
                                                  tuple(condition.path))]
        if op.max_depth is not None:
            found = sorted({n[:op.max_depth] for n in found})
        return found[op.offset:op.offset + op.limit]


def space_of(namespace: tuple[str, ...]) -> str:
    """The space a namespace names (its labels encoded and joined by '/')."""
    if not namespace:
        raise ValueError("a graphmem store namespace needs at least one label")
    return joined(namespace)


def encode(value: dict[str, Any]) -> str:
    """The text a value is stored as. A lone ``content`` string (a memory, as langmem's tools
    write it) is stored as its text when the write path keeps it so, and when it holds
    recalled context, which the write path cuts out as it does everywhere
    (:mod:`graphmem.markers`: recalled context is never stored again). Any other value, and a
    ``content`` with surrounding white space or none, is stored as its JSON, its ``<`` and ``>``
    written as escapes so that no tag in the data is taken for recalled context: what ``get``
    returns is what was put."""
    content = value.get("content") if len(value) == 1 else None
    if isinstance(content, str) and not _is_object(content) and (
            _TAG.search(content) or (content and content == content.strip())):
        return content
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text.replace("<", "\\u003c").replace(">", "\\u003e")


def decode(text: str) -> dict[str, Any]:
    if _is_object(text):
        parsed: dict[str, Any] = json.loads(text)
        return parsed
    return {"content": text}


def _is_object(text: str) -> bool:
    if not text.lstrip().startswith("{"):
        return False
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def _item(namespace: tuple[str, ...], key: str, text: str, said: Any, corrected: Any) -> Item:
    created = _native(said) or datetime.now()
    updated = _native(corrected)
    return Item(value=decode(text), key=key, namespace=namespace, created_at=created,
                updated_at=created if updated is None else naive_utc(updated))


def _native(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, datetime):
        return value
    if hasattr(value, "to_native"):
        native: datetime = value.to_native()
        return native
    return datetime.fromisoformat(str(value))


_TAG = re.compile(r"</?\s*graphmem-context", re.IGNORECASE)  # what the markers look for
_ORDER = {"$gt": float.__gt__, "$gte": float.__ge__, "$lt": float.__lt__, "$lte": float.__le__}
_MISSING = object()


def passes(value: dict[str, Any], conditions: dict[str, Any]) -> bool:
    """Whether a stored value meets a search's ``filter`` (see the module)."""
    return all(_meets(_at(value, key), wanted) for key, wanted in conditions.items())


def _at(value: Any, key: str) -> Any:
    """The field ``key`` names: itself when the value has it, else its dotted path."""
    if isinstance(value, dict) and key in value:
        return value[key]
    for part in key.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


def _meets(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, dict) and wanted and all(k.startswith("$") for k in wanted):
        return all(_operator(found, op, operand) for op, operand in wanted.items())
    if isinstance(wanted, dict):
        return isinstance(found, dict) and all(
            _meets(found.get(k, _MISSING), v) for k, v in wanted.items())
    if isinstance(wanted, (list, tuple)):
        return (isinstance(found, (list, tuple)) and len(found) == len(wanted)
                and all(_meets(f, w) for f, w in zip(found, wanted, strict=True)))
    return found is not _MISSING and found == wanted


def _operator(found: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return _meets(found, operand)
    if op == "$ne":
        return not _meets(found, operand)
    if op not in _ORDER:
        raise InputError(f"unknown filter operator {op!r}; graphmem's store knows $eq, $ne, "
                         "$gt, $gte, $lt and $lte", field="filter")
    numbers = (int, float)
    if isinstance(found, bool) or not isinstance(found, numbers) or \
            isinstance(operand, bool) or not isinstance(operand, numbers):
        return False  # an ordering holds between numbers only
    return bool(_ORDER[op](float(found), float(operand)))


def _matches(namespace: tuple[str, ...], how: str, path: tuple[str, ...]) -> bool:
    if len(path) > len(namespace):
        return False
    part = namespace[:len(path)] if how == "prefix" else namespace[len(namespace) - len(path):]
    return all(p in ("*", n) for p, n in zip(path, part, strict=True))


def context_hook(agent_memory: AgentMemory,
                 budget: int | None = None) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``pre_model_hook`` for ``create_react_agent`` (or a node of your own graph): it stores
    the state's new user and assistant messages in ``agent_memory``'s conversation (by their
    ids, so each is stored once) and hands the model the context for the latest user message,
    within ``budget`` tokens, as a system message before the conversation."""
    def hook(state: dict[str, Any]) -> dict[str, Any]:
        messages = list(state["messages"])
        new = [m for m in (graphmem_message(msg) for msg in messages) if m is not None]
        query = next((message_text(m) for m in reversed(messages) if m.type == "human"), "")
        context = agent_memory.context(query, budget=budget) if query.strip() else ""
        if new:
            agent_memory.add(new)  # after the search: the question is not its own evidence
        head = [SystemMessage(content=f"What you remember:\n{context}")] if context else []
        return {"llm_input_messages": head + messages}
    return hook


def store_hook(agent_memory: AgentMemory) -> Callable[[dict[str, Any]], dict[str, Any]]:
    """A ``post_model_hook`` for ``create_react_agent``: stores the model's answer (and
    anything else new in the state) once it is given, so a run's last answer is kept too."""
    def hook(state: dict[str, Any]) -> dict[str, Any]:
        new = [m for m in (graphmem_message(msg) for msg in state["messages"]) if m is not None]
        if new:
            agent_memory.add(new)
        return {}
    return hook
