"""Gold evidence from the dataset files, and reproducible sampling."""

from __future__ import annotations

from dataclasses import replace

from graphmem.eval.datasets import locomo_questions, longmemeval_questions
from graphmem.eval.runner import sample

from helpers import DATA


def test_locomo_evidence_is_split_and_resolved() -> None:
    questions = locomo_questions(DATA / "mini_locomo.json")
    assert [q.category for q in questions] == ["single-hop", "multi-hop"]  # no category 5
    # "D2:1; D2:2" is split; "D9:9" does not exist and is dropped
    assert list(questions[1].evidence) == ["D2:1", "D2:2"]
    assert questions[0].evidence["D1:3"] == "A retired orchestra player named Ilse."


def test_longmemeval_evidence_turns_and_sessions() -> None:
    [q] = longmemeval_questions(DATA / "mini_longmemeval.json")
    assert q.conversation == "q-mini-1" and q.category == "single-session-user"
    assert list(q.evidence) == ["answer_b#0"]
    assert q.extra["answer_sessions"] == ["answer_b"]
    assert q.extra["question_date"] == "2023/06/01 (Thu) 10:00"


def test_sampling_is_reproducible_and_keeps_order() -> None:
    base = locomo_questions(DATA / "mini_locomo.json")[0]
    questions = [replace(base, question=f"question {i}") for i in range(20)]
    first = sample(questions, 5, seed=7)
    assert first == sample(questions, 5, seed=7)
    assert sample(questions, 50, seed=7) == questions
    picked = [questions.index(q) for q in first]
    assert len(first) == 5 and picked == sorted(picked)


def test_multi_party_and_span_datasets_in_locomos_shape() -> None:
    friends = locomo_questions(DATA / "mini_friendsqa.json")
    assert [(q.category, list(q.evidence)) for q in friends] == [
        ("what", ["D1:2"]), ("who", ["D2:1"])]  # string categories, named after the dataset
    [meeting] = locomo_questions(DATA / "mini_qmsum.json")
    assert meeting.category == "specific" and meeting.extra["spans"] == [["D1:1", "D1:4"]]
    assert list(meeting.evidence) == ["D1:1", "D1:2", "D1:4"]  # D1:3 is empty: not stored


def test_multi_party_conversations_load_with_every_speaker() -> None:
    from graphmem.ingest.inputs.loaders import parse_file

    [friends] = parse_file(DATA / "mini_friendsqa.json", "locomo").conversations
    assert friends.speakers == ["Ross Geller", "Monica Geller", "Chandler Bing",
                                "Joey Tribbiani", "Rachel Green", "Phoebe Buffay"]
    meetings = parse_file(DATA / "mini_qmsum.json", "locomo", bad_turns="skip")
    [meeting] = meetings.conversations
    assert [t.source_id for t in meeting.sessions[0].turns] == ["D1:1", "D1:2", "D1:4", "D1:5"]
    assert [w.rsplit(": ", 1)[-1] for w in meetings.warnings] == [
        "skipped empty turn conversation.session_1[2]"]  # the evaluation's policy: skip, say
