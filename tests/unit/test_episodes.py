"""EMA's units without a database: admission decides what becomes a unit, runs join, the
slot rule supersedes a cancelled plan or a changed job (and not a mere repeat of the topic),
links stay bounded, near-duplicates are found, and the Caller orders superseded units after
what replaced them."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import numpy as np

from graphmem.ingest.layers.episodes.units import (
    EpisodeConfig,
    build_units,
    confidence,
    duplicates,
    link,
    representation,
    slots,
    supersessions,
)
from graphmem.providers.nlp import nlp
from graphmem.retrieve.ema import caller_query, order, render


def turn(i: int, speaker: str, text: str, vector: list[float], *, session: int = 0,
         admitted: bool = True, day: int = 1) -> dict[str, Any]:
    return {"source_id": f"t{i}", "session": session, "speaker": speaker, "text": text,
            "image_caption": None, "time": datetime(2024, 3, day), "score": 0.7,
            "vector": np.asarray(vector, dtype=np.float32), "doc": nlp()(text),
            "admitted": admitted}


def test_only_admitted_turns_become_units_and_runs_join_within_a_session() -> None:
    turns = [turn(0, "Ana", "I booked a trip to Rome.", [1, 0]),
             turn(1, "Ana", "It is for my birthday in May.", [0.9, 0.1]),
             turn(2, "Ben", "ok", [0, 1], admitted=False),
             turn(3, "Ana", "Rome has great food.", [1, 0])]
    single = build_units(turns, EpisodeConfig())
    assert [u.source_ids for u in single] == [["t0"], ["t1"], ["t3"]]
    joined = build_units(turns, EpisodeConfig(run=3))
    assert [u.source_ids for u in joined] == [["t0", "t1"], ["t3"]]  # t2 breaks the run
    assert joined[0].content.splitlines() == ["Ana: I booked a trip to Rome.",
                                              "Ana: It is for my birthday in May."]
    assert "rome" in joined[0].tags and joined[0].participants[0] == "Ana"
    reply = build_units([turns[0], turn(1, "Ben", "Rome in May sounds lovely.", [0.8, 0.2]),
                         turn(2, "Ana", "Chess.", [0, 1], session=1)], EpisodeConfig(run=3))
    assert [u.source_ids for u in reply] == [["t0", "t1"], ["t2"]]  # sessions are not joined
    assert reply[0].participants == ["Ana", "Ben"] and reply[0].speaker == "Ana"


def test_confidence_drops_for_hedges_and_questions() -> None:
    assert confidence("I work at the bakery.") == 1.0
    assert confidence("Maybe I will go, I think.") == 0.6
    assert confidence("Are you coming?") == 0.7


def test_slots_read_first_person_facts() -> None:
    found = slots(nlp()("My favorite movie is Alien. I have 3 dogs and I work at Google."))
    assert found["favorite:movie"].startswith("favorite movie is Alien")
    assert found["count:dog"] == "3" and found["job"] == "google"
    assert slots(nlp()("She has 3 dogs.")) == {}  # not the speaker's own fact
    assert "count:year" not in slots(nlp()("I have lived here for 5 years."))


def test_a_cancelled_plan_and_a_changed_job_are_superseded() -> None:
    turns = [turn(0, "Ana", "I plan to visit New York on Monday.", [1, 0, 0], day=1),
             turn(1, "Ana", "I work at Google.", [0, 1, 0], day=1),
             turn(2, "Ben", "I cancelled the New York trip.", [1, 0, 0], day=3),  # not Ana's
             turn(3, "Ana", "I cancelled my New York visit, work got in the way.",
                  [0.95, 0.05, 0], day=3),
             turn(4, "Ana", "I work at Microsoft now.", [0, 0.9, 0.1], day=4),
             turn(5, "Ana", "New York is so big.", [0.8, 0, 0.6], day=5)]
    units = build_units(turns, EpisodeConfig())
    assert supersessions(units, EpisodeConfig()) == {0: 3, 1: 4}


def test_links_are_bounded_and_need_a_shared_participant_or_tag() -> None:
    turns = [turn(i, "Ana" if i < 5 else "Ben", f"Chess game number {i}.", [1, 0.01 * i])
             for i in range(8)]
    units = build_units(turns, EpisodeConfig())
    pairs = link(units, EpisodeConfig(links=2))
    degree = np.bincount([x for i, j, _ in pairs for x in (i, j)], minlength=len(units))
    assert pairs and degree.max() <= 2
    alone = build_units([turn(0, "Ana", "Cats.", [1, 0]), turn(1, "Ben", "Dogs.", [1, 0])],
                        EpisodeConfig())
    assert link(alone, EpisodeConfig()) == []  # similar, but nobody and nothing shared


def test_near_duplicates_merge_into_the_earlier_unit() -> None:
    turns = [turn(0, "Ana", "I love the Alps.", [1, 0]),
             turn(1, "Ana", "I love the Alps!", [1, 0]), turn(2, "Ben", "I love the Alps.", [1, 0])]
    units = build_units(turns, EpisodeConfig())
    assert duplicates(units, EpisodeConfig(), set()) == {1: 0}  # Ben's is his own memory
    assert representation(units[0], [units[1]]).splitlines()[-1] == "related: alps"


def test_the_caller_puts_superseded_units_after_their_replacement() -> None:
    rows = [{"id": "old", "score": 0.9, "superseded_by": "new"}, {"id": "x", "score": 0.8},
            {"id": "new", "score": 0.5}]
    replacements = {r["id"]: r for r in rows}
    assert [r["id"] for r in order(rows, replacements, "after")] == ["new", "old", "x"]
    assert [r["id"] for r in order(rows, replacements, "drop")] == ["new", "x"]
    assert [r["id"] for r in order(rows, replacements, "keep")] == ["old", "x", "new"]
    from graphmem.providers.embedder import HashEmbedder
    from graphmem.retrieve.base import Query

    asked = Query("Where did Melanie go in Paris?", HashEmbedder())
    assert caller_query(asked) == "Where did Melanie go in Paris? Melanie Paris"
    assert caller_query(Query("what now?", HashEmbedder())) == "what now?"
    shown = render({"content": "Ana: I work at Google.", "importance": 0.8, "confidence": 1.0,
                    "started_at": datetime(2024, 3, 1), "superseded_by": "new",
                    "superseded_at": datetime(2024, 3, 4)})
    assert shown == ("[1 March 2024] Ana: I work at Google. (importance 0.80, confidence 1.00; "
                     "replaced on 4 March 2024)")
    assert render({"content": "Ana: hi", "importance": 0.5, "confidence": 1.0,
                   "started_at": None}, annotate=False) == "Ana: hi"


def test_the_llm_describes_units_and_decides_updates_with_rule_fallbacks() -> None:
    from graphmem.ingest.layer import LayerContext
    from graphmem.ingest.layers.episodes.layer import EpisodeLayer
    from graphmem.testing import ScriptedLLM

    turns = [turn(0, "Ana", "I plan to fly to Rome in May.", [1, 0], day=1),
             turn(1, "Ana", "I work at Google.", [0, 1], day=1),
             turn(2, "Ana", "Rome is off, I cancelled the flights.", [0.9, 0.1], day=5)]
    units = build_units(turns, EpisodeConfig())
    llm = ScriptedLLM({
        "episode_unit": [{"summary": "Ana plans a trip to Rome in May 2024.",
                          "tags": ["Rome", "trip"], "confidence": 0.9},
                         "not JSON",
                         {"summary": "Ana cancelled her Rome flights.", "tags": [],
                          "confidence": 1.0}],
        "episode_update": [{"replaced": []}, {"replaced": [1, 7]}]})
    nobody: Any = None
    layer = EpisodeLayer.__new__(EpisodeLayer)
    layer.context = LayerContext(store=nobody, embedder=nobody, llm=llm)
    layer.config = EpisodeConfig()
    notes: list[str] = []
    layer._describe(units, notes)
    assert units[0].summary == "Ana plans a trip to Rome in May 2024."
    assert units[0].tags == ["rome", "trip"] and units[0].confidence == 0.9
    assert units[1].summary == "Ana: I work at Google."  # the unusable reply keeps the extract
    assert units[2].tags and units[2].confidence == 1.0  # no tags from the LLM: its own kept
    assert len(notes) == 1
    # unit 1 is compared with unit 0; unit 2 with units 0 and 1, nearest first (0, then 1)
    assert layer._supersessions(units, notes) == {0: 2}
    shown = llm.calls_for("episode_update")[1].messages[1]["content"]
    assert shown.index("1. [1 March 2024] Ana plans") < shown.index("2. [1 March 2024] Ana: I")
