"""One operation list (graphmem.operations) and every surface held to it: Memory, AsyncMemory,
the CLI, the REST server, the MCP server and the agent framework adapters; and the public names
graphmem exports."""

from __future__ import annotations

import asyncio
import importlib
import inspect
import re
from pathlib import Path
from typing import Any

import click
import pytest

import graphmem
from graphmem import AsyncMemory, Memory
from graphmem.cli import main
from graphmem.errors import InputError
from graphmem.integrations import ADAPTERS
from graphmem.integrations.core import AgentMemory
from graphmem.operations import CLIENT_MEMBERS, OPERATIONS, SURFACES
from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server
from graphmem.serve.rest import build_app

from helpers import SAMPLE

NAMES = [op.name for op in OPERATIONS]
# REST routes that are no operation of their own: liveness, and the metrics endpoint
REST_EXTRA = {"GET /v1/health", "GET /metrics"}  # /metrics is left out of the schema
TS_CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript" / "src" / "index.ts"
# the TypeScript client names the conversation in the query where the list names the route
# with it in the path (both are the server's): a conversation key may hold '/', which no path
# segment can carry
TS_ROUTES = {"messages": "GET /v1/spaces/{space}/messages"}


def _public(cls: type) -> set[str]:
    return {n for n in dir(cls) if not n.startswith("_")}


def test_every_public_member_of_memory_is_listed() -> None:
    members = {n for n in _public(Memory) if callable(getattr(Memory, n))
               or isinstance(inspect.getattr_static(Memory, n), property)}
    assert members == set(NAMES) | set(CLIENT_MEMBERS)
    assert len(NAMES) == len(set(NAMES)) and not set(NAMES) & set(CLIENT_MEMBERS)


@pytest.mark.parametrize("name", [*NAMES, *CLIENT_MEMBERS])
def test_async_memory_has_each_member_with_the_same_parameters(name: str) -> None:
    sync, twin = inspect.getattr_static(Memory, name), inspect.getattr_static(AsyncMemory, name)
    if isinstance(sync, property):
        assert isinstance(twin, property)
        return
    assert inspect.iscoroutinefunction(twin), f"AsyncMemory.{name} is not awaited"
    ours = inspect.signature(getattr(Memory, name)).parameters
    theirs = inspect.signature(getattr(AsyncMemory, name)).parameters
    assert [(p.name, p.kind, p.default) for p in ours.values()] == \
        [(p.name, p.kind, p.default) for p in theirs.values()]


@pytest.mark.parametrize("surface", SURFACES)
def test_each_operation_is_on_each_surface_or_says_why_not(surface: str) -> None:
    for op in OPERATIONS:
        named, why = op.on(surface), op.absent.get(surface, "")
        assert bool(named) != bool(why.strip()), f"{op.name} on {surface}: a name or a reason"
        assert set(op.absent) <= set(SURFACES)


def test_the_cli_has_every_listed_command() -> None:
    for op in OPERATIONS:
        if op.cli is None:
            continue
        group: click.Command = main
        for word in op.cli.split():
            assert isinstance(group, click.Group), f"{op.cli}: {word} has no group"
            found = group.commands.get(word)
            assert found is not None, f"no command `graphmem {op.cli}` for {op.name}"
            group = found


def test_rest_and_mcp_offer_exactly_the_listed_operations(memory: Memory, space: str) -> None:
    app = build_app(memory, {"t": Spaces.of([space])}, 1_000_000)
    routes = {f"{method.upper()} {path}" for path, methods in app.openapi()["paths"].items()
              for method in methods}
    listed = {op.rest for op in OPERATIONS if op.rest}
    assert listed <= routes, f"listed but not served: {sorted(listed - routes)}"
    # the other routes are the same operations by another path (a conversation in the path)
    others = {r.split(" ", 1)[1] for r in routes - listed - REST_EXTRA}
    assert others <= {"/v1/spaces/{space}/conversations/{conversation}/messages",
                      "/v1/spaces/{space}/conversations/{conversation}/forget",
                      "/v1/spaces/{space}/messages"}
    tools = {t.name for t in asyncio.run(build_server(memory, Spaces.of([space])).list_tools())}
    assert tools == {op.mcp for op in OPERATIONS if op.mcp}


