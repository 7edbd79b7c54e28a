"""The MCP server through the SDK's own client: in process for every tool, over stdio as an MCP
desktop client starts it, and over streamable HTTP; a space the server was not started for is
refused every time."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import Any
from urllib.parse import quote

import httpx2
import pytest
from click.testing import CliRunner
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.markers import OPEN
from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server
from graphmem.serve.tools import ANNOTATIONS

from helpers import SAMPLE, free_port, memory_ids

TOOLS = {"add_messages", "search_memory", "answer_question", "list_spaces", "delete_space",
         "forget_memory", "list_conversations", "list_messages", "get_unit",
         "correct_message"}


def run(body: Callable[[Client], Awaitable[Any]], server: Any) -> Any:
    async def main() -> Any:
        async with Client(server) as client:
            return await body(client)

    return asyncio.run(main())


def test_every_tool_in_process(memory: Memory, space: str) -> None:
    server = build_server(memory, Spaces.of([space]))

    async def body(client: Client) -> dict[str, Any]:
        out: dict[str, Any] = {}
        out["tools"] = {t.name: t for t in (await client.list_tools()).tools}
        out["add"] = await client.call_tool("add_messages", {"messages": [
            {"speaker": "Ann", "text": "My sister Lena moved to Porto last week.", "id": "a1",
             "at": "2025-06-02T10:00:00"},
            {"speaker": "Bot", "text": "Porto is lovely. Will you visit her?", "id": "a2",
             "at": "2025-06-02T10:01:00"}], "conversation": "chat"})
        out["again"] = await client.call_tool("add_messages", {"messages": [
            {"speaker": "Ann", "text": "My sister Lena moved to Porto last week.",
             "id": "a1"}], "conversation": "chat"})
        out["search"] = await client.call_tool("search_memory", {
            "question": "Where does Ann's sister live now?", "budget": 200})
        out["spaces"] = await client.call_tool("list_spaces", {})
        out["other"] = await client.call_tool("search_memory", {
            "question": "anything", "space": "someone-else"})
        out["empty"] = await client.call_tool("add_messages", {"messages": [
            {"speaker": "Ann", "text": "   "}]})
        out["answer"] = await client.call_tool("answer_question", {"question": "Who moved?"})
        out["conversations"] = await client.call_tool("list_conversations", {})
        out["messages"] = await client.call_tool("list_messages", {"conversation": "chat",
                                                                   "newest_first": True})
        out["unit"] = await client.call_tool("get_unit", {
            "id": out["messages"].structured_content["messages"][0]["turn_id"]})
        out["nothing"] = await client.call_tool("forget_memory", {"conversation": "chat",
                                                                  "messages": []})
        out["forget"] = await client.call_tool("forget_memory", {"conversation": "chat",
                                                                 "messages": ["a2"]})
        first = out["messages"].structured_content["messages"][1]["turn_id"]  # a1
        out["correct"] = await client.call_tool("correct_message", {
            "turn_id": first, "text": "My sister Lena moved to Braga last week."})
        out["after"] = await client.call_tool("list_messages", {"conversation": "chat"})
        out["delete"] = await client.call_tool("delete_space", {"space": space})
        return out

    out = run(body, server)
    assert set(out["tools"]) == TOOLS
    schema = out["tools"]["add_messages"].input_schema
    assert schema["required"] == ["messages"] and "space" in schema["properties"]
    assert out["tools"]["search_memory"].description.startswith("Find what memory holds")
    add = out["add"].structured_content
    assert (add["added"], add["session"], add["new_session"]) == (["a1", "a2"], "session_1",
                                                                  True)
    assert out["again"].structured_content["skipped"] == ["a1"]
    found = out["search"].structured_content
    assert "Porto" in found["context"] and found["strategy"] == "graphmem"
    assert any("a1" in hit["source_ids"] for hit in found["hits"])
    assert found["hits"][0]["date"] == "2025-06-02"
    assert out["spaces"].structured_content["result"] == [
        {"space": space, "conversations": 1, "turns": 2, "writes": True}]
    assert out["other"].is_error and "'someone-else' is not served here" in \
        out["other"].content[0].text
    assert out["empty"].is_error and "messages[0].text" in out["empty"].content[0].text
    if memory.llm is None:  # the test settings have no LLM: the error says what to set
        assert out["answer"].is_error and "GRAPHMEM_LLM_BASE_URL" in out["answer"].content[0].text
    assert [c["conversation"] for c in out["conversations"].structured_content["result"]] == [
        "chat"]
    assert [m["id"] for m in out["messages"].structured_content["messages"]] == ["a2", "a1"]
    unit = out["unit"].structured_content
    assert unit["kind"] == "Turn" and unit["source_turns"][0]["source_id"] == "a2"
    nothing = out["nothing"].structured_content  # an empty selection forgets nothing
    assert nothing["messages"] == 0 and "nothing was forgotten" in nothing["note"]
    assert out["forget"].structured_content["messages"] == 1
    assert out["correct"].structured_content["revisions"] == 1
    assert [(m["id"], m["text"]) for m in out["after"].structured_content["messages"]] == [
        ("a1", "My sister Lena moved to Braga last week.")]
    assert out["delete"].structured_content["result"] is True
    assert not memory.has_space(space)


def test_the_tools_keep_to_their_declared_contract(memory: Memory, space: str) -> None:
    """What MCP's specification and its official client read: each tool's annotations, a
    closed input schema, arguments of the declared JSON types only, a version, and an unknown
    unit an error rather than an empty success."""
    server = build_server(memory, Spaces.of([space]))
    memory.add_messages(space, "chat", [{"speaker": "Ana", "text": "Hi.", "id": "m1"}])

    async def body(client: Client) -> dict[str, Any]:
        return {"tools": {t.name: t for t in (await client.list_tools()).tools},
                "version": client.server_info.version,
                "yes": await client.call_tool("list_messages", {"conversation": "chat",
                                                                "newest_first": "yes"}),
                "number": await client.call_tool("list_messages", {"conversation": "chat",
                                                                   "limit": "5"}),
                "extra": await client.call_tool("list_messages", {"conversation": "chat",
                                                                  "newest": True}),
                "unknown": await client.call_tool("get_unit", {"id": "no-such-unit"}),
                "fine": await client.call_tool("list_messages", {"conversation": "chat",
                                                                 "newest_first": True})}

    out = run(body, server)
    assert out["version"] and out["version"][0].isdigit()
    hints = {name: tool.annotations for name, tool in out["tools"].items()}
    assert all(h is not None for h in hints.values())
    assert {n for n, h in hints.items() if h.destructive_hint} == {
        "forget_memory", "delete_space", "correct_message"}
    assert {n for n, h in hints.items() if h.read_only_hint} == {
        "search_memory", "answer_question", "list_spaces", "list_conversations",
        "list_messages", "get_unit"}
    assert all(t.input_schema.get("additionalProperties") is False
               for t in out["tools"].values())
    for refused, word in (("yes", "newest_first"), ("number", "limit"), ("extra", "newest")):
        assert out[refused].is_error and word in out[refused].content[0].text, refused
    assert out["unknown"].is_error and "no unit 'no-such-unit'" in out["unknown"].content[0].text
    assert not out["fine"].is_error
    assert [m["id"] for m in out["fine"].structured_content["messages"]] == ["m1"]


def test_two_spaces_need_a_name(memory: Memory, space: str) -> None:
    server = build_server(memory, Spaces.of([space, f"{space}-b"]))

    async def body(client: Client) -> Any:
        return await client.call_tool("search_memory", {"question": "anything"})

    result = run(body, server)
    assert result.is_error and "name a space" in result.content[0].text


def test_a_read_only_caller_changes_nothing(memory: Memory, space: str) -> None:
    """Every tool that may change memory (its annotation says so) refuses a read-only
    caller, naming why, and leaves what is stored as it was; the reading tools answer."""
    memory.add_messages(space, "chat", [{"speaker": "Ann", "text": "My locker code is 4471.",
                                         "id": "a1"}])
    turn = memory.messages(space, "chat").messages[0].turn_id
    server = build_server(memory, Spaces.of([space], writes=False))
    changes = {
        "add_messages": {"messages": [{"speaker": "Eve", "text": "Mine now."}],
                         "conversation": "chat"},
        "forget_memory": {"memory_ids": [turn]},
        "correct_message": {"turn_id": turn, "text": "My locker code is 0000."},
        "delete_space": {"space": space},
    }
    assert set(changes) == {name for name, said in ANNOTATIONS.items()
                            if not said.read_only_hint}

    async def body(client: Client) -> dict[str, Any]:
        out = {name: await client.call_tool(name, arguments) for name, arguments
               in changes.items()}
        out["search"] = await client.call_tool("search_memory", {
            "question": "What is the locker code?", "budget": 50})
        return out

    out = run(body, server)
    for name in changes:
        assert out[name].is_error and "read-only" in out[name].content[0].text, name
    assert "4471" in out["search"].structured_content["context"]
    assert [m.text for m in memory.messages(space, "chat").messages] == [
        "My locker code is 4471."]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONUNBUFFERED": "1"}


def test_stdio_server_as_a_desktop_client_starts_it(memory: Memory, space: str) -> None:
    memory.ingest(SAMPLE, space=space)
    params = StdioServerParameters(command=sys.executable,
                                   args=["-m", "graphmem", "mcp", "--space", space],
                                   env=_env())

    async def body(client: Client) -> tuple[Any, Any]:
        found = await client.call_tool("search_memory", {
            "question": "What did Maya adopt?", "budget": 300})
        refused = await client.call_tool("delete_space", {"space": "not-mine"})
        return found, refused

    found, refused = run(body, params)
    assert "Pepper" in found.structured_content["context"]
    assert refused.is_error and "not served here" in refused.content[0].text
    assert memory.has_space(space)


def start_http(spaces: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes], str]:
    port = free_port()
    args = [a for space in spaces for a in ("--space", space)]
    process = subprocess.Popen(
        [sys.executable, "-m", "graphmem", "mcp", *args, "--transport", "http",
         "--port", str(port)], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                break
        time.sleep(0.5)
    # it answers before its models load; the tests' calls are timed once they are in
    for line in process.stderr:  # type: ignore[union-attr]
        if b"models loaded" in line or time.monotonic() > deadline:
            break
    return process, f"http://127.0.0.1:{port}/mcp"


@pytest.fixture()
def http_server(space: str) -> Iterator[str]:
    env = {k: v for k, v in _env().items() if k != "GRAPHMEM_REST_TOKENS"}
    process, url = start_http([space], env)
    try:
        yield url
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_streamable_http(memory: Memory, space: str, http_server: str) -> None:
    async def body(client: Client) -> tuple[Any, Any, Any]:
        added = await client.call_tool("add_messages", {"messages": [
            {"speaker": "Ann", "text": "I booked the ferry to Skye for 14 July."}]})
        found = await client.call_tool("search_memory", {"question": "When is the ferry?",
                                                         "budget": 100})
        refused = await client.call_tool("list_spaces", {})
        return added, found, refused

    added, found, listed = run(body, http_server)
    assert added.structured_content["added"] == ["session_1:1"]
    assert "Skye" in found.structured_content["context"]
    assert [s["space"] for s in listed.structured_content["result"]] == [space]


ALICE, BOB = "alice-secret-token-0001", "bob-secret-token-00002"
READER = "reader-secret-token-003"  # reads Alice's space, changes nothing


def with_token(url: str, token: str | None) -> Any:
    """The SDK's streamable-HTTP transport sending ``Authorization: Bearer <token>``."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return streamable_http_client(url, http_client=httpx2.AsyncClient(headers=headers))


