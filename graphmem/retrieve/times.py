"""What a turn's relative times meant, stated beside the turn in a context.

A turn says "yesterday", "last week" or "two Saturdays ago" under a session dated 8 May 2023,
and a reader has to count back from the header; small models often count wrongly. The
context therefore ends such a line with what each expression denotes, resolved against the
session's day at the precision it was said with:

    Maya: We picked Pepper up from the shelter yesterday. [yesterday: 7 May 2023]

The stored text never changes, and the turn's own words stay verbatim before the note (an
evaluation that looks for them still finds them). A week, a weekend or a weekday is anchored
to the session's day ("the week before 8 May 2023", "Friday 5 May 2023"), a month, a season
or a year is named ("April 2023", "summer 2022", "2022"). What means the session's own day,
month or year ("today", "this month") adds nothing to the header and is not repeated.

Only a closed set of English expressions is resolved (:data:`PATTERN`); anything else,
or a turn without a known day, is left as it was said. The arithmetic is dateutil's
``relativedelta`` (a dependency of dateparser); no model or parser runs at search time.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime, timedelta
from functools import lru_cache

from dateutil.relativedelta import relativedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august",
          "september", "october", "november", "december")
SEASONS = {"spring": 3, "summer": 6, "fall": 9, "autumn": 9, "winter": 12}  # first month
NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
           "seven": 7, "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12,
           "a couple of": 2, "couple of": 2}

_N = r"(?P<n>\d{1,2}|a couple of|couple of|an?|one|two|three|four|five|six|seven|eight|nine|" \
     r"ten|eleven|twelve)"
_UNIT = rf"(?P<unit>day|week(?:end)?|month|year|{'|'.join(WEEKDAYS)})"
_WHAT = rf"(?P<what>week(?:end)?|month|year|{'|'.join(WEEKDAYS)}|{'|'.join(SEASONS)})"
PATTERN = re.compile(
    r"\b(?:(?P<day>the day before yesterday|the day after tomorrow|yesterday|tomorrow|"
    r"last night)"
    rf"|{_N}\s+{_UNIT}s?\s+ago"
    rf"|in\s+(?P<later>\d{{1,2}}|an?|one|two|three|four|five|six|seven|eight|nine|ten)\s+"
    r"(?P<ahead>day|week|month|year)s?"
    rf"|(?P<rel>last|this past|the past|past|this|next|this coming|coming)\s+{_WHAT})\b",
    re.IGNORECASE)
# a month said without a year ("in May"): capitalised, so that "may" the verb is never one
MONTH = re.compile(r"\b(?P<said>(?i:in|since|until|by|during|early|late|last|this|next))\s+"
                   rf"(?P<month>{'|'.join(m.capitalize() for m in MONTHS)})\b"
                   r"(?!\s*,?\s*\d)")


def day_text(value: datetime) -> str:
    return f"{value.day} {value:%B %Y}"


def _before(day: datetime, weekday: int) -> datetime:
    """The last ``weekday`` (0 = Monday) strictly before ``day``."""
    return day - timedelta(days=(day.weekday() - weekday - 1) % 7 + 1)


def _after(day: datetime, weekday: int) -> datetime:
    """The first ``weekday`` strictly after ``day``."""
    return day + timedelta(days=(weekday - day.weekday() - 1) % 7 + 1)


def _weekday(day: datetime, weekday: int) -> str:
    return f"{WEEKDAYS[weekday].capitalize()} {day_text(day)}"


def _season(name: str, year: int) -> str:
    return f"winter {year}/{(year + 1) % 100:02d}" if name == "winter" else f"{name} {year}"


def _ago(n: int, unit: str, base: datetime) -> str | None:
    if unit == "day":
        return day_text(base - timedelta(days=n))
    if unit == "week":
        return f"the week of {day_text(base - timedelta(weeks=n))}"
    if unit == "weekend":
        return f"the weekend of {day_text(_before(base, 5) - timedelta(weeks=n - 1))}"
    if unit == "month":
        return f"{base - relativedelta(months=n):%B %Y}"
    if unit == "year":
        return str(base.year - n)
    weekday = WEEKDAYS.index(unit)
    return _weekday(_before(base, weekday) - timedelta(weeks=n - 1), weekday)


def _ahead(n: int, unit: str, base: datetime) -> str:
    if unit == "day":
        return day_text(base + timedelta(days=n))
    if unit == "week":
        return f"the week of {day_text(base + timedelta(weeks=n))}"
    if unit == "month":
        return f"{base + relativedelta(months=n):%B %Y}"
    return str(base.year + n)


def _relative(rel: str, what: str, base: datetime) -> str | None:
    """``last``/``this``/``next`` (and their variants) with a week, weekend, weekday, month,
    season or year; None for the session's own month or year, or this week."""
    step = -1 if rel in {"last", "this past", "the past", "past"} else \
        1 if rel in {"next", "coming", "this coming"} else 0
    anchor = day_text(base)
    if what == "week":
        return None if step == 0 else f"the week {'before' if step < 0 else 'after'} {anchor}"
    if what == "weekend":
        if step:
            return f"the weekend {'before' if step < 0 else 'after'} {anchor}"
        saturday = base - timedelta(days=base.weekday() - 5) if base.weekday() >= 5 else \
            _after(base, 5)
        return f"the weekend of {day_text(saturday)}"
    if what in WEEKDAYS:
        weekday = WEEKDAYS.index(what)
        if step < 0:
            return _weekday(_before(base, weekday), weekday)
        if step > 0:
            return _weekday(_after(base, weekday), weekday)
        return _weekday(base + timedelta(days=weekday - base.weekday()), weekday)
    if what == "month":
        return None if step == 0 else f"{base + relativedelta(months=step):%B %Y}"
    if what == "year":
        return None if step == 0 else str(base.year + step)
    return _season_of(what, step, base)


