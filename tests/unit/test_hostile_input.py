"""Malformed and hostile inputs, each rejected with an InputError that names the file (and
the record and field where there is one), never a traceback and never a silent change."""

from __future__ import annotations

import copy
import gzip
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from graphmem.errors import InputError
from graphmem.ingest.inputs.loaders import parse_file

DATA = Path(__file__).parent.parent / "data"
LOCOMO = json.loads((DATA / "mini_locomo.json").read_text())
LME = json.loads((DATA / "mini_longmemeval.json").read_text())


def chat(turn: dict[str, Any] | None = None, **session: Any) -> dict[str, Any]:
    one = {"id": "s1", "started_at": "2024-01-05T10:00:00",
           "turns": [turn or {"speaker": "A", "text": "hello"}]}
    one.update(session)
    return {"conversations": [{"id": "c1", "sessions": [one]}]}


def locomo(change: Callable[[dict[str, Any]], None]) -> list[Any]:
    data = copy.deepcopy(LOCOMO)
    change(data[0])
    return data


def lme(change: Callable[[dict[str, Any]], None]) -> list[Any]:
    data = copy.deepcopy(LME)
    change(data[0])
    return data


def turn0(data: dict[str, Any]) -> dict[str, Any]:
    return data["conversation"]["session_1"][0]  # type: ignore[no-any-return]


EMOJI = "\U0001f600"
# name -> (file content: JSON-able data, or raw bytes; suffix; words the error must hold)
CASES: dict[str, tuple[Any, str, str]] = {
    "empty file": (b"", ".json", "malformed JSON"),
    "not JSON": (b"hello", ".json", "malformed JSON"),
    "truncated JSON": (b'{"conversations": [', ".json", "malformed JSON"),
    "latin-1 bytes": (b'{"id": "caf\xe9"}', ".json", "not valid UTF-8"),
    "nested 100000 deep": (b"[" * 100_000 + b"]" * 100_000, ".json", "nested too deeply"),
    "gz that is not gzip": (b'{"conversations": []}', ".json.gz", "not a readable gzip"),
    "truncated gzip": (gzip.compress(json.dumps(chat()).encode())[:30], ".json.gz",
                       "not a readable gzip"),
    "empty list": ([], ".json", "holds no conversations"),
    "empty object": ({}, ".json", "holds no conversations"),
    "no conversations": ({"conversations": []}, ".json", "holds no conversations"),
    "a number": (42, ".json", "cannot tell the format"),
    "duplicate key": (b'{"conversations": [{"id": "a", "id": "b", "sessions": []}]}', ".json",
                      "duplicate key 'id'"),
    "conversations not a list": ({"conversations": {"id": 1}}, ".json", "must be a list"),
    "conversation not an object": ({"conversations": ["x"]}, ".json", "expected an object"),
    "no sessions": ({"conversations": [{"id": "c", "sessions": []}]}, ".json", "no turns"),
    "turn id an object": (chat({"id": {"x": 1}, "speaker": "A", "text": "hi"}), ".json",
                          "an id is a string or an integer, got object"),
    "turn id a float": (chat({"id": 1.5, "speaker": "A", "text": "hi"}), ".json",
                        "got number"),
    "turn id true": (chat({"id": True, "speaker": "A", "text": "hi"}), ".json", "got boolean"),
    "id of 201 characters": (chat({"id": "x" * 201, "speaker": "A", "text": "hi"}), ".json",
                             "exceeds the limit of 200"),
    "id with a newline": (chat({"id": "a\nb", "speaker": "A", "text": "hi"}), ".json",
                          "control character"),
    "blank id": (chat({"id": "  ", "speaker": "A", "text": "hi"}), ".json", "empty id"),
    "numeric speaker": (chat({"speaker": 7, "text": "hi"}), ".json",
                        "expected string, got integer"),
    "missing speaker": (chat({"text": "hi"}), ".json", "missing field"),
    "blank speaker": (chat({"speaker": " ", "text": "hi"}), ".json", "empty speaker name"),
    "speaker of 10000 characters": (chat({"speaker": "B" * 10_000, "text": "hi"}), ".json",
                                    "speaker name of 10000 characters"),
    "text a list": (chat({"speaker": "A", "text": ["hi"]}), ".json", "expected string, got list"),
    "text missing": (chat({"speaker": "A"}), ".json", "missing field"),
    "text of 60001 characters": (chat({"speaker": "A", "text": "x" * 60_001}), ".json",
                                 "turn of 60001 characters"),
    "caption of 1000001 characters": (chat({"speaker": "A", "text": "hi",
                                            "image_caption": "c" * 1_000_001}), ".json",
                                      "image caption of 1000001 characters"),
    "caption an object": (chat({"speaker": "A", "text": "hi", "image_caption": {}}), ".json",
                          "expected string, got object"),
    "unpaired surrogate": (b'{"conversations": [{"id": "c", "sessions": [{"turns": '
                           b'[{"speaker": "A", "text": "bad \\ud800 here"}]}]}]}', ".json",
                           "unpaired surrogate"),
    "date a number": (chat(started_at=20240105), ".json", "expected string, got integer"),
    "date of 1000 characters": (chat(started_at="2" * 1000), ".json",
                                "date of 1000 characters"),
    "unparsable date": (chat(started_at="next Tuesday-ish"), ".json", "unparsable date"),
    "turns a string": (chat(turns="hello"), ".json", "expected list"),
    "duplicate session ids": ({"conversations": [{"id": "c", "sessions": [
        {"id": "s", "turns": [{"speaker": "A", "text": "a"}]},
        {"id": "s ", "turns": [{"speaker": "A", "text": "b"}]}]}]}, ".json",
        "duplicate session id 's'"),
    "duplicate turn ids": (chat(turns=[{"id": "t", "speaker": "A", "text": "a"},
                                       {"id": " t", "speaker": "B", "text": "b"}]), ".json",
                           "duplicate turn id 't'"),
    "duplicate conversation ids": ({"conversations": [chat()["conversations"][0]] * 2},
                                   ".json", "duplicate conversation id"),
    "locomo without sessions": (locomo(lambda r: r.update(conversation={"speaker_a": "A"})),
                                ".json", "no session_N lists"),
    "locomo session_1 and session_01": (locomo(lambda r: r["conversation"].update(
        session_01=r["conversation"]["session_1"],
        session_01_date_time=r["conversation"]["session_1_date_time"])), ".json",
        "duplicate session number id '1'"),
    "locomo dia_id a list": (locomo(lambda r: turn0(r).update(dia_id=["D1:1"])), ".json",
                             "expected string or integer, got list"),
    "locomo img_url of 60001 characters": (locomo(lambda r: turn0(r).update(
        img_url=["u" * 60_001])), ".json", "image address of 60001 characters"),
    "locomo date unparsable": (locomo(lambda r: r["conversation"].update(
        session_1_date_time="whenever")), ".json", "unparsable date"),
    "longmemeval 'sa' and 'sa '": (lme(lambda r: r.update(haystack_session_ids=["sa", "sa "])),
                                   ".json", "duplicate session id 'sa'"),
    "longmemeval lengths differ": (lme(lambda r: r["haystack_dates"].pop()), ".json",
                                   "differ in length"),
    "longmemeval turn not an object": (lme(lambda r: r["haystack_sessions"][0].append("hi")),
                                       ".json", "expected an object"),
    "longmemeval role missing": (lme(lambda r: r["haystack_sessions"][0][0].pop("role")),
                                 ".json", "missing field"),
    "longmemeval content a number": (lme(lambda r: r["haystack_sessions"][0][0].update(
        content=3)), ".json", "expected string, got integer"),
    f"emoji id of 201 characters ({EMOJI})": (chat({"id": EMOJI * 201, "speaker": "A",
                                                    "text": "hi"}), ".json", "exceeds"),
}


