"""spaCy parses remembered by text, and safe to ask for from several threads at once."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from graphmem.providers import nlp


def _shape(doc: object) -> list[tuple[str, str, str]]:
    return [(t.text, t.pos_, t.dep_) for t in doc]  # type: ignore[attr-defined]


def test_a_text_is_parsed_once_and_threads_get_what_one_thread_gets() -> None:
    texts = [f"Maya met {name} at the pottery class on Tuesday number {i}."
             for i, name in enumerate(["Jonas", "Lena", "Ravi", "Ama"] * 6)]
    alone = [_shape(d) for d in nlp.parse(texts)]
    first = nlp.parse(texts[:1])[0]
    assert nlp.parse(texts[:1])[0] is first  # remembered, not parsed again
    nlp._memo.clear()
    with ThreadPoolExecutor(4) as pool:
        together = list(pool.map(lambda t: _shape(nlp.parse([t])[0]), texts))
    assert together == alone


def test_the_memory_is_bounded(monkeypatch: object) -> None:
    import pytest

    assert isinstance(monkeypatch, pytest.MonkeyPatch)
    monkeypatch.setattr(nlp, "_MEMO_SIZE", 3)
    nlp._memo.clear()
    docs = nlp.parse(["one cat", "two dogs", "three birds", "four fish", "one cat"])
    assert len(docs) == 5 and docs[0].text == docs[4].text == "one cat"
    assert len(nlp._memo) <= 3
