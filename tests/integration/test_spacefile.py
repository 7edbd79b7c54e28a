"""Back up a space to a file and restore it: the restored space equals the original node for
node (embeddings exactly), searches the same, and a bad file or a refused restore changes
nothing, in the space or in any other."""

from __future__ import annotations

import base64
import gzip
import json
import re
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest
from click.testing import CliRunner

from graphmem.cli import main
from graphmem.client import Memory
from graphmem.errors import InputError
from graphmem.ids import turn_id

from helpers import SAMPLE

QUESTION = "What is the name of the dog?"


def lines(path: Path) -> list[dict[str, Any]]:
    with gzip.open(path, "rt") as rows:
        return [json.loads(row) for row in rows]


def canonical(path: Path) -> tuple[set[str], set[str]]:
    """A file's nodes and relationships, independent of the order they were read in, without
    the space's history (a restore adds to it)."""
    rows = [row for row in lines(path)[1:] if row.get("labels") != ["Change"]]
    history = {k for k, row in enumerate(lines(path)[1:]) if row.get("labels") == ["Change"]}
    rows = [row for row in rows if row.get("to") not in history or "labels" in row]
    nodes = [row for row in rows if "labels" in row]
    name = {row["k"]: (tuple(row["labels"]), row["props"].get("id")) for row in nodes}
    return ({json.dumps([row["labels"], row["props"]], sort_keys=True) for row in nodes},
            {json.dumps([row["type"], name[row["from"]], name[row["to"]], row["props"]],
                        sort_keys=True) for row in rows if "type" in row})


def snapshot(memory: Memory, space: str) -> list[dict[str, Any]]:
    return memory.store.read("admin/space_snapshot", space=space)


def hits(memory: Memory, space: str) -> list[tuple[str, float]]:
    found = memory.search(QUESTION, space=space, budget=300)
    return [(hit.id, round(hit.score, 9)) for hit in found.hits]


def test_a_restored_space_equals_the_original(memory: Memory, space: str,
                                              tmp_path: Path) -> None:
    memory.ingest(SAMPLE, space=space)
    before, found = snapshot(memory, space), hits(memory, space)
    first = memory.export_space(space, tmp_path / "a.jsonl.gz")
    assert first.nodes == len(before) + 1  # and the history's one entry: the ingest
    assert first.relationships > first.nodes
    header = lines(first.path)[0]
    assert header["space"] == space and header["dimensions"] == 384
    assert header["embedder"] == memory.embedder.name

    memory.delete_space(space)
    assert not memory.has_space(space)
    restored = memory.import_space(first.path)
    assert (restored.nodes, restored.relationships, restored.replaced) == \
        (first.nodes, first.relationships, False)
    assert snapshot(memory, space) == before
    assert [c.what for c in memory.history(space)] == ["restored from a backup", "ingest"]
    again = memory.export_space(space, tmp_path / "b.jsonl.gz")
    assert canonical(again.path) == canonical(first.path)  # every property, vectors exactly
    assert hits(memory, space) == found
    memory.ingest(SAMPLE, space=space)  # a re-ingest of the restored space changes nothing
    assert snapshot(memory, space) == before


def test_restoring_over_a_space_needs_replace_and_a_bad_file_changes_nothing(
        memory: Memory, space: str, tmp_path: Path) -> None:
    other = f"{space}-other"
    memory.ingest(SAMPLE, space=space)
    memory.ingest(SAMPLE, space=other, layers="turns")
    backup = memory.export_space(space, tmp_path / "a.jsonl.gz").path
    original = snapshot(memory, space)
    memory.add_messages(space, "maya-jonas", [{"speaker": "Maya", "text": "Pepper hates rain."}])
    memory.flush()
    changed, others = snapshot(memory, space), snapshot(memory, other)
    assert changed != original

    with pytest.raises(InputError, match="exists; restore with replace"):
        memory.import_space(backup)
    assert snapshot(memory, space) == changed

    rows = lines(backup)
    rows[5]["labels"] = ["Turn", "Admin"]
    broken = tmp_path / "broken.jsonl.gz"
    with gzip.open(broken, "wt") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    with pytest.raises(InputError, match=r"line 6: labels \['Turn', 'Admin'\] are not one of"):
        memory.import_space(broken, replace=True)
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(backup.read_bytes()[:-200])
    with pytest.raises(InputError, match=r"not a whole space file|cut short"):
        memory.import_space(cut, replace=True)
    assert snapshot(memory, space) == changed

    report = memory.import_space(backup, replace=True)
    assert report.replaced
    assert snapshot(memory, space) == original
    assert snapshot(memory, other) == others
    memory.delete_space(other)


def write_rows(path: Path, rows: list[dict[str, Any]]) -> Path:
    with gzip.open(path, "wt") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    return path


