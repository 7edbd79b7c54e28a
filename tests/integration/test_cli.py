"""The command line, run in-process by click's runner against the real Neo4j."""

from __future__ import annotations

import json
import re
from pathlib import Path

from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory

from helpers import DATA, SAMPLE


def run(*args: str) -> tuple[int, str]:
    env = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None}
    result = CliRunner().invoke(main, list(args), env=env)
    return result.exit_code, result.output


def test_ingest_search_spaces_delete(space: str, neo4j_server: object) -> None:
    code, out = run("ingest", str(SAMPLE), "--space", space)
    assert code == 0 and "3 sessions, 17 turns" in out
    code, out = run("search", "Which city was the half marathon in?", "--space", space,
                    "--budget", "40")
    assert code == 0 and "Lisbon" in out
    code, out = run("search", "pottery", "--space", space, "--strategy", "turns-bm25", "--json")
    result = json.loads(out)
    assert code == 0 and result["strategy"] == "turns-bm25"
    assert result["hits"][0]["source_ids"] == ["s1:1"]
    code, out = run("spaces")
    assert code == 0 and f"{space}\t1 conversations\t3 sessions\t17 turns" in out
    code, out = run("delete", "--space", space, "--yes")
    assert code == 0
    assert space not in run("spaces")[1]


def test_formats_by_name(space: str, neo4j_server: object) -> None:
    assert run("ingest", str(DATA / "mini_locomo.json"), "--space", space,
               "--format", "locomo")[0] == 0
    code, out = run("ingest", str(DATA / "mini_longmemeval.json"), "--space", space)
    assert code == 0 and "2 sessions, 4 turns" in out
    code, out = run("search", "puppy breed", "--space", space, "--budget", "30")
    assert code == 0 and "beagle" in out


def test_bad_file_exits_non_zero_naming_the_place(space: str, tmp_path: Path,
                                                  neo4j_server: object) -> None:
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({"conversations": [{"id": "c", "sessions": [
        {"id": "s", "started_at": "soon", "turns": [{"speaker": "A", "text": "hi"}]}]}]}))
    code, out = run("ingest", str(path), "--space", space)
    assert code == 1
    assert f"file {path}" in out and "record #0 (c)" in out
    assert "field sessions[0].started_at" in out and "unparsable date" in out


def test_answer_without_llm_says_what_to_set(space: str, neo4j_server: object) -> None:
    code, out = run("answer", "anything?", "--space", space)
    assert code == 1 and "GRAPHMEM_LLM_BASE_URL" in out


def test_neo4j_status_and_unknown_strategy(neo4j_server: object) -> None:
    code, out = run("neo4j", "status")
    assert code == 0 and "GDS 2.13" in out
    code, out = run("search", "x", "--space", "s", "--strategy", "nope")
    assert code == 2 and "turns-bm25" in out


def test_layers_are_listed_added_and_required(space: str, neo4j_server: object) -> None:
    code, out = run("ingest", str(SAMPLE), "--space", space, "--layers", "")
    assert code == 0 and "turns: 3 sessions, 17 turns (17 embedded, 0 unchanged; " in out
    assert "edus:" not in out
    code, out = run("layers", "list", "--space", space)
    assert code == 0 and "turns      needs -\theld" in out
    assert "events     needs turns\tmissing in 3 of 3 sessions" in out
    code, out = run("search", "greyhound", "--space", space, "--strategy", "esmem")
    assert code == 1 and f"graphmem layers add events --space {space}" in out
    code, out = run("layers", "add", "events", "--space", space)
    assert code == 0 and "events:" in out and "turns:" not in out
    assert run("search", "greyhound", "--space", space, "--strategy", "esmem")[0] == 0
    code, out = run("ingest", str(SAMPLE), "--space", space, "--layers", "edus,scenery")
    assert code == 1 and "unknown layers ['scenery']" in out
    code, out = run("strategies")
    assert code == 0 and "emem-g        needs turns, edus\n    EMem-G: EDU seeds" in out


