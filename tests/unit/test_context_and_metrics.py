"""Token counting, budget packing and evidence recall on hand-computed cases."""

from __future__ import annotations

from datetime import datetime

import pytest

from graphmem.eval.metrics import covered_turns, evidence_recall, percentile
from graphmem.models import Hit
from graphmem.retrieve.packing import count_tokens, pack
from graphmem.text import render_turn


def hit(hid: str, text: str, sources: list[str] | None = None) -> Hit:
    return Hit(id=hid, kind="turn", text=text, score=1.0, source_turn_ids=[hid],
               source_ids=sources if sources is not None else [hid])


def test_count_tokens_words_and_punctuation() -> None:
    assert count_tokens("Hello, world!") == 4
    assert count_tokens("[8 May 2023] Ana: it's 5pm.") == 12  # [ 8 May 2023 ] Ana : it ' s 5pm .
    assert count_tokens("   ") == 0


def test_render_turn() -> None:
    when = datetime(2023, 5, 8, 13, 56)
    assert render_turn("Ana", "Hi", when) == "[8 May 2023] Ana: Hi"
    assert render_turn("Ana", "Look", None, "a cat") == "Ana: Look [shares an image: a cat]"


def test_pack_skips_a_unit_that_does_not_fit_and_tries_the_next() -> None:
    hits = [hit("a", "one two three"), hit("b", "four five six seven"), hit("c", "eight")]
    packed = pack(hits, budget=4)
    assert packed.included == ["a", "c"]
    assert packed.tokens == 4
    assert packed.context == "one two three\neight"


def test_recall_counts_verbatim_text_and_small_source_lists() -> None:
    evidence = {"D1:1": "I adopted a cat.", "D1:2": "Her name is Miso.",
                "D2:5": "We moved to Porto."}
    summary = hit("ev", "Episode about pets and moving.", ["D1:1", "D1:2", "D2:5", "D2:6"])
    small = hit("edu", "Ana has a cat named Miso.", ["D1:2"])
    verbatim = hit("t", "[1 May 2023] Ana: We moved to Porto.", ["other"])
    assert covered_turns([summary], summary.text, evidence) == set()  # 4 sources: no credit
    assert covered_turns([small], small.text, evidence) == {"D1:2"}
    assert covered_turns([verbatim], verbatim.text, evidence) == {"D2:5"}
    # budget 12 holds `small` (8 tokens) but not `verbatim` (13), so 1 of 3 is covered
    assert evidence_recall([small, verbatim], 12, evidence) == pytest.approx(1 / 3)
    assert evidence_recall([small, verbatim], 21, evidence) == pytest.approx(2 / 3)


def test_a_short_text_is_covered_through_its_source_only() -> None:
    # a meeting's span holds many "OK ." turns: one "OK ." line covers only itself
    evidence = {"D1:3": "OK .", "D1:7": "OK .", "D1:9": "Mm - hmm ."}
    line = hit("t", "A: OK .", ["D1:3"])
    assert covered_turns([line], line.text, evidence) == {"D1:3"}


def test_percentile_interpolates() -> None:
    assert percentile([1, 2, 3, 4], 50) == 2.5
    assert percentile([10], 95) == 10
    assert percentile(range(1, 101), 95) == pytest.approx(95.05)
