"""The CLI's JSONL reader (``Bun.JSONL.parseChunk``), reproduced from what it does.

Unlike ``JSON.parse`` per line, the reader streams values through the whole
buffer: it keeps the first value of a line and ignores whatever follows it on
that line (a lone CR, a form feed, a second object), lets one value span
several lines, and after a syntax error resumes after the line feed that ends
the line the broken value starts on (so a truncated row never eats the next).
A BOM at the start of the file is skipped, and a buffer that is not valid
UTF-8 is decoded with U+FFFD first (``Buffer.toString``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from rechain.reference.js.jsonparse import JsonError, parse_prefix
from rechain.reference.read import NumberedLines

_JSON_WS = " \t\r\n"


@dataclass(frozen=True, slots=True)
class Value:
    """One parsed JSON value, the 1-based line it starts on and the line it ends on."""

    line: int
    value: Any
    last: int = 0  # 0: the value ends on ``line``


@dataclass(frozen=True, slots=True)
class Skipped:
    """Text the reader skipped: after a syntax error, or after a value on its line."""

    line: int
    reason: str
    after_value: bool = False


def join_lines(lines: Iterable[tuple[int, bytes]]) -> tuple[bytes | memoryview, Sequence[int]]:
    """The buffer the lines came from, and the line number of each LF-separated piece.

    Lines that are a whole buffer (``NumberedLines``) are that buffer: no copy of it.
    """
    if isinstance(lines, NumberedLines):
        data = lines.data
        count = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        # the lines joined again lack the file's last LF: a view without it, not a copy
        joined = memoryview(data)[:-1] if data.endswith(b"\n") else data
        return joined, range(lines.first_line, lines.first_line + count)
    pieces: list[bytes] = []
    numbers: list[int] = []
    for number, raw in lines:
        pieces.append(raw)
        numbers.append(number)
    return b"\n".join(pieces), numbers


def decode(data: bytes | memoryview) -> tuple[str, bool]:
    """UTF-8 text of the buffer (U+FFFD for invalid bytes) and whether any was replaced."""
    try:
        return str(data, "utf-8"), False
    except UnicodeDecodeError:
        return str(data, "utf-8", "replace"), True


def read_values(data: bytes | memoryview, numbers: Sequence[int]) -> Iterator[Value | Skipped]:
    """Every value the CLI's reader yields from ``data``, and every stretch it skipped."""
    text, _ = decode(data)
    starts = [0]
    at = text.find("\n")
    while at != -1:
        starts.append(at + 1)
        at = text.find("\n", at + 1)
    pos = 1 if text.startswith("\ufeff") else 0
    end = len(text)
    line_index = 0

    def line_of(offset: int) -> int:
        nonlocal line_index
        while line_index + 1 < len(starts) and starts[line_index + 1] <= offset:
            line_index += 1
        return numbers[line_index] if line_index < len(numbers) else numbers[-1] + 1

    while True:
        while pos < end and text[pos] in _JSON_WS:
            pos += 1
        if pos >= end:
            return
        newline = text.find("\n", pos)
        line_end = end if newline == -1 else newline
        number = line_of(pos)
        try:  # the fast path: the whole line is one value
            yield Value(number, orjson.loads(text[pos:line_end]))
            pos = line_end
            continue
        except (orjson.JSONDecodeError, RecursionError):
            pass
        try:
            value, after = parse_prefix(text, pos)
        except JsonError as error:
            yield Skipped(number, str(error))
            pos = _next_line(text, pos)  # the line feed after the value's start
            continue
        yield Value(number, value, line_of(max(after - 1, pos)))
        rest = after
        while rest < end and text[rest] in " \t\r":
            rest += 1
        if rest < end and text[rest] != "\n":
            yield Skipped(line_of(rest), "text after the value on its line", after_value=True)
            pos = _next_line(text, rest)
        else:
            pos = rest


def _next_line(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline == -1 else newline + 1
