"""``new Date(value).getTime()`` for parsed JSON values, as the CLI's timestamp rules use it.

The 2.1.332 binary runs on Bun (JavaScriptCore); ``reference/seed/jsdate.py`` models
V8 under Node for 2.1.88. The engines accept different date strings, so the two
modules stay apart; this one covers the ISO forms the CLI's own rows carry.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rechain.reference.civil import days_from_civil

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
        number = float(value)
        return math.trunc(number) if math.isfinite(number) and abs(number) <= _LIMIT else NAN
    if type(value) is not str:
        return NAN
    return _parse_iso(value)


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
    if not (1 <= month <= 12) or day < 1 or day > _days_in(year, month):
        return NAN
    if hour > 24 or minute > 59 or second > 59 or (hour == 24 and (minute or second)):
        return NAN
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    if hour == 24 and millis:
        return NAN
    days = days_from_civil(year, month, day)
    total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if zone and zone != "Z":
        sign = 1 if zone[0] == "+" else -1
        total -= sign * (int(zone[1:3]) * 60 + int(zone[4:6])) * 60_000
    return float(total) if abs(total) <= _LIMIT else NAN


def _days_in(year: int, month: int) -> int:
    if month == 2:
        return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28
    return 30 if month in (4, 6, 9, 11) else 31
