"""Dates as people write them in questions, resolved against the conversation's own days:
numeric forms, dates without a year and relative ones, read from the space's latest day."""

from __future__ import annotations

from datetime import datetime

import pytest

from graphmem.providers.nlp import parse
from graphmem.retrieve.base import Query
from graphmem.retrieve.cues import date_span, question_spans
from graphmem.retrieve.fused.candidates import Signals
from graphmem.retrieve.fused.features import FEATURES, analyse, matrix
from graphmem.retrieve.fused.space_index import SpaceTurns, TurnRow

LATEST = datetime(2024, 3, 20)  # a Wednesday


def day(y: int, m: int, d: int) -> tuple[datetime, datetime]:
    return datetime(y, m, d), datetime(y, m, d + 1)


@pytest.mark.parametrize(("question", "span"), [
    ("What did Kate do on 20.01.2024?", day(2024, 1, 20)),
    ("What happened on 1/17?", day(2024, 1, 17)),
    ("Where was she on 2024-01-20?", day(2024, 1, 20)),
    ("What did Tom bake last Saturday?", day(2024, 3, 16)),
    ("What did they do on June 3rd?", day(2023, 6, 3)),  # the last June 3rd before then
    ("Who called two weeks ago?", (datetime(2024, 3, 4), datetime(2024, 3, 11))),
    ("What did she plan for 7 May 2023?", day(2023, 5, 7)),
    ("Where was John on Christmas Eve?", day(2023, 12, 24)),  # the last one before then
    ("What did they cook for Thanksgiving 2022?", day(2022, 11, 24)),
    ("What did Mel bake two weeks before Christmas?",  # 11 December, a week wide around it
     (datetime(2023, 12, 8), datetime(2023, 12, 15))),
    ("What did Jon do three days after 1 May 2023?", (datetime(2023, 5, 4), datetime(2023, 5, 5))),
])
def test_a_questions_date_is_the_day_or_week_it_names(question: str,
                                                     span: tuple[datetime, datetime]) -> None:
    assert question_spans(parse([question])[0], LATEST) == (span,)


@pytest.mark.parametrize("question", ["How many 1.5 liter bottles did he buy?",
                                      "What is 3/4 of the recipe?", "What did Kate bake?"])
def test_numbers_that_are_not_dates_name_no_date(question: str) -> None:
    assert question_spans(parse([question])[0], LATEST) == ()


def test_an_occasion_counted_from_is_the_last_whose_time_has_come() -> None:
    before_christmas = (datetime(2023, 12, 8), datetime(2023, 12, 15))
    assert question_spans(parse(["What did Mel bake two weeks before Christmas?"])[0],
                          datetime(2023, 12, 20)) == (before_christmas,)  # this year's
    assert question_spans(parse(["What did Mel bake two weeks before Christmas?"])[0],
                          datetime(2023, 12, 1)) == (  # not yet: the year before
        (datetime(2022, 12, 8), datetime(2022, 12, 15)),)
    assert question_spans(parse(["Where did they go at the World Cup?"])[0], LATEST) == ()


def test_without_the_conversations_day_a_date_needs_its_year() -> None:
    assert date_span("last Saturday") is None and date_span("1/17") is None
    assert date_span("20.01.2024") == day(2024, 1, 20)


def test_the_fused_date_feature_reads_a_relative_date_against_the_space() -> None:
    rows = [TurnRow(f"t{i}", "Tom", text, None, f"D{i}:0", 0, None, f"s{i}", i, when, None)
            for i, (text, when) in enumerate([("I baked rye bread.", datetime(2024, 3, 16)),
                                              ("I baked scones.", LATEST)])]
    table = SpaceTurns(rows)
    assert table.latest == LATEST
    query = Query("What did Tom bake last Saturday?", None)  # type: ignore[arg-type]
    asked = analyse(query, table.latest)  # the question's vector is not read here
    x = matrix(table, Signals(sources=("bm25",)), asked, [0, 1])
    assert x[:, FEATURES.index("date_match")].tolist() == [1.0, 0.0]