def test_exit_codes_tell_partial_success_apart(space: str, tmp_path: Path,
                                               neo4j_server: object) -> None:
    good = {"id": "c", "sessions": [{"turns": [{"speaker": "A", "text": "a kayak"}]}]}
    bad = {"id": "d", "sessions": [{"turns": [{"speaker": 7, "text": "hi"}]}]}
    path = tmp_path / "mixed.json"
    path.write_text(json.dumps({"conversations": [good, bad]}))
    code, out = run("ingest", str(path), "--space", space, "--skip-invalid")
    assert code == 5 and "1 records rejected, the others stored" in out
    assert "expected string, got integer" in out and "1 conversations" in out
    empty = tmp_path / "empty.json"
    empty.write_text('{"conversations": []}')
    code, out = run("ingest", str(empty), "--space", space)
    assert code == 1 and "holds no conversations" in out


def test_searching_a_space_that_does_not_exist_fails(neo4j_server: object) -> None:
    code, out = run("search", "kayak?", "--space", "no-such-space-4f1c")
    assert code == 1 and "there is no space 'no-such-space-4f1c'" in out
    result = CliRunner().invoke(main, ["answer", "kayak?", "--space", "no-such-space-4f1c"],
                                env={"GRAPHMEM_LLM_BASE_URL": "http://127.0.0.1:9/v1"})
    assert result.exit_code == 1 and "there is no space" in result.output  # no LLM call made


def test_an_answer_that_fell_back_has_its_own_exit_code(space: str, neo4j_server: object) -> None:
    from helpers import ScriptedServer

    assert run("ingest", str(SAMPLE), "--space", space, "--layers", "")[0] == 0
    server = ScriptedServer()
    server.responder = lambda body: ("this is not JSON", "stop")
    try:
        result = CliRunner().invoke(main, ["answer", "What dog did Maya adopt?", "--space",
                                           space], env={"GRAPHMEM_LLM_BASE_URL": server.url,
                                                        "GRAPHMEM_LLM_MODEL": "scripted"})
        assert result.exit_code == 6
        assert "no usable LLM answer" in result.output and "greyhound" in result.output
    finally:
        server.httpd.shutdown()


def test_demo_shows_the_recommended_strategy_with_sources(space: str,
                                                          neo4j_server: object) -> None:
    from graphmem.retrieve.registry import RECOMMENDED

    code, out = run("demo", "--space", space)  # the default budget
    assert code == 0, out
    assert f"Strategy: {RECOMMENDED} (" in out
    lines = out.splitlines()
    sources = [i for i, line in enumerate(lines) if line.strip().startswith("<- s")]
    assert sources and all(": " in lines[i - 1] for i in sources)  # a turn's line, its source
    assert re.search(r"^\[\d+ \w+ 2024\]$", out, re.MULTILINE)  # a session's date header
    assert "greyhound" in out  # what Maya adopted


def test_show_and_forget(space: str, neo4j_server: object) -> None:
    assert run("ingest", str(SAMPLE), "--space", space, "--layers", "")[0] == 0
    code, out = run("show", "--space", space)
    assert code == 0 and out.startswith("maya-jonas\t3 sessions\t17 messages\t2024-03-02")
    code, out = run("show", "--space", space, "--conversation", "maya-jonas", "--limit", "2",
                    "--newest")
    assert code == 0 and out.splitlines()[0].startswith("[s3 2024-04-09] s3:5  ")
    code, out = run("forget", "--space", space, "--conversation", "maya-jonas",
                    "--message", "s1:1")  # no terminal to confirm on: nothing is forgotten
    assert code == 2 and "add --yes" in out
    code, out = run("forget", "--space", space, "--conversation", "maya-jonas",
                    "--message", "s1:1", "--yes")
    assert code == 0 and out.startswith("forgot 1 messages in 0 whole sessions")
    code, out = run("show", "--space", space, "--conversation", "maya-jonas", "--json")
    assert code == 0 and json.loads(out)["messages"][0]["id"] == "s1:2"
    code, out = run("history", "--space", space)
    assert code == 0 and [line.split("\t")[1:3] for line in out.splitlines()] == [
        ["forget", "cli"], ["ingest", "cli"]]  # raw turns only: nothing to derive again
    code, out = run("show", "--space", f"{space}-none")
    assert code != 0 and "no space" in out
    code, out = run("show", "--space", space, "--conversation", "nope")
    assert code == 1 and "holds no conversation 'nope'" in out
    code, out = run("forget", "--space", space, "--conversation", "maya-jonas", "--yes")
    assert code == 2 and "--whole-conversation" in out  # naming no selection forgets nothing
    code, out = run("forget", "--space", space, "--conversation", "maya-jonas", "--yes",
                    "--whole-conversation")
    assert code == 0 and "(the whole conversation)" in out


