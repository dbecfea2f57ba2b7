"""JavaScript string rules the lite readers depend on: trim, UTF-16 lengths, Date.parse.

Heads and tails are decoded like Node's ``buf.toString("utf8")`` and scanned
as JS strings. Most scanning is index-neutral (ASCII patterns), but prompt
truncation counts UTF-16 code units, ``trim`` has its own whitespace set, and
``createdAt`` comes from ``Date.parse``; these helpers give the JS answers.
"""

from __future__ import annotations

import math
import re
from typing import Any

import orjson

from rechain.reference.js.jsonparse import JsonError, parse_text

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
    """Cut at ``stop`` units but never leave half a surrogate pair."""
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


def date_parse(text: str) -> int | None:
    """``Date.parse`` (V8's ISO forms, shared with the 2.1.88 loader): ms, or None for NaN."""
    from rechain.reference.js import date_v8

    value = date_v8.parse(text)
    return None if math.isnan(value) else int(value)
