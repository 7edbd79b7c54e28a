"""Relative times resolved for the context (graphmem/retrieve/times.py)."""

from __future__ import annotations

from datetime import datetime

import pytest

from graphmem.retrieve.times import times_note

MONDAY = datetime(2023, 5, 8, 13, 56)  # a session of Monday 8 May 2023, in the afternoon
SUNDAY = datetime(2023, 5, 14)
NEW_YEAR = datetime(2024, 1, 3)  # a Wednesday


@pytest.mark.parametrize(("text", "base", "note"), [
    ("I went to a support group yesterday.", MONDAY, "[yesterday: 7 May 2023]"),
    ("Last night was fun", MONDAY, "[Last night: 7 May 2023]"),
    ("the day before yesterday", MONDAY, "[the day before yesterday: 6 May 2023]"),
    ("See you tomorrow!", MONDAY, "[tomorrow: 9 May 2023]"),
    ("We went camping last week.", MONDAY, "[last week: the week before 8 May 2023]"),
    ("the past week was long", MONDAY, "[the past week: the week before 8 May 2023]"),
    ("next week", MONDAY, "[next week: the week after 8 May 2023]"),
    ("I ran a race last Sunday", MONDAY, "[last Sunday: Sunday 7 May 2023]"),
    ("I ran a race last Sunday", SUNDAY, "[last Sunday: Sunday 7 May 2023]"),
    ("next Friday", MONDAY, "[next Friday: Friday 12 May 2023]"),
    ("two Saturdays ago we met", MONDAY, "[two Saturdays ago: Saturday 29 April 2023]"),
    ("a couple of days ago", MONDAY, "[a couple of days ago: 6 May 2023]"),
    ("3 weeks ago", MONDAY, "[3 weeks ago: the week of 17 April 2023]"),
    ("in two weeks", MONDAY, "[in two weeks: the week of 22 May 2023]"),
    ("this past weekend", MONDAY, "[this past weekend: the weekend before 8 May 2023]"),
    ("this weekend", MONDAY, "[this weekend: the weekend of 13 May 2023]"),
    ("this weekend", SUNDAY, "[this weekend: the weekend of 13 May 2023]"),
    ("four years ago", MONDAY, "[four years ago: 2019]"),
    ("last month", NEW_YEAR, "[last month: December 2023]"),
    ("next year", MONDAY, "[next year: 2024]"),
    ("last summer", MONDAY, "[last summer: summer 2022]"),
    ("this summer I will", MONDAY, "[this summer: summer 2023]"),
    ("last winter", NEW_YEAR, "[last winter: winter 2022/23]"),
    ("In August we'll see", MONDAY, "[In August: August 2023]"),
    ("back in December", NEW_YEAR, "[in December: December 2023]"),
    ("last May was fun", MONDAY, "[last May: May 2022]"),
    ("next May", MONDAY, "[next May: May 2024]"),
    # one note per time, as first said
    ("next month, maybe in June", MONDAY, "[next month: June 2023]"),
    ("last weekend, and last night", MONDAY,
     "[last weekend: the weekend before 8 May 2023; last night: 7 May 2023]"),
])
def test_a_relative_time_is_resolved_at_the_precision_it_was_said(
        text: str, base: datetime, note: str) -> None:
    assert times_note(text, base) == f" {note}"


@pytest.mark.parametrize("text", [
    "today is good",  # the session's own day, month and year are its header's
    "this month has been busy", "this year", "this week",
    "I may go, or I might not",  # "may" the verb is no month
    "in May 2021 we met",  # a month with its year needs nothing
    "once a week", "I'll do it next", "last but not least",
    "0 days ago",
])
def test_what_the_header_says_or_no_time_gets_no_note(text: str) -> None:
    assert times_note(text, MONDAY) == ""


def test_a_turn_without_a_day_gets_no_note() -> None:
    assert times_note("I went yesterday", None) == ""
