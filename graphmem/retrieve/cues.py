"""What a question says of who, when and where: CAST's filters on retrieved scenes.

- persons: spaCy PERSON entities and proper nouns of the question that name a character of
  the space (rapidfuzz, as ingestion merges names);
- dates: DATE entities with a year, resolved by dateparser to the day, month
  or year they name (a relative date, or a month without its year, has nothing to count from
  and is left out);
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

from graphmem.nlp import parse
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


@lru_cache(maxsize=1024)
def date_span(text: str) -> tuple[datetime, datetime] | None:
    """The day, month or year a date expression names, as [start, end)."""
    import dateparser

    lowered = text.lower()
    has_year = _YEAR.search(lowered) is not None
    month = next((m for m in MONTHS if re.search(rf"\b{m}\b", lowered)), None)
    if not has_year:  # "in June" names no year, and now is no base for a conversation's past
        return None
    when = dateparser.parse(text, languages=["en"],  # guessing the language is slow
                            settings={"PREFER_DAY_OF_MONTH": "first",
                                      "RETURN_AS_TIMEZONE_AWARE": False})
    if when is None:
        return None
    if month is None:
        return datetime(when.year, 1, 1), datetime(when.year + 1, 1, 1)
    if not _DAY.search(_YEAR.sub("", lowered)):  # a month without a day
        start = datetime(when.year, when.month, 1)
        return start, datetime(when.year + (when.month == 12), when.month % 12 + 1, 1)
    day = datetime(when.year, when.month, when.day)
    return day, day + timedelta(days=1)


def question_cues(question: str, cast: Cast) -> Cues:
    doc = parse([question])[0]
    named = [e.text for e in doc.ents if e.label_ == "PERSON"]
    named += [t.text for t in doc if t.pos_ == "PROPN"]
    persons = tuple(dict.fromkeys(k for n in named for k in cast.match(n)))
    spans = tuple(s for s in (date_span(e.text) for e in doc.ents if e.label_ == "DATE") if s)
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
