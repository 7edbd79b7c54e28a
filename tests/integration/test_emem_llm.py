"""The LLM path of EMem against a scripted OpenAI-compatible server: LLM statements where the
reply is usable, the rules where it is not (recorded), and the LLM relevance filter."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from graphmem.client import Memory

from helpers import SAMPLE, ScriptedServer, scripted_memory


def reply(data: Any) -> tuple[str, str]:
    return json.dumps(data), "stop"


def test_llm_statements_with_recorded_fallbacks(memory: Memory, space: str,
                                               server: ScriptedServer, tmp_path: Path) -> None:
    server.script = [
        reply({"edus": [
            {"text": "Maya signed up for a Tuesday evening pottery class at the community "
                     "centre in March 2024.", "source_turns": [0, 1, 2]},
            {"text": "Jonas is training for the Lisbon half marathon in April 2024.",
             "source_turns": [3, 5]}]}),
        reply({"statements": [
            {"index": 0, "event_type": "enrolment",
             "arguments": [{"role": "agent", "argument": "Maya"},
                           {"role": "topic", "argument": "pottery class"}]},
            {"index": 1, "event_type": "training",
             "arguments": [{"role": "agent", "argument": "Jonas"},
                           {"role": "event", "argument": "Lisbon half marathon"}]}]}),
        reply({"edus": [{"text": "Someone did something.", "source_turns": [42]}]}),
        ("this is not JSON", "stop"),
    ]
    mem = scripted_memory(memory, server, tmp_path)
    report = mem.ingest(SAMPLE, space=space)
    # session 2 cites turn 42; session 3 is garbage
    assert len(report.layers["edus"].fallbacks) == 2
    with memory.store.driver.session() as session:
        rows = [r.data() for r in session.run("""
            MATCH (s:Session {space: $s})-[:HAS_EDU]->(e:EDU)-[:FROM_TURN]->(t:Turn)
            RETURN s.key AS session, e.id AS id, e.text AS text,
                   collect(t.source_id) AS turns""", s=space)]
        args = {r["a"] for r in session.run(
            "MATCH (e:EDU {space: $s})-[:HAS_ARGUMENT]->(a) WHERE e.id CONTAINS '~L' "
            "RETURN a.text AS a", s=space)}
    first = [r for r in rows if r["session"] == "s1"]
    assert sorted(sorted(r["turns"]) for r in first) == [["s1:1", "s1:2", "s1:3"],
                                                          ["s1:4", "s1:6"]]
    assert args == {"maya", "pottery class", "jonas", "lisbon half marathon"}
    later = [r for r in rows if r["session"] != "s1"]
    assert len(later) >= 11 and all("~L" not in r["id"] for r in later)  # the rules' EDUs
    assert all(r["turns"] for r in rows)


def test_llm_filter_keeps_what_it_names(memory: Memory, space: str,
                                       server: ScriptedServer, tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)  # the rules' EDUs (the fixture has no LLM)
    server.script = [reply({"keep": [0, 2]})]
    mem = scripted_memory(memory, server, tmp_path)
    plain = memory.search("How is the dog?", space=space, strategy="emem", budget=500, k=30)
    filtered = mem.search("How is the dog?", space=space, strategy="emem", budget=500, k=30)
    assert [h.id for h in filtered.hits] == [plain.hits[0].id, plain.hits[2].id]
    sent = server.requests[0]["messages"][1]["content"]  # type: ignore[index]
    # every candidate (the sample has 23 statements, fewer than K_e = 30) is listed
    assert "Question: How is the dog?" in sent and "[22]" in sent and "[23]" not in sent