def _season_of(name: str, step: int, base: datetime) -> str:
    """The season ``step`` seasons of its name from ``base``: the one under way or last
    begun (-1: the one before it when under way; 0: the nearer of the last and the next)."""
    start = SEASONS[name]
    begun = base.year if datetime(base.year, start, 1) <= base else base.year - 1
    ends = datetime(begun, start, 1) + relativedelta(months=3)
    current = base < ends
    if step < 0:
        year = begun - 1 if current else begun
    elif step > 0:
        year = begun + 1
    else:
        upcoming = datetime(begun + 1, start, 1)
        year = begun if current or base - ends < upcoming - base else begun + 1
    return _season(name, year)


def _month(name: str, said: str, base: datetime) -> str | None:
    """A month said without a year: after "last" the latest one before the session's month,
    after "next" the first one after it, else its nearest occurrence (the earlier one when
    two are as near); None for the session's own month said plainly."""
    month = MONTHS.index(name.lower()) + 1
    gap = (month - base.month) % 12  # months ahead to its next occurrence (0: this one)
    if said == "last":
        ahead = gap - 12
    elif said == "next":
        ahead = gap or 12
    elif gap == 0:
        return None
    else:
        ahead = gap if gap < 12 - gap else gap - 12
    return f"{datetime(base.year, base.month, 1) + relativedelta(months=ahead):%B %Y}"


def _number(word: str) -> int:
    lowered = word.lower()
    return int(lowered) if lowered.isdigit() else NUMBERS[lowered]


def _resolve(match: re.Match[str], base: datetime) -> str | None:
    said = {k: v.lower() for k, v in match.groupdict().items() if v}
    if "day" in said:
        offset = {"yesterday": -1, "last night": -1, "tomorrow": 1,
                  "the day before yesterday": -2, "the day after tomorrow": 2}[said["day"]]
        return day_text(base + timedelta(days=offset))
    if "unit" in said:
        n = _number(said["n"])
        return _ago(n, said["unit"], base) if n > 0 else None
    if "ahead" in said:
        n = _number(said["later"])
        return _ahead(n, said["ahead"], base) if n > 0 else None
    return _relative(re.sub(r"\s+", " ", said["rel"]), said["what"], base)


Resolver = Callable[[re.Match[str], datetime], str | None]


@lru_cache(maxsize=8192)
def times_note(text: str, base: datetime | None) -> str:
    """`` [expression: what it meant; ...]`` for the relative times ``text`` says, seen from
    ``base`` (its session's day); "" when it says none that ``base`` resolves."""
    if base is None:
        return ""
    day = datetime(base.year, base.month, base.day)
    found: dict[str, str] = {}
    resolvers: tuple[tuple[re.Pattern[str], Resolver], ...] = (
        (PATTERN, _resolve),
        (MONTH, lambda m, b: _month(m.group("month"), m.group("said").lower(), b)))
    spans: list[tuple[int, int]] = []
    for pattern, resolve in resolvers:
        for match in pattern.finditer(text):
            if any(s < match.end() and match.start() < e for s, e in spans):
                continue  # "last May" is the month's, not "last" and "May" twice
            spans.append(match.span())
            meant = resolve(match, day)
            if meant and meant not in found:  # one note for one time, as first said
                found[meant] = re.sub(r"\s+", " ", match.group(0))
    return f" [{'; '.join(f'{k}: {v}' for v, k in found.items())}]" if found else ""
