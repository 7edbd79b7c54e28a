"""Dates a question gives by an occasion ("at Christmas", "Thanksgiving 2023") or by a time
counted from one ("two weeks before Christmas", "three days after 1 May 2023").

An occasion's day comes from the ``holidays`` package (the United States' public and
customary days: Christmas Eve, Halloween, Easter, Mother's Day, New Year's Eve among them).
Without a year it is the occasion's last day on or before ``base``, the conversation's latest
day; the offset is counted by dateparser from that day ("two weeks ago" as seen from it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache
from typing import Any

_UNIT_DAYS = {"day": 1, "week": 7, "month": 30, "year": 365}
_AMOUNT = re.compile(r"^\s*(?:(?P<n>\w+)\s+)?(?:of\s+)?(?P<unit>day|week|month|year)s?\s*$",
                     re.IGNORECASE)
_YEAR = re.compile(r"\b(1[89]|20)\d{2}\b")
_PLAIN = re.compile(r"^(the\s+)|(\s+(day|sunday))$|['’]s\b", re.IGNORECASE)
_ONE = {"the", "a", "an", "one", "that"}
Span = tuple[datetime, datetime]


@lru_cache(maxsize=64)
def _calendar(year: int) -> dict[Any, str]:
    import holidays

    days = holidays.country_holidays("US", years=year, categories=("public", "unofficial"))
    return {day: name for day, name in days.items() if "observed" not in name}


def _plain(name: str) -> str:
    return _PLAIN.sub("", _YEAR.sub("", name).strip().lower()).strip()


def occasion_days(name: str, base: datetime | None) -> list[datetime]:
    """The days an occasion's name gives, newest first: in the year the name says, else in
    ``base``'s year and the one before (none without either). The closest name wins:
    "Christmas" is Christmas Day, not Christmas Eve."""
    wanted = _plain(name)
    if len(wanted) < 3:
        return []
    said = _YEAR.search(name)
    if said:
        years = [int(said.group(0))]
    elif base is not None:
        years = [base.year, base.year - 1]
    else:
        return []
    found: list[datetime] = []
    for year in years:
        named = [(len(_plain(n)) - len(wanted), day) for day, n in _calendar(year).items()
                 if re.search(rf"\b{re.escape(wanted)}\b", _plain(n))]
        if named:
            closest = min(extra for extra, _ in named)
            found += [datetime(d.year, d.month, d.day) for extra, d in named if extra == closest]
    return sorted(found, reverse=True)


def occasion_span(name: str, base: datetime | None) -> Span | None:
    """The day of an occasion named alone ("at Christmas"), the last on or before ``base``."""
    days = _on_or_before(occasion_days(name, base), base)
    return (days, days + timedelta(days=1)) if days else None


def counted_span(amount: str, way: str, anchor: Span, base: datetime | None) -> Span | None:
    """The time ``amount`` ("two weeks", "the day", "3 months") ``way`` ("before" or
    "after") the start of ``anchor``, as a span one unit wide around it."""
    from dateparser import parse

    match = _AMOUNT.match(amount)
    if match is None or way.lower() not in {"before", "after"}:
        return None
    n = match.group("n") or "1"
    n = "1" if n.lower() in _ONE else n
    unit = match.group("unit").lower()
    said = f"{n} {unit}s ago" if way.lower() == "before" else f"in {n} {unit}s"
    when = parse(said, languages=["en"], settings={"RELATIVE_BASE": anchor[0],
                                                    "RETURN_AS_TIMEZONE_AWARE": False})
    if when is None:
        return None
    day = datetime(when.year, when.month, when.day)
    half = timedelta(days=_UNIT_DAYS[unit] // 2)
    return day - half, day - half + timedelta(days=_UNIT_DAYS[unit])


def counted_spans(doc: Any, base: datetime | None,
                  date_span: Callable[[str, datetime | None], Span | None]
                  ) -> tuple[list[Span], set[int]]:
    """The times a parsed question counts from an occasion or a date ("two weeks before
    Christmas": a DATE entity, "before" or "after", then an entity naming a day), read with
    ``date_span`` for dates; and the entities so used (their start tokens), which name
    nothing alone."""
    spans: list[Span] = []
    used: set[int] = set()
    ents = {e.start: e for e in doc.ents}
    for amount in doc.ents:
        if amount.label_ != "DATE" or amount.end >= len(doc):
            continue
        way = doc[amount.end]
        anchor = ents.get(amount.end + 1)
        if way.lower_ not in {"before", "after"} or anchor is None:
            continue
        days = occasion_days(anchor.text, base)
        from_day = (days[-1], days[-1]) if days else date_span(anchor.text, base)
        if from_day is None:
            continue
        if days:  # the newest occasion whose counted time is not after base
            options = [counted_span(amount.text, way.text, (d, d), base) for d in days]
            fits = [s for s in options if s and (base is None or s[0] <= base)]
            span = fits[0] if fits else options[-1]
        else:
            span = counted_span(amount.text, way.text, from_day, base)
        if span is not None:
            spans.append(span)
            used |= {amount.start, anchor.start}
    return spans, used


def _on_or_before(days: list[datetime], base: datetime | None) -> datetime | None:
    if not days:
        return None
    fits = [d for d in days if base is None or d <= base]
    return fits[0] if fits else days[-1]
