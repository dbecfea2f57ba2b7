"""2.1.88's JSONL parse under Node: BOM, LF split, JS ``trim()``, ``JSON.parse``, skip bad lines.

The npm bundle runs on Node, not Bun, so ``parseJSONL`` takes its fallback:
each LF-separated line is decoded on its own (bad UTF-8 becomes U+FFFD), trimmed
with JavaScript's whitespace set (NBSP, form feed, U+FEFF, ... included) and
parsed; a line that does not parse is dropped without a word.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import orjson

from rechain.reference.js.jsonparse import JsonError, parse_text
from rechain.reference.js.text import JS_SPACE
from rechain.reference.model import Diagnostic

BOM = b"\xef\xbb\xbf"
JSON_SPACE = " \t\n\r"


def numbered_lines(data: bytes, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) of each LF-separated piece, a leading BOM removed."""
    if data.startswith(BOM):
        data = data[3:]
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    return enumerate(pieces, first)


def parse_values(
    lines: Iterable[tuple[int, bytes]], diagnostics: list[Diagnostic], trimmed: bool = True
) -> Iterator[tuple[int, Any]]:
    """Every line that ``JSON.parse`` accepts, as (line number, value); others reported.
    ``trimmed`` off (before 2.1.39): no JS ``trim()`` first, so only JSON's own
    whitespace may surround the value."""
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    for number, raw in lines:
        text = raw.decode("utf-8", "replace")
        text = text.strip(JS_SPACE) if trimmed else text.strip(JSON_SPACE)
        if not text:
            continue
        try:
            value = loads(text)
        except (decode_error, RecursionError):
            try:
                value = parse_text(text)
            except (JsonError, RecursionError) as error:
                diagnostics.append(Diagnostic(number, "invalid-json", f"not JSON: {error}"))
                continue
        yield number, value