def test_streamable_http_needs_a_token_and_keeps_to_its_spaces(memory: Memory,
                                                              space: str) -> None:
    other = f"{space}-bob"
    memory.add_messages(space, "c", [{"speaker": "Ann", "text": "My locker code is 4471."}])
    memory.add_messages(other, "c", [{"speaker": "Bob", "text": "My locker code is 9902."}])
    tokens = {ALICE: [space], BOB: [other], READER: {"spaces": [space], "read_only": True}}
    env = {**_env(), "GRAPHMEM_REST_TOKENS": json.dumps(tokens)}
    process, url = start_http([space, other], env)
    try:
        async def alice(client: Client) -> tuple[Any, Any, Any]:
            found = await client.call_tool("search_memory", {
                "question": "What is the locker code?", "space": space, "budget": 50})
            refused = await client.call_tool("search_memory", {
                "question": "What is the locker code?", "space": other, "budget": 50})
            listed = await client.call_tool("list_spaces", {})
            return found, refused, listed

        found, refused, listed = run(alice, with_token(url, ALICE))
        assert "4471" in found.structured_content["context"]
        assert refused.is_error and "not served here" in refused.content[0].text
        assert [s["space"] for s in listed.structured_content["result"]] == [space]

        async def reader(client: Client) -> tuple[Any, Any]:
            listed = await client.call_tool("list_spaces", {})
            added = await client.call_tool("add_messages", {
                "messages": [{"speaker": "Eve", "text": "My locker code is 0000."}],
                "conversation": "c", "space": space})
            return listed, added

        listed, added = run(reader, with_token(url, READER))
        assert [(s["space"], s["writes"]) for s in listed.structured_content["result"]] == [
            (space, False)]
        assert added.is_error and "read-only" in added.content[0].text
        assert len(memory.messages(space, "c").messages) == 1
        for token in (None, "not-a-token-of-this-server"):
            with pytest.raises(Exception):  # noqa: B017 - the SDK raises its transport's error
                run(lambda client: client.list_tools(), with_token(url, token))
            answer = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                                 headers={"Authorization": f"Bearer {token}"} if token else {})
            assert answer.status_code == 401
        forged = httpx2.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                             headers={"Authorization": f"Bearer {ALICE}",
                                      "Host": "evil.example.com"})
        assert forged.status_code in (400, 403, 421)  # not a host this server answers
        assert memory.has_space(other)
    finally:
        process.terminate()
        process.wait(timeout=30)
        memory.delete_space(other)


