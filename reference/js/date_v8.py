"""``Date.parse`` and ``new Date(x).getTime()`` as V8 (Node 20) computes them for timestamps.

2.1.88 picks the resumed leaf by the largest parsed timestamp, so the parse
decides which branch survives. The grammar is V8's (``v8_grammar.py``): the ISO
forms with their leniencies and the legacy fallback (``"Jan 2 2026"``,
``"2026/01/02 10:00 PM"``, ``"Thu, 01 Jan 2026 00:00:00 GMT+0100"``, ...).
Times without an offset are local time; the oracle runs with no ``TZ``, i.e.
UTC, and so does this module. Checked against ``node -e`` by
``tests/test_jsdate_node.py``.
"""

from __future__ import annotations

import math
import re
from typing import Any

from rechain.reference.js import v8_grammar
from rechain.reference.js.date_iso import compose, days_in, time_of_number
from rechain.reference.js.values import UNDEFINED, to_string

NAN = math.nan
# the form every writer of a transcript stamps rows with: one ``re`` match, no grammar
_STAMP = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})"
                    r"\.([0-9]{3})Z")


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
        return time_of_number(value)
    if value is UNDEFINED:
        return NAN
    return parse(value)


def _parse_text(text: str) -> float:
    stamp = _STAMP.fullmatch(text)
    if stamp is not None:
        year, month, day, hour, minute, second, millis = map(int, stamp.groups())
        # fields in range read as they are; others (a 31st of February, 24:00) need V8's
        # rules for running on or refusing, in the grammar below
        if 1 <= month <= 12 and 1 <= day <= days_in(year, month) and hour < 24 \
                and minute < 60 and second < 60:
            return compose(year, month, day, hour, minute, second, millis, 0)
    found = v8_grammar.fields(text)
    return NAN if found is None else compose(*found)