SECRET = "never-print-this-token-0123"


def test_bad_settings_are_one_line_naming_the_variable(neo4j_server: object) -> None:
    for env, says in (({"GRAPHMEM_NEO4J_URI": "http://127.0.0.1:7474"},
                       "settings: GRAPHMEM_NEO4J_URI: Value error"),
                      ({"GRAPHMEM_REST_TOKENS": "{bad"},
                       "settings: GRAPHMEM_REST_TOKENS cannot be read"),
                      ({"GRAPHMEM_REST_TOKENS": '{"' + SECRET + '": "alice"}'},
                       "token #1 (digest "),
                      ({"GRAPHMEM_REST_TOKENS": '{"' + " " * 16 + '": ["alice"]}'},
                       "16 or more characters")):
        result = CliRunner().invoke(main, ["spaces"], env=env)
        assert result.exit_code == 1 and says in result.output, result.output
        assert "Traceback" not in result.output and SECRET not in result.output


def test_a_busy_port_and_an_unwritable_backup_are_one_line(space: str, tmp_path: Path,
                                                           neo4j_server: object) -> None:
    import socket

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = str(busy.getsockname()[1])
        result = CliRunner().invoke(main, ["serve", "--port", port], env={
            "GRAPHMEM_REST_TOKENS": '{"a-long-random-secret": ["x"]}'})
        assert result.exit_code == 1 and f"cannot listen on 127.0.0.1:{port}" in \
            result.output, result.output
        code, out = run("mcp", "--space", "x", "--transport", "http", "--port", port)
        assert code == 1 and "another server may be using the port" in out
    assert run("ingest", str(SAMPLE), "--space", space, "--layers", "")[0] == 0
    blocked = tmp_path / "file"
    blocked.write_text("")
    code, out = run("export", "--space", space, "--out", str(blocked / "x.jsonl.gz"))
    assert code == 1 and "cannot write the backup there" in out and "Traceback" not in out


def test_layers_behind_live_messages_are_said_and_refreshed(space: str,
                                                           neo4j_server: object) -> None:
    from graphmem.client import Memory
    from graphmem.config import Settings

    manual = Settings().model_copy(update={"live_derive": "manual"})
    with Memory(manual) as memory:  # as after a crash: the turn stored, its EDUs not derived
        memory.add_messages(space, "c", [{"speaker": "Ann", "text": "I adopted a cat."}],
                            layers="edus")
    code, out = run("layers", "list", "--space", space)
    assert code == 0 and "edus" in out and "behind live messages in 1 conversations" in out
    code, out = run("refresh", "--space", space)
    assert code == 0 and out.strip() == "c: derived edus"
    code, out = run("layers", "list", "--space", space)
    assert "behind live messages" not in out
    assert run("refresh", "--space", space)[1].strip() == "nothing was pending"


def test_correct_and_max_tokens(space: str, memory: Memory) -> None:
    code, _ = run("ingest", str(SAMPLE), "--space", space, "--layers", "")
    assert code == 0
    code, out = run("search", "How far does Jonas run on Sundays?", "--space", space,
                    "--strategy", "turns", "--max-tokens", "40", "--json")
    assert code == 0 and json.loads(out)["budget"] == 40
    turn = next(h["source_turn_ids"][0] for h in json.loads(out)["hits"]
                if "Sixteen kilometres" in h["text"])
    code, out = run("correct", "--space", space, "--turn", turn, "--text",
                    "Eighteen kilometres on Sundays now.")
    assert code == 0 and "1 earlier texts kept" in out, out
    said = [m.text for m in memory.messages(space, "maya-jonas", limit=20).messages]
    assert "Eighteen kilometres on Sundays now." in said
    assert not any("Sixteen" in t for t in said)
    code, out = run("correct", "--space", space, "--turn", "no-such-turn", "--text", "x")
    assert code != 0 and "Traceback" not in out