def test_a_crafted_or_broken_backup_is_refused_before_anything_is_written(
        memory: Memory, space: str, tmp_path: Path) -> None:
    """A file for one space cannot plant nodes in another's id space (the victim's next
    ingest would merge onto them, and deleting the file's space would delete them), nor hold
    nodes that would break searches later."""
    victim, evil = space, f"{space}-evil"
    memory.ingest(SAMPLE, space=victim, layers="edus")
    memory.ingest(SAMPLE, space=evil, layers="edus")
    rows = lines(memory.export_space(evil, tmp_path / "evil.jsonl.gz").path)
    kept = snapshot(memory, victim), snapshot(memory, evil)
    first = {label: next(n for n, row in enumerate(rows) if row.get("labels") == [label])
             for label in ("Space", "Turn", "EDU")}
    turn, edu = first["Turn"], first["EDU"]
    victim_turn = turn_id(victim, "maya-jonas", "s1:1")
    short = {"$f64": base64.b64encode(np.zeros(3, dtype="<f8").tobytes()).decode()}
    has_turn = next(n for n, row in enumerate(rows) if row.get("type") == "HAS_TURN")
    cases: list[tuple[str, Callable[[list[dict[str, Any]]], object], str]] = [
        ("victim id", lambda r: r[turn]["props"].update(id=victim_turn),
         f"a Turn node '{re.escape(victim_turn)}' of space '{re.escape(evil)}'"),
        ("victim space", lambda r: r[first["Space"]]["props"].update(id=victim),
         "a Space node .* that is not the file's space"),
        ("no space", lambda r: r[edu]["props"].pop("space"), "of space None"),
        ("no text", lambda r: r[turn]["props"].pop("text"), "without its 'text'"),
        ("short vector", lambda r: r[edu]["props"].update(embedding=short),
         "whose embedding is 3, not a vector of 384"),
        ("no vector", lambda r: r[turn]["props"].pop("embedding"), "without its 'embedding'"),
        ("reversed", lambda r: r[has_turn].update({"from": r[has_turn]["to"],
                                                   "to": r[has_turn]["from"]}),
         "a HAS_TURN relationship from a Turn to a Session"),
        ("twice", lambda r: r[turn + 1]["props"].update(id=r[turn]["props"]["id"]),
         "appears twice"),
        ("mixed list", lambda r: r[edu]["props"].update(source_ids=["s1:1", 2]),
         "property 'source_ids' holds a list mixing 2 types of value"),
        ("nested list", lambda r: r[edu]["props"].update(source_ids=[["s1:1"]]),
         "property 'source_ids' holds a list holding a list"),
        ("object", lambda r: r[turn]["props"].update(extra={"$nope": 1}),
         "malformed line"),
        ("relationship list", lambda r: r[has_turn]["props"].update(w=[1, "a"]),
         "holds a list mixing"),
    ]
    try:
        for name, craft, says in cases:
            crafted = json.loads(json.dumps(rows))
            craft(crafted)
            path = write_rows(tmp_path / f"{name}.jsonl.gz", crafted)
            with pytest.raises(InputError, match=says):
                memory.import_space(path, replace=True)
            assert (snapshot(memory, victim), snapshot(memory, evil)) == kept, name
        # the untouched file restores as before
        assert memory.import_space(write_rows(tmp_path / "ok.jsonl.gz", rows),
                                   replace=True).replaced
        assert snapshot(memory, evil) == kept[1]
    finally:
        memory.delete_space(evil)
    assert snapshot(memory, victim) == kept[0]


def test_export_and_import_commands(space: str, neo4j_server: object, tmp_path: Path) -> None:
    env = {"GRAPHMEM_LLM_BASE_URL": None, "GRAPHMEM_LLM_API_KEY": None}
    runner = CliRunner()
    assert runner.invoke(main, ["ingest", str(SAMPLE), "--space", space, "--layers", "turns"],
                         env=env).exit_code == 0
    out = tmp_path / "space.jsonl.gz"
    result = runner.invoke(main, ["export", "--space", space, "--out", str(out)], env=env)
    assert result.exit_code == 0 and f"exported space {space!r}" in result.output
    result = runner.invoke(main, ["import", str(out)], env=env)
    assert result.exit_code == 1 and "exists; restore with replace" in result.output
    result = runner.invoke(main, ["import", str(out), "--replace"], env=env)
    assert result.exit_code == 0 and "(replacing what was stored)" in result.output
    result = runner.invoke(main, ["export", "--space", f"{space}-none", "--out", str(out)],
                           env=env)
    assert result.exit_code == 1 and "there is no space" in result.output


def test_a_plugin_layers_nodes_are_backed_up_and_restored(
        memory: Memory, space: str, tmp_path: Path, qa_pairs: ModuleType) -> None:
    """The example plug-in's Question nodes and ANSWERED_BY links, declared by its layer
    (owns, joins), come back from a backup; a label no layer declares is still refused."""
    memory.ingest(SAMPLE, space=space, layers="questions")
    before = snapshot(memory, space)
    backup = memory.export_space(space, tmp_path / "q.jsonl.gz").path
    rows = lines(backup)
    assert any(row.get("labels") == ["Question"] for row in rows)
    assert any(row.get("type") == "ANSWERED_BY" for row in rows)
    memory.import_space(backup, replace=True)
    assert snapshot(memory, space) == before
    found = memory.search("How far are you running these days?", space=space,
                          strategy="asked", budget=100)
    assert "running" in found.context
    planted = [dict(row, labels=["Planted"]) if row.get("labels") == ["Question"] else row
               for row in rows]
    with pytest.raises(InputError, match=r"labels \['Planted'\] are not one of graphmem's"):
        memory.import_space(write_rows(tmp_path / "planted.jsonl.gz", planted), replace=True)
    assert snapshot(memory, space) == before
