"""``new Date(value).getTime()`` for parsed JSON values, as the CLI's timestamp rules use it.

The 2.1.332 binary runs on Bun (JavaScriptCore); ``reference/js/date_v8.py`` models
V8 under Node for 2.1.88. The engines accept different date strings, so their
grammars stay apart; this one covers the ISO forms the CLI's own rows carry. What
both share lives here: the time-of-day check (``24:00`` only exactly) and the
composition of fields into a clipped epoch time (``compose``).
"""

from __future__ import annotations

import math
import re
from typing import Any

from rechain.reference.js.civil import days_from_civil

_ISO = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?(Z|[+-]\d{2}:\d{2})?)?"
)
_LIMIT = 8.64e15
NAN = math.nan


def time_of(value: Any) -> float:
    """Milliseconds since the epoch, or NaN; ISO strings only (the CLI runs with TZ=UTC)."""
    if value is None or value is False:
        return 0.0
    if value is True:
        return 1.0
    if isinstance(value, int | float):
        return time_of_number(value)
    if type(value) is not str:
        return NAN
    return _parse_iso(value)


def time_of_number(value: float) -> float:
    """``new Date(number).getTime()``: truncated toward zero, NaN beyond ±8.64e15 ms."""
    number = float(value)
    return float(math.trunc(number)) if math.isfinite(number) and abs(number) <= _LIMIT else NAN


def _parse_iso(text: str) -> float:
    match = _ISO.fullmatch(text)
    if match is None:
        return NAN
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction, zone = match.groups()
    if year_s == "-000000":
        return NAN
    year = int(year_s)
    month = int(month_s or 1)
    day = int(day_s or 1)
    hour, minute, second = int(hour_s or 0), int(minute_s or 0), int(second_s or 0)
    if not (1 <= month <= 12) or day < 1 or day > days_in(year, month):
        return NAN
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    if not time_of_day_ok(hour, minute, second, millis):
        return NAN
    offset = None
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[4:6]) * 60)
    return compose(year, month, day, hour, minute, second, millis, offset)


def time_of_day_ok(hour: int, minute: int, second: int, millis: int) -> bool:
    """Hours 0-23, minutes and seconds 0-59, ms 0-999; ``24:00:00.000`` is the next midnight."""
    if (hour, minute, second, millis) == (24, 0, 0, 0):
        return True
    return 0 <= hour <= 23 and 0 <= minute <= 59 and 0 <= second <= 59 and 0 <= millis <= 999


def compose(year: int, month: int, day: int, hour: int, minute: int, second: int, millis: int,
            offset_seconds: int | None) -> float:
    """Epoch ms of the fields (a day past the month's end runs on), minus the offset, clipped.

    ``offset_seconds`` None is local time, which is UTC here (the oracles run without TZ).
    """
    days = days_from_civil(year, month, 1) + day - 1
    total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if offset_seconds is not None:
        total -= offset_seconds * 1000
    return float(total) if abs(total) <= _LIMIT else NAN


def days_in(year: int, month: int) -> int:
    """The days of a month of the proleptic Gregorian calendar."""
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31