def write(tmp_path: Path, content: Any, suffix: str) -> Path:
    path = tmp_path / f"input{suffix}"
    raw = content if isinstance(content, bytes) else json.dumps(content).encode()
    path.write_bytes(raw)
    return path


def rejection(path: Path, **limits: Any) -> InputError:
    """The error parsing ``path`` gives: raised, or the first of the rejected records."""
    try:
        result = parse_file(path, max_turn_chars=60_000, **limits)
    except InputError as exc:
        return exc
    assert result.errors, "a malformed record was accepted"
    return result.errors[0]


@pytest.mark.parametrize("name", list(CASES))
def test_malformed_input_is_rejected_naming_the_place(tmp_path: Path, name: str) -> None:
    content, suffix, words = CASES[name]
    error = rejection(write(tmp_path, content, suffix))
    assert words in str(error)
    assert error.file == str(tmp_path / f"input{suffix}")
    assert len(str(error)) < 600  # a bad value is quoted by its beginning only


def test_a_file_larger_than_the_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = write(tmp_path, chat({"speaker": "A", "text": "x" * 5000}), ".json")
    assert "larger than the input limit" in str(rejection(path, max_bytes=4096))
    assert "once decompressed" in str(rejection(
        write(tmp_path, gzip.compress(path.read_bytes()), ".json.gz"), max_bytes=4096))


def test_an_endless_device_is_refused_at_the_limit() -> None:
    error = rejection(Path("/dev/zero"), max_bytes=1 << 20)
    assert "larger than the input limit of 1 MiB" in str(error)


def test_a_directory_is_an_input_error(tmp_path: Path) -> None:
    assert "cannot read" in str(rejection(tmp_path))


HEADER = {"format": "graphmem-space", "version": 1, "space": "s", "dimensions": 384,
          "nodes": 1, "relationships": 0}


@pytest.mark.parametrize(("rows", "says"), [
    ([HEADER, {"k": 0, "labels": ["Space"], "props": []}], "line 2: malformed line"),
    ([[1, 2]], "not a graphmem space file"),
    ([HEADER, {"k": 0, "labels": "Space", "props": {"id": "s"}}], "line 2: labels"),
    ([HEADER, "text"], "line 2: neither a node nor a relationship"),
])
def test_a_broken_backup_is_bad_input_naming_the_line(tmp_path: Path, rows: list[Any],
                                                      says: str) -> None:
    from graphmem.spacefile import read_space_file

    path = tmp_path / "backup.jsonl.gz"
    with gzip.open(path, "wt") as out:
        out.writelines(json.dumps(row) + "\n" for row in rows)
    with pytest.raises(InputError, match=says):
        read_space_file(path, 384)
