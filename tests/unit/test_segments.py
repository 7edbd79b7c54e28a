"""MMS segments without Neo4j: rounds, the rule-based perspectives, episodic and semantic
statements, unit composition, the settings that choose parts, and the LLM path's fallback."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

from graphmem.config import Settings
from graphmem.errors import ConfigurationError
from graphmem.ingest.layer import with_options
from graphmem.ingest.layers.segments.layer import SegmentLayer
from graphmem.ingest.layers.segments.perspectives import perspectives
from graphmem.ingest.layers.segments.units import (
    SegmentConfig,
    compose,
    llm_segments,
    rounds,
    rule_segments,
)
from graphmem.models import SessionRecord, TurnRecord
from graphmem.providers.nlp import nlp
from graphmem.testing import ScriptedLLM

NAMES = frozenset({"Caroline", "Melanie", "Jon"})


def session(*lines: tuple[str, str]) -> SessionRecord:
    turns = [TurnRecord(source_id=f"D1:{i}", speaker=who, text=text, order=i)
             for i, (who, text) in enumerate(lines)]
    return SessionRecord(key="s1", index=1, started_at=datetime(2023, 5, 8), turns=turns)


def asks(sentence: str) -> list[str]:
    return perspectives(nlp()(sentence)[:], NAMES)


@pytest.mark.parametrize(("sentence", "question"), [
    ("Caroline went to a support group yesterday (7 May 2023).",
     "When did Caroline go to a support group?"),
    ("Caroline researched adoption agencies.", "What did Caroline research?"),
    ("Melanie loves painting landscapes with her kids.", "What does Melanie like?"),
    ("Melanie loves painting landscapes with her kids.", "Who is Melanie's kid?"),
    ("Melanie will go camping in Oregon next month.", "Where will Melanie go?"),
    ("Jon usually runs every morning.", "What does Jon usually do?"),
    ("Caroline is planning to pursue counseling as a career.",
     "What is Caroline planning to do?"),
    ("Jon's sister visited Paris in June.", "Who is Jon's sister?"),
    ("Melanie feels really happy about the art show.", "How does Melanie feel?"),
])
def test_a_statement_gives_the_questions_it_answers(sentence: str, question: str) -> None:
    assert question in asks(sentence)


@pytest.mark.parametrize("sentence", ["Wow, that is great!", "He went there yesterday.",
                                      "Did Caroline go to the park?"])
def test_no_question_without_a_named_subject_or_from_a_question(sentence: str) -> None:
    assert asks(sentence) == []


def test_rounds_of_one_turn_or_a_turn_and_its_reply() -> None:
    s = session(("Caroline", "a"), ("Melanie", "b"), ("Caroline", "c"))
    assert [[t.source_id for t in r.turns] for r in rounds(s, 1)] == [["D1:0"], ["D1:1"],
                                                                       ["D1:2"]]
    assert [[t.source_id for t in r.turns] for r in rounds(s, 2)] == [["D1:0", "D1:1"],
                                                                       ["D1:2"]]


def test_rule_segments_split_events_from_facts() -> None:
    s = session(("Caroline", "I went to a support group yesterday. I love painting."))
    [rnd] = rounds(s, 1)
    found = rule_segments(rnd, ["Caroline went to a support group yesterday (7 May 2023).",
                                "Wow, Caroline loves painting!", "Is it fun?"], NAMES)
    assert found.keywords[:1] == ("support group",)  # what was said, not who said it
    assert found.episodic == ("[8 May 2023] Caroline went to a support group yesterday "
                              "(7 May 2023).",)
    assert found.semantic == ("Caroline loves painting.",)  # the filler and "!" are gone
    assert "What does Caroline like?" in found.perspectives
    assert not any("fun" in p for p in found.perspectives)  # a question answers nothing


def test_units_compose_the_parts_chosen() -> None:
    s = session(("Caroline", "I went to a support group yesterday."))
    [rnd] = rounds(s, 1)
    found = rule_segments(rnd, ["Caroline went to a support group yesterday (7 May 2023)."],
                          NAMES)
    config = SegmentConfig()
    retrieval = compose(config.retrieval, rnd, found, dated=False)
    context = compose(config.context, rnd, found, dated=True)
    assert retrieval.splitlines()[0] == "Caroline: I went to a support group yesterday."
    assert "Keywords" not in retrieval and "Keywords: support group" in context
    assert "Events: [8 May 2023]" in retrieval and "Events:" not in context
    assert context.splitlines()[1].startswith("[8 May 2023] Caroline: I went")
    without = compose(("round", "episodic"), rnd, found, dated=False)
    assert "Keywords" not in without and "Perspectives" not in without


def test_options_choose_parts_and_reject_unknown_ones(monkeypatch: pytest.MonkeyPatch) -> None:
    chosen = with_options(Settings(), "segments", retrieval="episodic, round", round="pair")
    config = SegmentConfig.of(SegmentLayer.read_options(chosen))
    assert config.retrieval == ("round", "episodic") and config.round_turns == 2
    with pytest.raises(ConfigurationError, match=r"GRAPHMEM_SEGMENTS_CONTEXT: .*segment parts"):
        SegmentLayer.read_options(with_options(Settings(), "segments", context="round,summary"))
    with pytest.raises(ConfigurationError, match="GRAPHMEM_SEGMENTS_ROUND"):
        SegmentLayer.read_options(with_options(Settings(), "segments", round="session"))
    with pytest.raises(ConfigurationError, match="no option 'rounds'"):
        SegmentLayer.read_options(with_options(Settings(), "segments", rounds="pair"))
    monkeypatch.setenv("GRAPHMEM_SEGMENTS_ROUND", "pair")  # the variable, as before
    assert SegmentConfig.of(SegmentLayer.read_options(Settings())).round_turns == 2


def test_the_llm_writes_segments_and_a_bad_reply_leaves_the_rules() -> None:
    s = session(("Caroline", "I adopted a dog."), ("Melanie", "Nice!"))
    cut = rounds(s, 1)
    rules = [rule_segments(r, [], NAMES) for r in cut]
    llm = ScriptedLLM({"memory_segments": [
        {"keywords": ["Dog", "adoption"], "perspectives": ["Does Caroline have a pet?"],
         "episodic": ["Caroline adopted a dog before 8 May 2023."], "semantic": []},
        {"keywords": [], "perspectives": [], "episodic": [], "semantic": []}]})
    notes: list[str] = []
    found = llm_segments(llm, cut, ["", cut[0].text()], rules, notes)
    assert found[0].keywords == ("dog", "adoption")
    assert found[0].perspectives == ("Does Caroline have a pet?",)
    assert found[1] == rules[1] and len(notes) == 1 and "D1:1" in notes[0]
    prompt = llm.calls[1].messages[1]["content"]
    assert "Chat date: 8 May 2023" in prompt and "Caroline: I adopted a dog." in prompt
    assert llm.usage()["memory_segments"].fallbacks == 1


def test_eval_spaces_are_keyed_by_the_options_of_the_layers_in_use(tmp_path: Any) -> None:
    from types import SimpleNamespace

    from graphmem.eval.runner import space_prefix

    data = tmp_path / "d.json"
    data.write_text("[]")

    def prefix(round: str = "turn", **settings: Any) -> str:
        chosen = with_options(Settings(**settings), "segments", round=round)
        memory = SimpleNamespace(settings=chosen, embedder=SimpleNamespace(name="e"))
        return space_prefix("locomo", data, memory)  # type: ignore[arg-type]

    assert prefix() != prefix(round="pair")  # segments is a default layer
    assert prefix(ingest_layers="edus") == prefix(ingest_layers="edus", round="pair")
