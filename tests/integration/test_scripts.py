"""The card's top-level scripts: ingest/ for each source, retrieve/ for asking and comparing,
run as a user runs them (their click commands, in-process) against the real Neo4j."""

from __future__ import annotations

import json
import runpy
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner

from helpers import DATA, SAMPLE, TESTS

ROOT = TESTS.parent


def script(path: str) -> click.Command:
    command = runpy.run_path(str(ROOT / path))["main"]
    assert isinstance(command, click.Command)
    return command


def run(path: str, *args: str) -> tuple[int, str]:
    env = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None}
    result = CliRunner().invoke(script(path), list(args), env=env)
    return result.exit_code, result.output


@pytest.mark.parametrize(("path", "source", "words"), [
    ("ingest/locomo.py", DATA / "mini_locomo.json", "1 conversations, 2 sessions"),
    ("ingest/longmemeval.py", DATA / "mini_longmemeval.json", "1 conversations, 2 sessions"),
    ("ingest/chat_json.py", SAMPLE, "1 conversations, 3 sessions, 17 turns"),
])
def test_each_ingest_script_stores_its_source(space: str, neo4j_server: object, path: str,
                                              source: Path, words: str) -> None:
    code, out = run(path, str(source), "--space", space, "--layers", "")
    assert code == 0 and words in out


def test_the_message_log_script_and_its_connection_options(
        space: str, tmp_path: Path, settings: Any, neo4j_server: object) -> None:
    log = tmp_path / "log.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in [
        {"conversation": "bot", "time": "2024-05-01T09:00:00", "speaker": "Ana",
         "text": "My flight to Lima leaves on Friday."},
        {"conversation": "bot", "speaker": "Bot", "text": "Noted, have a good trip!"}]))
    code, out = run("ingest/message_log.py", str(log), "--space", space, "--layers", "",
                    "--uri", settings.neo4j_uri,
                    "--password", settings.neo4j_password.get_secret_value())
    assert code == 0 and "1 conversations, 1 sessions, 2 turns" in out
    code, out = run("ingest/message_log.py", str(log), "--space", space,
                    "--password", "wrong-password")
    assert code == 4 and "refused user" in out


def test_ask_and_compare(space: str, neo4j_server: object) -> None:
    assert run("ingest/chat_json.py", str(SAMPLE), "--space", space)[0] == 0
    code, out = run("retrieve/ask.py", "Which city was the half marathon in?", "--space", space,
                    "--budget", "60", "--sources")
    assert code == 0 and "Lisbon" in out and "    <- s" in out
    code, out = run("retrieve/compare.py", "What dog did Maya adopt?", "--space", space,
                    "--strategy", "turns", "--strategy", "emem-g-fill", "--budget", "120")
    assert code == 0 and "== turns:" in out and "== emem-g-fill:" in out
    assert "greyhound" in out and "source turns found by every strategy" in out
    code, out = run("retrieve/ask.py", "anything", "--space", space + "-none")
    assert code == 1 and "there is no space" in out


def test_the_example_agent_remembers_across_turns(space: str, neo4j_server: object) -> None:
    lines = "I adopted a cat called Pepper last spring.\nWhat is my cat called?\n\nignored\n"
    env = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None,
           "GRAPHMEM_INGEST_LAYERS": "edus,events"}
    result = CliRunner().invoke(script("retrieve/agent.py"), ["--space", space, "--quiet"],
                                input=lines, env=env)
    assert result.exit_code == 0, result.output
    first, second = result.output.strip().splitlines()
    assert first == "I don't remember anything about that yet."
    assert second.startswith("From memory:") and "Pepper" in second  # not the question itself
    from graphmem.client import Memory

    with Memory() as memory:  # both sides of the conversation are stored, in order
        rows = memory.store.read("ingest/conversation_records", space=space,
                                 conversation_id=None)
    turns = [(t["speaker"], t["text"]) for t in rows[0]["sessions"][0]["turns"]]
    assert [s for s, _ in turns] == ["user", "assistant", "user", "assistant"]
    assert turns[3][1] == second


def test_the_example_agent_answers_with_an_llm(space: str, neo4j_server: object) -> None:
    from helpers import ScriptedServer

    server = ScriptedServer()
    server.responder = lambda body: ('{"answer": "Your cat is Pepper."}', "stop")
    try:
        result = CliRunner().invoke(
            script("retrieve/agent.py"), ["--space", space, "--quiet"],
            # the space in the text: no answer cached by an earlier run can match
            input=f"I adopted a cat called Pepper ({space}).\nWhat is my cat called?\n",
            env={"GRAPHMEM_LLM_BASE_URL": server.url, "GRAPHMEM_LLM_MODEL": "scripted",
                 "GRAPHMEM_INGEST_LAYERS": "", "GRAPHMEM_LLM_INGEST": "false"})
    finally:
        server.httpd.shutdown()
    assert result.exit_code == 0, result.output
    assert result.output.strip().splitlines()[-1] == "Your cat is Pepper."
    prompt = json.dumps(server.requests[-1])
    assert "adopted a cat called Pepper" in prompt  # the memory reached the model
