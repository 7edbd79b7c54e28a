"""LLM-free event statements: persons named, relative dates resolved, arguments, chunks."""

from __future__ import annotations

from datetime import datetime

from graphmem.ingest.layers.edus.extract import resolve_relative, session_edus
from graphmem.models import SessionRecord, TurnRecord

DAY = datetime(2023, 5, 8, 13, 56)  # a Monday


def session(*turns: tuple[str, str], when: datetime | None = DAY) -> SessionRecord:
    return SessionRecord(key="s", index=0, started_at=when, turns=tuple(
        TurnRecord(order=i, speaker=who, text=text, source_id=f"t{i}")
        for i, (who, text) in enumerate(turns)))


def test_first_and_second_person_name_the_speakers() -> None:
    edus = session_edus(session(("Ana", "I lost my keys at your place."),
                                ("Ben", "I will look for them tonight.")), ["Ana", "Ben"])
    assert edus[0].text == "Ana lost Ana's keys at Ben's place."
    assert edus[0].source_ids == ("t0",) and edus[0].kind == "edu"
    assert edus[1].text.startswith("Ben will look for them tonight")


def test_contractions_after_i() -> None:
    [edu] = session_edus(session(("Ana", "I'm moving to Porto next spring."),
                                 ("Ben", "ok")), ["Ana", "Ben"])[:1]
    assert edu.text.startswith("Ana is moving to Porto")


def test_relative_dates_get_their_date() -> None:
    assert resolve_relative("yesterday", DAY) == "7 May 2023"
    assert resolve_relative("last Saturday", DAY) == "6 May 2023"
    assert resolve_relative("last year", DAY) == "2022"
    assert resolve_relative("last month", DAY) == "April 2023"
    [edu] = session_edus(session(("Ana", "We went to a jazz concert yesterday.")), ["Ana"])
    assert "yesterday (7 May 2023)" in edu.text
    [undated] = session_edus(session(("Ana", "We went to a jazz concert yesterday."),
                                     when=None), ["Ana"])
    assert "(" not in undated.text


def test_arguments_are_normalised_and_shared() -> None:
    edus = session_edus(session(("Ana", "My sister adopted the grey cats from Lisbon."),
                                ("Ben", "Lisbon has so many cats!")), ["Ana", "Ben"])
    assert "lisbon" in edus[0].arguments and "grey cat" in edus[0].arguments
    assert "sister" in edus[0].arguments
    assert {"lisbon", "cat"} <= set(edus[1].arguments)


def test_short_replies_and_images_are_kept() -> None:
    turns = (TurnRecord(order=0, speaker="Ana", text="Look!", source_id="t0",
                        image_caption="a red bicycle"),
             TurnRecord(order=1, speaker="Ben", text="Wow, nice!", source_id="t1"))
    edus = session_edus(SessionRecord(key="s", index=0, started_at=DAY, turns=turns),
                        ["Ana", "Ben"])
    assert [e.text for e in edus] == ["Ana shared a picture: a red bicycle.", "Ben: Wow, nice!"]
    assert "red bicycle" in edus[0].arguments


def test_long_structured_answers_become_one_chunk() -> None:
    answer = "Here are some ideas for your trip:\n" + "\n".join(
        f"{i}. Visit place number {i}, which is known for its old market and long history."
        for i in range(1, 9))
    edus = session_edus(session(("user", "What should I see in Fez?"), ("assistant", answer)),
                        ["user", "assistant"])
    chunk = edus[-1]
    assert chunk.kind == "chunk" and chunk.source_ids == ("t1",)
    assert chunk.rendered == f"Assistant: {answer}"
    assert chunk.text.startswith('Assistant answered the request "What should I see in Fez?"')
    assert len(chunk.text) < len(answer)
    assert edus[0].text == "What should User see in Fez?"
