"""What a question says of who, when and where: CAST's filters on retrieved scenes.

- persons: spaCy PERSON entities and proper nouns of the question that name a character of
  the space (rapidfuzz, as ingestion merges names);
- dates: DATE entities with a year, resolved by dateparser to the day, month
  or year they name (a relative date, or a month without its year, has nothing to count from
  and is left out); occasions with their year ("Thanksgiving 2023", :mod:`occasions`);
- places: GPE, LOC and FAC entities.

A scene passes a filter when it has every person named among its participants (else, any of
them), overlaps a date named, or is at a
place named. A filter whose cue the question lacks is not applied, and one that would leave no
scene is dropped (a question's cue can be wrong: spaCy reads "May" as a month in "May I ...").
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any, TypeVar

from graphmem.providers.nlp import parse
from graphmem.retrieve.occasions import counted_spans, occasion_span
from graphmem.text import Cast, place_key

MONTHS = {m.lower() for m in calendar.month_name if m}
_YEAR = re.compile(r"\b(1[89]|20)\d{2}\b")
_DAY = re.compile(r"\b\d{1,2}(st|nd|rd|th)?\b")
S = TypeVar("S")


@dataclass(frozen=True)
class Cues:
    persons: tuple[str, ...] = ()  # character keys
    spans: tuple[tuple[datetime, datetime], ...] = ()  # [start, end) of each date named
    places: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.persons or self.spans or self.places)


_NUMERIC_DATE = re.compile(r"(?<![\d.,/-])(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}"
                           r"(?:[./]\d{2,4})?)(?![\d/]|[.,]\d)")
# a number like 1/17 or 20.01 is a date only after a word that asks for one ("on 1/17"), or
# with its year: "3/4 of it" and "1.5 litres" are not
_BEFORE_DATE = re.compile(r"\b(?:on|since|from|until|till|by|before|after|around|of)\s+$",
                          re.IGNORECASE)
_PERIODS = ("day", "week", "month", "year")
# dateparser's parsers but "no-spaces-time" (digits run together, "20240120"): that one
# costs most of a call (2.8 against 0.36 ms a date here) and reads nothing a question says
_PARSERS = ["timestamp", "relative-time", "custom-formats", "absolute-time"]


@lru_cache(maxsize=1024)
def date_span(text: str, base: datetime | None = None) -> tuple[datetime, datetime] | None:
    """The day, week, month or year a date expression names, as [start, end) (dateparser).
    An expression without a year ("1/17", "June 3", "last Saturday", "two weeks ago") is read
    against ``base``, the conversation's latest day, as the last such date on or before it;
    without a base it names nothing (now is no base for a conversation's past). Dotted dates
    are day first (20.01.2024), slashed ones month first unless that cannot be (17/1)."""
    from dateparser.date import DateDataParser

    lowered = text.lower()
    if _YEAR.search(lowered) is None and base is None:
        return None
    settings: dict[str, Any] = {"PREFER_DAY_OF_MONTH": "first", "PREFER_DATES_FROM": "past",
                                "RETURN_AS_TIMEZONE_AWARE": False, "PARSERS": _PARSERS}
    if base is not None:
        settings["RELATIVE_BASE"] = base.replace(tzinfo=None)
    if re.fullmatch(r"\s*\d{1,2}\.\d{1,2}(\.\d{2,4})?\s*", text):
        settings["DATE_ORDER"] = "DMY"
    found = DateDataParser(languages=["en"], settings=settings).get_date_data(text)
    when, period = found.date_obj, found.period or "day"
    if when is None or period not in _PERIODS:
        return None
    if period == "year" or (_YEAR.fullmatch(lowered.strip()) is not None):
        return datetime(when.year, 1, 1), datetime(when.year + 1, 1, 1)
    if period == "month":
        start = datetime(when.year, when.month, 1)
        return start, datetime(when.year + (when.month == 12), when.month % 12 + 1, 1)
    day = datetime(when.year, when.month, when.day)
    if period == "week":
        start = day - timedelta(days=day.weekday())
        return start, start + timedelta(days=7)
    return day, day + timedelta(days=1)


def question_spans(doc: Any, base: datetime | None = None
                   ) -> tuple[tuple[datetime, datetime], ...]:
    """The dates a parsed question names: spaCy's DATE entities and numeric dates it may
    read as numbers (``1/17``, ``20.01.2024``, ``2024-01-20``), each as :func:`date_span`
    reads it against ``base``; occasions ("at Christmas", "Thanksgiving 2023") and times
    counted from one or from a date ("two weeks before Christmas"), :mod:`occasions`."""
    counted, used = counted_spans(doc, base, date_span)
    ents = [e for e in doc.ents if e.start not in used]
    said = [e.text for e in ents if e.label_ == "DATE"]
    said += [m.group(1) for m in _NUMERIC_DATE.finditer(doc.text)
             if not any(m.group(1) in s for s in said)
             and (_YEAR.search(m.group(1)) or _BEFORE_DATE.search(doc.text[:m.start()]))]
    spans = [*counted, *(date_span(t, base) for t in said)]
    spans += [occasion_span(e.text, base) for e in ents
              if e.label_ in {"DATE", "EVENT"} and date_span(e.text, base) is None]
    return tuple(dict.fromkeys(s for s in spans if s))


def question_cues(question: str, cast: Cast) -> Cues:
    doc = parse([question])[0]
    named = [e.text for e in doc.ents if e.label_ == "PERSON"]
    named += [t.text for t in doc if t.pos_ == "PROPN"]
    persons = tuple(dict.fromkeys(k for n in named for k in cast.match(n)))
    spans = question_spans(doc)
    places = tuple(dict.fromkeys(e.text for e in doc.ents if e.label_ in {"GPE", "LOC", "FAC"}))
    return Cues(persons, spans, places)


def _overlaps(start: datetime | None, end: datetime | None,
              spans: Sequence[tuple[datetime, datetime]]) -> bool:
    if start is None:
        return False
    last = end or start
    return any(start < hi and last >= lo for lo, hi in spans)


def _at(place: str | None, places: Iterable[str]) -> bool:
    if not place:
        return False
    from rapidfuzz import fuzz

    return any(fuzz.ratio(place_key(place), place_key(p)) >= 85 for p in places)


def apply(scenes: Sequence[S], cues: Cues, *, participants: Callable[[S], Iterable[str]],
          span: Callable[[S], tuple[Any, Any]], place: Callable[[S], str | None]) -> list[S]:
    """``scenes`` (ranked) that pass every applicable filter, in their order."""
    kept = list(scenes)
    tests: list[Callable[[S], bool]] = []
    if cues.persons:  # every person named, else any of them
        named = set(cues.persons)
        tests.append(lambda s: named <= set(participants(s)))
        tests.append(lambda s: bool(named & set(participants(s))))
    if cues.spans:
        tests.append(lambda s: _overlaps(*span(s), cues.spans))
    if cues.places:
        tests.append(lambda s: _at(place(s), cues.places))
    for test in tests:
        narrowed = [s for s in kept if test(s)]
        if narrowed:
            kept = narrowed
    return kept
