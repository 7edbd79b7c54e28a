"""Segmentation and answer metrics on cases computed by hand (the arithmetic is in comments)."""

from __future__ import annotations

import pytest

from graphmem.eval.metrics import answer_recall, answer_words
from graphmem.eval.qa_metrics import bleu1, locomo_f1, locomo_normalize, token_set_f1
from graphmem.eval.segmentation import evaluate, pk, segment_ids, window_diff, window_size


def test_segment_ids_and_window() -> None:
    assert segment_ids([3], 6) == [0, 0, 0, 1, 1, 1]
    assert window_size([3], 6) == 1  # mean length 3, half 1.5, rounded down
    assert window_size([4], 8) == 2


def test_pk_and_windowdiff_one_off_boundary() -> None:
    # ref 000111, hyp 001111, k=1: windows (1,2) and (2,3) disagree out of 5
    assert pk([3], [2], 6, 1) == pytest.approx(0.4)
    assert window_diff([3], [2], 6, 1) == pytest.approx(0.4)


def test_pk_and_windowdiff_extra_boundary() -> None:
    # ref 00001111, hyp 00001122, k=2: windows starting at 4 and 5 disagree out of 6
    assert pk([4], [4, 6], 8, 2) == pytest.approx(2 / 6)
    assert window_diff([4], [4, 6], 8, 2) == pytest.approx(2 / 6)
    assert pk([4], [4], 8, 2) == 0.0


def test_evaluate_pools_f1_and_averages_pk_wd() -> None:
    scores = evaluate([([3], [2], 6), ([4], [4, 6], 8)])
    # F1 pooled: 1 hit, 3 predicted, 2 gold -> P 1/3, R 1/2 -> 0.4
    assert scores.f1 == pytest.approx(0.4)
    assert scores.pk == pytest.approx((0.4 + 1 / 3) / 2)
    assert scores.wd == pytest.approx((0.4 + 1 / 3) / 2)
    # Score = (2*0.4 + (1 - 0.36667) + (1 - 0.36667)) / 4
    assert scores.score == pytest.approx((0.8 + 2 * (1 - (0.4 + 1 / 3) / 2)) / 4)
    assert scores.n_dialogues == 2


def test_token_set_f1() -> None:
    assert token_set_f1("Paris, France.", "paris") == pytest.approx(2 / 3)  # P 1/2, R 1
    assert token_set_f1("7 May 2023", "7 May, 2023") == 1.0
    assert token_set_f1("no idea", "Paris") == 0.0


def test_locomo_f1_by_category() -> None:
    assert locomo_normalize("The cats, and dogs!") == "cats dogs"
    assert locomo_f1("The cats!", "cat", "single-hop") == 1.0  # stemmed: cat = cat
    # multi-hop: gold parts painting (best 1.0) and swimming (0.0) -> 0.5
    assert locomo_f1("hiking, painting", "painting, swimming", "multi-hop") == pytest.approx(0.5)
    # open-domain keeps the gold before ';': [like, yes] vs [yes] -> P 1, R 1/2
    assert locomo_f1("yes", "likely yes; because she said so", "open-domain") == pytest.approx(
        2 / 3)


def test_bleu1_clips_and_penalises_brevity() -> None:
    assert bleu1("a b c", "a b c d e") == pytest.approx(0.513417, abs=1e-6)  # exp(1 - 5/3)
    assert bleu1("the the the", "the cat") == pytest.approx(1 / 3)  # clipped 1 of 3, no penalty
    assert bleu1("", "x") == 0.0


def test_recall_plots_start_at_zero_and_segmentation_keeps_directions_apart() -> None:
    from graphmem.eval.report import recall_figure, segmentation_figure

    recall = {"dataset": "locomo", "strategies": {
        "a": {"evidence_recall": {"1000": 0.71, "2000": 0.78}},
        "b": {"evidence_recall": {"1000": 0.69, "2000": None}}}}
    fig = recall_figure(recall)
    [ax] = fig.axes
    assert ax.get_ylim() == (0, 100)
    assert [list(line.get_ydata()) for line in ax.get_lines()] == [[71.0, 78.0], [69.0]]
    seg = {"methods": {m: {"pk": 0.3, "wd": 0.35, "f1": 0.5, "score": 0.6}
                       for m in ("x", "y")}}
    lower, higher = segmentation_figure(seg).axes
    assert "lower is better" in lower.get_title() and "higher is better" in higher.get_title()
    assert [t.get_text() for t in lower.get_legend().get_texts()] == ["Pk", "WindowDiff"]
    assert [t.get_text() for t in higher.get_legend().get_texts()] == ["boundary F1", "Score"]
    assert lower.get_ylim() == higher.get_ylim() == (0, 1)


def test_answer_recall_counts_the_answer_words_the_question_does_not_give_away() -> None:
    words = answer_words("Adoption agencies, in the city",
                         "What did Caroline research in the city?")
    assert words == {"adoption", "agencies"}  # stop words and the question's own words go
    assert answer_recall("Caroline: I looked into adoption agencies last week.", words) == 1.0
    assert answer_recall("[8 May 2023]\nCaroline researched ADOPTION law.", words) == 0.5
    assert answer_recall("agencies-adoption", words) == 1.0  # words, whatever joins them
    assert answer_recall("adoptions", words) == 0.0  # a whole word, not a part of one
    assert answer_words("Caroline", "Who went to the group, Caroline?") == set()
    with pytest.raises(ValueError, match="no answer recall"):
        answer_recall("anything", set())
