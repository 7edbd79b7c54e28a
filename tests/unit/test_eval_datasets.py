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
