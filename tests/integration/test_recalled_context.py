"""Recalled context is never stored again: every write path takes the <graphmem-context> blocks
out of what it is given, counts them in its report, and stores nothing for a message that
held nothing else; a text that only names the marker is stored as it is."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from mcp import Client

from graphmem.async_client import AsyncMemory
from graphmem.cli import main
from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.integrations.core import AgentMemory
from graphmem.markers import CLOSE, OPEN, mark
from graphmem.serve.access import Spaces
from graphmem.serve.mcp_tools import build_server

RECALLED = mark("[1 May 2025]\nuser: The red bike is in the garden shed.")
ASKED = "Where did I leave the red bike?"
MENTION = "Does the graphmem-context tag end up in my notes?"


def stored_texts(memory: Memory, space: str) -> list[str]:
    memory.flush()
    texts: list[str] = []
    for conversation in memory.conversations(space):
        page = memory.messages(space, conversation.conversation, limit=1000)
        texts += [m.text for m in page.messages]
    return texts


def assert_clean(texts: list[str]) -> None:
    joined = "\n".join(texts)
    assert "graphmem-context>" not in joined.lower() and "garden shed" not in joined


def test_add_messages_split_only_and_mention(memory: Memory, space: str) -> None:
    report = memory.add_messages(space, "chat", [
        {"speaker": "user", "text": f"{RECALLED}\n{ASKED}", "id": "m1"},
        {"speaker": "user", "text": RECALLED, "id": "m2"},  # only recalled context
        {"speaker": "user", "text": f"my note {OPEN}\nuser: the garden shed", "id": "m3"},
        {"speaker": "user", "text": f"more of it {CLOSE} and the rest is mine", "id": "m4"},
        {"speaker": "user", "text": MENTION, "id": "m5"}])
    # a tag opened in one message and closed in another removes nobody's words
    assert (report.stripped, report.emptied) == (2, 1)
    assert report.added == ["m1", "m3", "m4", "m5"]
    texts = stored_texts(memory, space)
    assert texts == [ASKED, f"my note {OPEN}\nuser: the garden shed",
                     f"more of it {CLOSE} and the rest is mine", MENTION]
    nothing = memory.add_messages(space, "chat", [{"speaker": "user", "text": RECALLED}])
    assert nothing.added == [] and nothing.emptied == 1 and "nothing was stored" in \
        nothing.notes[0]
    assert len(stored_texts(memory, space)) == 4
    lone = memory.add_messages(space, "chat", [{"speaker": "user", "text": f"a lone {OPEN}"}])
    assert lone.stripped == 0 and stored_texts(memory, space)[-1] == f"a lone {OPEN}"


def test_async_add_and_correct(memory: Memory, space: str) -> None:
    async def go() -> Any:
        client = AsyncMemory(memory=memory)
        return await client.add_messages(space, "chat", [
            {"speaker": "user", "text": f"{ASKED} {RECALLED}", "id": "a1"}])
    report = asyncio.run(go())
    assert report.stripped == 1 and stored_texts(memory, space) == [ASKED]
    turn = memory.messages(space, "chat").messages[0].turn_id
    fixed = memory.correct(space, turn, f"{RECALLED} Where is the blue bike?")
    assert fixed.stripped == 1 and stored_texts(memory, space) == ["Where is the blue bike?"]
    with pytest.raises(InputError, match="only recalled context"):
        memory.correct(space, turn, RECALLED)


def write_chat(path: Path, turns: list[str]) -> Path:
    path.write_text(json.dumps({"format": "graphmem.chat/v1", "conversations": [
        {"id": "c1", "sessions": [{"id": "s1", "started_at": "2025-05-02T10:00:00", "turns": [
            {"speaker": "Ana", "text": text} for text in turns]}]},
        {"id": "c2", "sessions": [{"id": "s1", "turns": [
            {"speaker": "Ana", "text": RECALLED}]}]}]}))
    return path


def test_ingest_file_and_cli(memory: Memory, space: str, tmp_path: Path) -> None:
    path = write_chat(tmp_path / "chat.json", [
        f"{ASKED}\n{RECALLED}", RECALLED, f"first {OPEN} user: the garden shed",
        f"{CLOSE} second", MENTION])
    report = memory.ingest(path, space=space, layers="")
    assert (report.stripped, report.emptied) == (3, 2) and report.turns == 4
    assert any("c2" in w for w in report.warnings)  # a conversation of recalled context only
    assert "3 blocks of recalled context taken out" in report.summary()
    texts = stored_texts(memory, space)
    # a block is within one turn: tags split over two turns are someone's text
    assert texts == [ASKED, f"first {OPEN} user: the garden shed", f"{CLOSE} second", MENTION]
    [turn] = [m for m in memory.messages(space, "c1").messages if m.text.endswith("second")]
    assert turn.id == "s1:4"  # the ids of the file stay the file's
    result = CliRunner().invoke(main, ["ingest", str(path), "--space", space, "--layers", ""])
    assert result.exit_code == 0, result.output
    assert "3 blocks of recalled context taken out" in result.output
    assert stored_texts(memory, space) == texts  # the same ingest again changes nothing


def test_mcp_tools(memory: Memory, space: str) -> None:
    server = build_server(memory, Spaces.of([space]))

    async def body(client: Client) -> tuple[Any, Any, Any]:
        added = await client.call_tool("add_messages", {"messages": [
            {"speaker": "Ann", "text": f"{RECALLED}\nMy sister Lena moved to Porto.",
             "id": "a1"}, {"speaker": "Ann", "text": RECALLED, "id": "a2"}],
            "conversation": "chat"})
        found = await client.call_tool("search_memory", {"question": "Where is Lena?"})
        turn = found.structured_content["hits"][0]
        fixed = await client.call_tool("correct_message", {
            "turn_id": memory.messages(space, "chat").messages[0].turn_id,
            "text": f"My sister Lena moved to Braga. {RECALLED}"})
        return added.structured_content, found.structured_content | {"turn": turn}, \
            fixed.structured_content

    added, found, fixed = asyncio.run(_with(server, body))
    assert (added["added"], added["stripped"], added["emptied"]) == (["a1"], 2, 1)
    assert found["marked_context"] == mark(found["context"]) and "Porto" in found["context"]
    assert fixed["stripped"] == 1
    assert stored_texts(memory, space) == ["My sister Lena moved to Braga."]


async def _with(server: Any, body: Any) -> Any:
    async with Client(server) as client:
        return await body(client)


def test_agent_memory_context_is_marked_and_round_trips(memory: Memory, space: str) -> None:
    agent = AgentMemory(memory, space, "chat", budget=60)
    agent.add([{"speaker": "user", "text": "I keep my red bike in the garden shed."}])
    context = agent.context("Where is the red bike?")
    assert context.startswith(OPEN) and context.endswith(CLOSE) and "garden shed" in context
    found = agent.tools()[0]("Where is the red bike?")
    assert found.startswith(OPEN) and "memory ids:" in found
    # a prompt made of the context and the question, stored as the user's message
    report = agent.add([{"speaker": "user", "text": f"{context}\n\nWhere is the red bike?"}])
    assert report.stripped == 1
    memory.flush()
    assert [m.text for m in agent.messages()] == ["I keep my red bike in the garden shed.",
                                                  "Where is the red bike?"]
