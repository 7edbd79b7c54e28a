"""Parsing the three input formats, and the errors bad input gets."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from graphmem.errors import InputError
from graphmem.ingest.inputs.loaders import detect_format, parse_file, read_json

DATA = Path(__file__).parent.parent / "data"
SAMPLE = Path(__file__).parent.parent.parent / "graphmem" / "data" / "sample_conversation.json"


def write(tmp_path: Path, data: object, name: str = "input.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def chat(**session_overrides: object) -> dict[str, object]:
    session = {"id": "s1", "started_at": "2024-01-05T10:00:00",
               "turns": [{"speaker": "A", "text": "hello"}, {"speaker": "B", "text": "hi"}]}
    session.update(session_overrides)
    return {"conversations": [{"id": "c1", "sessions": [session]}]}


def test_locomo_sessions_turns_dates_and_captions() -> None:
    result = parse_file(DATA / "mini_locomo.json", "locomo")
    assert result.errors == []
    [conv] = result.conversations
    assert conv.key == "mini-1"
    # session_3 has a date but no turns: no session
    assert [s.key for s in conv.sessions] == ["session_1", "session_2"]
    first = conv.sessions[0]
    assert first.started_at == datetime(2023, 6, 3, 9, 15)
    assert first.date_text == "9:15 am on 3 June, 2023"
    assert [t.source_id for t in first.turns] == ["D1:1", "D1:2", "D1:3"]
    assert first.turns[2].image_caption == "a photo of a cello leaning on a chair"
    assert first.turns[2].image_url == "http://example.invalid/cello.jpg"
    assert conv.speakers == ["Ana", "Ben"]


def test_longmemeval_one_conversation_per_question() -> None:
    [conv] = parse_file(DATA / "mini_longmemeval.json", "longmemeval").conversations
    assert conv.key == "q-mini-1"
    assert [s.key for s in conv.sessions] == ["sess_a", "answer_b"]
    assert conv.sessions[1].started_at == datetime(2023, 5, 27, 14, 5)
    assert conv.sessions[1].turns[0].source_id == "answer_b#0"
    assert conv.sessions[1].turns[0].speaker == "user"


def test_json_format_and_autodetect() -> None:
    result = parse_file(SAMPLE)
    [conv] = result.conversations
    assert conv.source_format == "json"
    assert len(conv.sessions) == 3 and conv.n_turns == 17
    assert conv.sessions[0].turns[0].source_id == "s1:1"
    assert detect_format(read_json(DATA / "mini_locomo.json")) == "locomo"
    assert detect_format(read_json(DATA / "mini_longmemeval.json")) == "longmemeval"


def test_iso_dates_with_offset_become_utc(tmp_path: Path) -> None:
    path = write(tmp_path, chat(started_at="2024-01-05T10:00:00+02:00"))
    [conv] = parse_file(path).conversations
    assert conv.sessions[0].started_at == datetime(2024, 1, 5, 8, 0)


def test_malformed_json_names_file_and_position(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{"conversations": [\n  {"id": "c1",, }\n]}')
    with pytest.raises(InputError) as info:
        parse_file(path)
    assert "broken.json" in str(info.value) and "line 2" in str(info.value)


def test_non_utf8_bytes_are_reported_with_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes(b'{"id": "caf' + b"\xe9" + b'"}')
    with pytest.raises(InputError) as info:
        parse_file(path)
    assert "not valid UTF-8" in str(info.value) and "offset 11" in str(info.value)


@pytest.mark.parametrize(
    ("session", "field", "reason"),
    [
        ({"started_at": "next Tuesday-ish"}, "sessions[0].started_at", "unparsable date"),
        ({"turns": [{"speaker": "A", "text": "   "}]}, "sessions[0].turns[0].text", "empty turn"),
        ({"turns": [{"text": "who said this?"}]}, "sessions[0].turns[0].speaker", "speaker"),
        ({"turns": [{"speaker": "A", "text": "x" * 60_001}]}, "sessions[0].turns[0].text",
         "exceeds the limit"),
        ({"turns": [{"speaker": "A", "text": "a", "id": "t"}, {"speaker": "B", "text": "b",
                                                              "id": "t"}]},
         "sessions[].turns[].id", "duplicate turn id"),
        ({"turns": "not a list"}, "sessions[0].turns", "expected list"),
    ],
)
def test_bad_records_name_file_record_and_field(
    tmp_path: Path, session: dict[str, object], field: str, reason: str
) -> None:
    path = write(tmp_path, chat(**session))
    result = parse_file(path, max_turn_chars=60_000)
    assert result.conversations == []
    [error] = result.errors
    assert error.file == str(path) and error.record == "#0 (c1)" and error.field == field
    assert reason in str(error)


def test_missing_field_in_locomo(tmp_path: Path) -> None:
    data = read_json(DATA / "mini_locomo.json")
    del data[0]["conversation"]["session_2_date_time"]
    [error] = parse_file(write(tmp_path, data), "locomo").errors
    assert error.field == "session_2_date_time" and "missing field" in str(error)


def test_duplicate_conversation_ids_reject_the_second(tmp_path: Path) -> None:
    conv = chat()["conversations"][0]  # type: ignore[index]
    result = parse_file(write(tmp_path, {"conversations": [conv, conv]}))
    assert len(result.conversations) == 1
    assert "duplicate conversation id" in str(result.errors[0])
    assert result.errors[0].record == "#1 (c1)"


def test_one_bad_record_does_not_hide_the_good_ones(tmp_path: Path) -> None:
    good = chat()["conversations"][0]  # type: ignore[index]
    bad = {"id": "c2", "sessions": [{"id": "s", "started_at": "yesterday", "turns": []}]}
    result = parse_file(write(tmp_path, {"conversations": [good, bad]}))
    assert [c.key for c in result.conversations] == ["c1"]
    assert result.errors[0].record == "#1 (c2)"


def test_empty_turns_can_be_skipped_with_a_warning(tmp_path: Path) -> None:
    turns = [{"speaker": "A", "text": ""}, {"speaker": "B", "text": "still here"}]
    result = parse_file(write(tmp_path, chat(turns=turns)), bad_turns="skip")
    [conv] = result.conversations
    assert [t.text for t in conv.sessions[0].turns] == ["still here"]
    assert conv.sessions[0].turns[0].order == 1  # positions stay those of the input
    assert len(result.warnings) == 1 and "empty turn" in result.warnings[0]


def test_unknown_format_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="cannot tell the format"):
        parse_file(write(tmp_path, [1, 2, 3]))


DEV = Path(__file__).parents[3] / "shared" / "data"


@pytest.mark.skipif(not DEV.exists(), reason="the development data is not on this machine")
@pytest.mark.parametrize(("name", "fmt"), [
    ("locomo/locomo_dev.json", "locomo"),
    ("longmemeval/longmemeval_oracle_dev.json", "longmemeval"),
    ("longmemeval/longmemeval_s_dev36.json.gz", "longmemeval"),
])
def test_the_limits_accept_every_record_of_the_development_data(name: str, fmt: str) -> None:
    result = parse_file(DEV / name, fmt, bad_turns="skip")  # type: ignore[arg-type]
    assert result.errors == [] and result.conversations
