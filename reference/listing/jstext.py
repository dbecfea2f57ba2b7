"""JavaScript string rules the lite readers depend on: trim, UTF-16 lengths, Date.parse.

Heads and tails are decoded like Node's ``buf.toString("utf8")`` and scanned
as JS strings. Most scanning is index-neutral (ASCII patterns), but prompt
truncation counts UTF-16 code units, ``trim`` has its own whitespace set, and
``createdAt`` comes from ``Date.parse``; these helpers give the JS answers.
"""

from __future__ import annotations

import calendar
import re
import time
from typing import Any

import orjson

from rechain.reference.jsonparse import JsonError, parse_text

# ECMAScript WhiteSpace + LineTerminator (what String.prototype.trim removes)
JS_SPACE = (
    "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008"
    "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)
JS_SPACE_CLASS = "[" + re.escape(JS_SPACE) + "]"


def trim(text: str) -> str:
    """``String.prototype.trim``."""
    return text.strip(JS_SPACE)


def decode(data: bytes) -> str:
    """Node's ``buf.toString("utf8")``: invalid bytes become U+FFFD."""
    return data.decode("utf-8", "replace")


def utf16_len(text: str) -> int:
    """``text.length`` in JavaScript."""
    if text.isascii():
        return len(text)
    return len(text) + sum(1 for c in text if ord(c) > 0xFFFF)


def utf16_slice(text: str, stop: int) -> str:
    """``text.slice(0, stop)`` by UTF-16 units; a split pair leaves a lone high surrogate."""
    if text.isascii():
        return text[:stop]
    out: list[str] = []
    units = 0
    for char in text:
        if units >= stop:
            break
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > stop:
            out.append(chr(0xD800 + ((ord(char) - 0x10000) >> 10)))
            break
        out.append(char)
        units += width
    return "".join(out)


def truncate_whole(text: str, stop: int) -> str:
    """The SDK's ``Gs``: cut at ``stop`` units but never leave half a surrogate pair."""
    cut = utf16_slice(text, stop)
    if cut and 0xD800 <= ord(cut[-1]) <= 0xDBFF:
        return cut[:-1]
    return cut


def utf16_index(text: str, units: int) -> int:
    """The code-point index of the character at UTF-16 offset ``units`` (clamped)."""
    if units <= 0:
        return 0
    if text.isascii():
        return min(units, len(text))
    seen = 0
    for index, char in enumerate(text):
        if seen >= units:
            return index
        seen += 2 if ord(char) > 0xFFFF else 1
    return len(text)


def json_parse(text: str) -> Any:
    """``JSON.parse`` of a JS string; raises ``JsonError`` where JavaScript throws."""
    try:
        return orjson.loads(text)
    except (orjson.JSONDecodeError, RecursionError):
        return parse_text(text)


def try_json(text: str) -> tuple[bool, Any]:
    """(parsed, value): ``JSON.parse`` inside a ``try``."""
    try:
        return True, json_parse(text)
    except (JsonError, RecursionError, ValueError):
        return False, None


_ISO = re.compile(
    r"([+-]\d{6}|\d{4})(?:-(\d{2})(?:-(\d{2}))?)?"
    r"(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?",
    re.IGNORECASE,
)


def date_parse(text: str) -> int | None:
    """``Date.parse`` for ISO-8601 strings (V8 rules): ms since the epoch, or None for NaN.

    Date-only forms are UTC; date-times without an offset are local time. Other
    formats V8's legacy parser accepts are reported as None (not reproduced).
    """
    match = _ISO.fullmatch(text.strip())
    if match is None:
        return None
    year_s, month_s, day_s, hour_s, minute_s, second_s, fraction, zone = match.groups()
    if year_s == "-000000":
        return None
    year, month, day = int(year_s), int(month_s or 1), int(day_s or 1)
    hour, minute, second = int(hour_s or 0), int(minute_s or 0), int(second_s or 0)
    if not 1 <= month <= 12:
        return None
    if not 1 <= day <= calendar.monthrange(year if 1 <= year <= 9999 else 2000, month)[1]:
        return None
    if hour > 24 or minute > 59 or second > 59 or (hour == 24 and (minute or second or fraction)):
        return None
    millis = int((fraction or "0")[:3].ljust(3, "0"))
    days = _days_from_civil(year, month, day)
    local = ((days * 24 + hour) * 60 + minute) * 60_000 + second * 1000 + millis
    if zone is None:
        if hour_s is None:
            return local
        return local - _local_offset_ms(local)
    if zone.upper() == "Z":
        return local
    sign = 1 if zone[0] == "+" else -1
    digits = zone[1:].replace(":", "")
    offset = (int(digits[:2]) * 60 + int(digits[2:])) * 60_000
    return local - sign * offset


def _days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 in the proleptic Gregorian calendar (any year)."""
    year -= month <= 2
    era = (year if year >= 0 else year - 399) // 400
    yoe = year - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def _local_offset_ms(local_ms: int) -> int:
    """The process time zone's offset at a local wall time, as V8 applies it."""
    try:
        guess = time.localtime(local_ms / 1000)
    except (OverflowError, OSError, ValueError):
        return 0
    return int(guess.tm_gmtoff) * 1000