@pytest.mark.parametrize("adapter", ADAPTERS)
def test_the_framework_adapters_offer_listed_operations(adapter: str) -> None:
    """Each adapter says which operations its framework's interface carries (listed ones,
    through members it has); AgentMemory, which every adapter's tools come from, has each
    operation the list gives it; and the tools search, remember and forget."""
    on_agents = {op.name: op.agents for op in OPERATIONS if op.agents}
    for name in on_agents.values():
        assert callable(getattr(AgentMemory, name)), name
    module = importlib.import_module(f"graphmem.integrations.{adapter}")
    assert module.OFFERS and set(module.OFFERS) <= set(NAMES), adapter
    assert {"search", "add_messages", "forget"} & set(module.OFFERS)
    for member in module.OFFERS.values():
        owner, _, attribute = member.partition(".")
        found = getattr(module, owner)
        assert not attribute or hasattr(found, attribute), member
    assert [t.__name__ for t in AgentMemory.tools(
        AgentMemory.__new__(AgentMemory))] == ["search_memory", "remember", "forget_memory"]


def test_the_exported_names_are_pinned() -> None:
    assert sorted(graphmem.__all__) == sorted([
        "OPERATIONS", "Answer", "AsyncMemory", "ConversationRecord", "CorrectReport",
        "ForgetReport", "GraphmemError", "Hit", "IngestReport", "InputError", "LayerTally",
        "LiveReport", "Memory", "Message", "MessagePage", "ReembedReport", "ReembedTally",
        "SearchResult", "SessionRecord", "Settings", "SpaceChange", "SpaceFileReport",
        "StoredConversation", "StoredMessage", "StoredUnit", "TurnRecord"])
    for name in graphmem.__all__:  # each is imported on first use, from where it lives
        assert getattr(graphmem, name) is not None
        assert name in dir(graphmem)
    with pytest.raises(AttributeError, match="no attribute 'Memry'"):
        graphmem.Memry  # noqa: B018


def test_async_memory_runs_every_kind_of_operation(memory: Memory, space: str) -> None:
    async def run() -> dict[str, Any]:
        twin = AsyncMemory(memory=memory)
        out: dict[str, Any] = {}
        await twin.ingest(SAMPLE, space=space, layers="")
        out["live"] = await twin.add_messages(space, "chat", [
            {"id": "m1", "speaker": "Ana", "text": "I keep daydreaming about the fjords."}])
        out["convs"] = [c.conversation for c in await twin.conversations(space)]
        page = await twin.messages(space, "chat")
        out["said"] = [m.text for m in page.messages]
        found = await twin.search("Where does Ana dream of going?", space=space,
                                  max_tokens=120)
        out["search"] = found
        turn = next(h.source_turn_ids[0] for h in found.hits if "fjords" in h.text)
        out["unit"] = await twin.unit(space, turn)
        out["corrected"] = await twin.correct(space, turn, "I keep dreaming of Patagonia.")
        out["forgot"] = await twin.forget(space, "chat", turns=["m1"])
        out["history"] = [c.what for c in await twin.history(space)]
        out["has"] = await twin.has_space(space)
        return out

    got = asyncio.run(run())
    assert got["live"].added == ["m1"] and "chat" in got["convs"]
    assert got["said"] == ["I keep daydreaming about the fjords."]
    result = got["search"]
    assert result.budget == 120 and result.context_tokens <= 120
    assert result.tokenizer == "words-and-symbols" and result.omitted >= 0
    assert "fjords" in result.context and got["unit"] is not None
    assert got["corrected"].revisions == 1 and got["forgot"].turns == 1 and got["has"]
    assert len(got["history"]) >= 4


def test_max_tokens_is_the_budget_by_another_name(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space, layers="")
    one = memory.search("How far does Jonas run?", space=space, strategy="turns",
                        max_tokens=60)
    assert one.budget == 60 and one.context_tokens <= 60
    assert one.omitted == len(one.hits) - len(one.included) > 0  # turns ranks more than fit
    same = memory.search("How far does Jonas run?", space=space, strategy="turns", budget=60,
                         max_tokens=60)
    assert same.context == one.context
    with pytest.raises(InputError, match="give one") as err:
        memory.search("How far?", space=space, budget=50, max_tokens=60)
    assert err.value.field == "max_tokens"


def test_the_typescript_client_has_each_listed_method_calling_its_route() -> None:
    source = TS_CLIENT.read_text(encoding="utf-8")
    methods = dict(re.findall(r"\n  async (\w+)\((.*?)\n  }\n", source, re.S))
    assert set(methods) == {op.typescript for op in OPERATIONS if op.typescript}
    for op in OPERATIONS:
        if op.typescript is None:
            continue
        calls = {f"{verb} {path}" for verb, path in re.findall(
            r'this\.api\.(GET|POST|PUT|PATCH|DELETE)\(\s*"([^"]+)"', methods[op.typescript])}
        assert calls == {TS_ROUTES.get(op.name, op.rest)}, op.name
