"""``Date.parse`` and ``new Date(x).getTime()`` as V8 (Node 20) computes them for timestamps.

2.1.88 picks the resumed leaf by the largest parsed timestamp, so the parse
decides which branch survives. Covered: the ISO forms V8 accepts (with its
leniencies: day up to 31 in any month, ``24:00``, any number of fraction
digits, lower-case ``t``/``z``, a space for ``T``, offsets with or without a
colon). Anything else is NaN. Times without an offset are local time; the
oracle runs with no ``TZ``, i.e. UTC, and so does this module.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rechain.reference.civil import days_from_civil
from rechain.reference.js import UNDEFINED, to_string

NAN = math.nan
_ISO = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{1,2})(?:-(\d{1,2}))?)?"
    r"(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d+))?)?)?"
    r"([Zz]|[+-]\d{2}:?\d{2})?"
)
_MAX_MS = 8.64e15


def parse(value: Any) -> float:
    """``Date.parse(value)``: milliseconds since the epoch, or NaN."""
    if value is UNDEFINED or value is None or type(value) in (dict, list):
        text = "[object Object]" if type(value) is dict else to_string(value)
    else:
        text = value if type(value) is str else to_string(value)
    return _parse_text(text)


def get_time(value: Any) -> float:
    """``new Date(value).getTime()``: numbers are taken as they are, null is 0."""
    if value is None:
        return 0.0
    if value is True or value is False:
        return float(value)
    if type(value) in (int, float):
        number = float(value)
        return NAN if not math.isfinite(number) or abs(number) > _MAX_MS else float(int(number))
    if value is UNDEFINED:
        return NAN
    return parse(value)


def _parse_text(text: str) -> float:
    match = _ISO.fullmatch(text)
    if match is None:
        return NAN
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction, zone = match.groups()
    if year_s == "-000000":
        return NAN
    year = int(year_s)
    month = int(month_s) if month_s else 1
    day = int(day_s) if day_s else 1
    hour = int(hour_s) if hour_s else 0
    minute = int(minute_s) if minute_s else 0
    second = int(second_s) if second_s else 0
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    if not (1 <= month <= 12 and 1 <= day <= 31 and minute <= 59 and second <= 59):
        return NAN
    if hour > 24 or (hour == 24 and (minute or second or millis)):
        return NAN
    days = days_from_civil(year, month, 1) + day - 1
    total = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if zone and zone not in ("Z", "z"):
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        offset = int(digits[:2]) * 60 + int(digits[2:])
        total -= sign * offset * 60_000
    return float(total) if abs(total) <= _MAX_MS else NAN