def test_http_on_a_public_address_needs_tokens(space: str) -> None:
    env = {k: v for k, v in _env().items() if k != "GRAPHMEM_REST_TOKENS"}
    done = subprocess.run([sys.executable, "-m", "graphmem", "mcp", "--space", space,
                           "--transport", "http", "--host", "0.0.0.0", "--port",
                           str(free_port())], env=env, capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode != 0
    assert "set GRAPHMEM_REST_TOKENS" in done.stdout + done.stderr
    assert "Traceback" not in done.stderr


def test_the_help_names_every_tool() -> None:
    shown = " ".join(CliRunner().invoke(main, ["mcp", "--help"]).output.split())
    assert sorted(t for t in TOOLS if t not in shown) == []


def test_search_then_forget_by_the_ids_it_shows(memory: Memory, space: str) -> None:
    """What a model reads of a search is the marked context and the memory ids, not the
    context again in every hit; forget_memory takes those ids, whichever conversation holds
    them, and a history sent again does not bring them back."""
    memory.add_messages(space, "a/b", [
        {"speaker": "Ann", "text": "My home address is 12 Rua Augusta.", "id": "1"}])
    memory.add_messages(space, "other", [
        {"speaker": "Ann", "text": "My locker code is 3317.", "id": "1"}])
    server = build_server(memory, Spaces.of([space]))

    async def body(client: Client) -> tuple[Any, Any, Any]:
        found = await client.call_tool("search_memory", {"question": "home address",
                                                         "budget": 300})
        text = found.content[0].text
        ids = memory_ids(text)
        home = [i for i in ids if "Rua" in memory.unit(space, i).properties["text"]]
        gone = await client.call_tool("forget_memory", {"memory_ids": home})
        bad = await client.call_tool("forget_memory", {"memory_ids": ["elsewhere/x#1"]})
        return found, gone, bad

    found, gone, bad = run(body, server)
    context = found.structured_content["context"]
    assert len(found.content[0].text) < 2 * len(context) + 400  # not the context thrice
    assert found.content[0].text.startswith(OPEN)
    assert gone.structured_content["messages"] == 1
    assert gone.structured_content["conversations"] == ["a/b"]
    assert bad.is_error and "memory_ids[0]" in bad.content[0].text
    assert memory.messages(space, "a/b").messages == []
    assert [m.text for m in memory.messages(space, "other").messages] == [
        "My locker code is 3317."]
    again = memory.add_messages(space, "a/b", [
        {"speaker": "Ann", "text": "My home address is 12 Rua Augusta.", "id": "1"}])
    assert again.forgotten == ["1"] and again.added == []


def test_resources_and_a_prompt_stand_behind_what_is_advertised(memory: Memory,
                                                                space: str) -> None:
    """A client that lists resources or prompts finds real ones: the spaces, a space's
    conversations and a conversation's latest messages, each under the server's space rule,
    and a prompt that asks for a search first."""
    server = build_server(memory, Spaces.of([space]))
    memory.add_messages(space, "chat", [
        {"speaker": "Ana", "text": "My sister Lena moved to Porto.", "id": "a1"},
        {"speaker": "Bo", "text": "Porto is lovely in May.", "id": "a2"}])

    async def body(client: Client) -> dict[str, Any]:
        return {
            "resources": (await client.list_resources()).resources,
            "templates": (await client.list_resource_templates()).resource_templates,
            "spaces": await client.read_resource("graphmem://spaces"),
            "conversations": await client.read_resource(
                f"graphmem://spaces/{space}/conversations"),
            "chat": await client.read_resource(f"graphmem://spaces/{space}/conversations/chat"),
            "prompts": (await client.list_prompts()).prompts,
            "prompt": await client.get_prompt("answer_from_memory",
                                              {"question": "Where does Lena live?"})}

    out = run(body, server)
    assert [r.uri for r in out["resources"]] == ["graphmem://spaces"]
    assert {t.uri_template for t in out["templates"]} == {
        "graphmem://spaces/{space}/conversations",
        "graphmem://spaces/{space}/conversations/{conversation}"}
    assert json.loads(out["spaces"].contents[0].text)[0]["space"] == space
    assert json.loads(out["conversations"].contents[0].text)[0]["conversation"] == "chat"
    assert out["chat"].contents[0].text == ("Ana: My sister Lena moved to Porto.\n"
                                            "Bo: Porto is lovely in May.")
    assert [p.name for p in out["prompts"]] == ["answer_from_memory"]
    said = out["prompt"].messages[0].content.text
    assert "search_memory" in said and "Where does Lena live?" in said

    async def elsewhere(client: Client) -> str:
        try:
            await client.read_resource("graphmem://spaces/someone-else/conversations")
        except Exception as exc:  # the server's refusal, as the client raises it
            return str(exc)
        return "read"

    assert "'someone-else' is not served here" in run(elsewhere, server)


def test_resources_name_a_space_and_a_conversation_holding_a_slash(memory: Memory,
                                                                   space: str) -> None:
    """An adapter's space (labels joined by '/') and a conversation key with '/' are named in
    a resource's URI percent-encoded, each part as one."""
    nested = f"{space}/bank"
    server = build_server(memory, Spaces.of([nested]))
    memory.add_messages(nested, "notes/home", [{"speaker": "Ana", "text": "I rent in Porto."}])
    where = f"graphmem://spaces/{quote(nested, safe='')}/conversations"

    async def body(client: Client) -> tuple[str, str]:
        listed = await client.read_resource(where)
        messages = await client.read_resource(f"{where}/{quote('notes/home', safe='')}")
        return listed.contents[0].text, messages.contents[0].text

    try:
        listed, messages = run(body, server)
        assert json.loads(listed)[0]["conversation"] == "notes/home"
        assert messages == "Ana: I rent in Porto."
    finally:
        memory.delete_space(nested)
