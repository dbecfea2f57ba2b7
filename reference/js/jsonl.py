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

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from rechain.reference.js.jsonparse import JsonError, parse_prefix
from rechain.reference.lazyrows import valid_utf8
from rechain.reference.read import NumberedLines

_JSON_WS = " \t\r\n"
_WS_BYTES = frozenset(b" \t\r\n")
# the first byte of any JSON value; a line starting with another byte fails at once
_VALUE_START = frozenset(b'{["-0123456789tfn')
_GLANCE_REFUSED = (msgspec.DecodeError, RecursionError)


@dataclass(frozen=True, slots=True)
class Value:
    """One parsed JSON value, the 1-based line it starts on and the line it ends on."""

    line: int
    value: Any
    last: int = 0  # 0: the value ends on ``line``


# a line that is one JSON object, only glanced at: (its line, what the glance read of it,
# where it starts in the buffer; its bytes end at the next LF). A tuple: one per line of
# a long file, built in C
Glanced = tuple[int, Any, int]


@dataclass(frozen=True, slots=True)
class Skipped:
    """Text the reader skipped: after a syntax error, or after a value on its line."""

    line: int
    reason: str
    after_value: bool = False


def join_lines(lines: Iterable[tuple[int, bytes]]) -> tuple[bytes, int, Sequence[int]]:
    """The buffer the lines came from, how many of its bytes are the lines joined again,
    and the line number of each LF-separated piece.

    Lines that are a whole buffer (``NumberedLines.whole``) are that buffer: no copy of it
    (the lines joined again lack the file's last LF, so they end one byte early).
    """
    if isinstance(lines, NumberedLines) and lines.whole():
        data = lines.data
        end = len(data) - 1 if data.endswith(b"\n") else len(data)
        return data, end, Consecutive(data, end, lines.first_line)
    pieces: list[bytes] = []
    numbers: list[int] = []
    for number, raw in lines:
        pieces.append(raw)
        numbers.append(number)
    joined = b"\n".join(pieces)
    return joined, len(joined), numbers


class Consecutive(Sequence[int]):
    """The line numbers of a whole buffer's pieces (``data[:end]`` split at LF): piece
    ``i`` is line ``first + i``. How many there are is counted when first asked, from
    where the reader stopped counting when it has read the buffer (``counted``): a
    count of every line feed of 100 MB costs a fifth of parsing it."""

    __slots__ = ("data", "end", "first", "size")

    def __init__(self, data: bytes, end: int, first: int) -> None:
        self.data, self.end, self.first = data, end, first
        self.size: int | None = None

    def counted(self, offset: int, feeds: int) -> None:
        """The reader found ``feeds`` line feeds before ``offset``."""
        if self.size is None and self.data:
            self.size = feeds + self.data.count(b"\n", offset, self.end) + 1

    def piece(self, number: int) -> int:
        """Which piece line ``number`` is (counting none)."""
        return number - self.first

    def _numbers(self) -> range:
        if self.size is None:
            self.size = self.data.count(b"\n", 0, self.end) + 1 if self.data else 0
        return range(self.first, self.first + self.size)

    def __len__(self) -> int:
        return len(self._numbers())

    def __getitem__(self, at: Any) -> Any:
        return self._numbers()[at]

    def __iter__(self) -> Iterator[int]:
        return iter(self._numbers())


def decode(data: bytes | memoryview) -> tuple[str, bool]:
    """UTF-8 text of the buffer (U+FFFD for invalid bytes) and whether any was replaced."""
    try:
        return str(data, "utf-8"), False
    except UnicodeDecodeError:
        return str(data, "utf-8", "replace"), True


def read_values(data: bytes, numbers: Sequence[int], end: int | None = None,
                glance: Callable[[memoryview], Any] | None = None
                ) -> Iterator[Value | Glanced | Skipped]:
    """Every value the CLI's reader yields from ``data[:end]``, and every stretch it skipped.

    A UTF-8 buffer is read in place, line by line, and decoded to text only where a line
    needs the exact parser (an error, a value across lines, text after a value): a file
    as large as the machine's memory costs no copy of itself. Any other buffer is decoded
    whole first, U+FFFD for its bad bytes, as ``Buffer.toString`` does.

    With ``glance`` (a msgspec decoder of some fields, ``lazyrows.Glance``), a line of a
    UTF-8 buffer that starts an object is first glanced at: a line it accepts is one
    object and JSON whitespace, what ``JSON.parse`` of the line accepts too, and is
    yielded as a ``Glanced`` tuple, undecoded; any line it refuses goes the usual way.
    """
    end = len(data) if end is None else end
    if valid_utf8(data):
        return _read_bytes(data, end, numbers, glance)
    view = memoryview(data)[:end]
    return _read_text(decode(view)[0], numbers)


class _Lines:
    """Line numbers of offsets that only grow: the LFs between two offsets counted once."""

    def __init__(self, data: bytes | str, numbers: Sequence[int]) -> None:
        self.data, self.numbers = data, numbers
        self.offset = self.index = 0
        # a whole buffer's pieces are numbered from its first line on, however many
        self.first = numbers.first if isinstance(numbers, Consecutive) else None

    def of(self, offset: int) -> int:
        if offset > self.offset:
            self.index += self.data.count("\n" if type(self.data) is str else b"\n",  # type: ignore[arg-type]
                                          self.offset, offset)
            self.offset = offset
        if self.first is not None:
            return self.first + self.index
        numbers = self.numbers
        return numbers[self.index] if self.index < len(numbers) else numbers[-1] + 1


class _Text:
    """The buffer's text where the exact parser needs it, and character offsets of bytes.

    Offsets asked only grow, so each is counted from the last one; the whole text is
    decoded once, the first time a value needs more than its own line.
    """

    def __init__(self, data: bytes, end: int) -> None:
        self.data, self.end = data, end
        self.at_byte = self.at_char = 0
        self.known_ascii: bool | None = None  # found out when first needed
        self.whole: str | None = None

    @property
    def ascii(self) -> bool:
        if self.known_ascii is None:
            self.known_ascii = self.data.isascii()
        return self.known_ascii

    def char(self, offset: int) -> int:
        """The character offset of byte ``offset`` (a character boundary)."""
        if offset == 0 or self.ascii:
            return offset
        if offset > self.at_byte:
            self.at_char += len(str(memoryview(self.data)[self.at_byte:offset], "utf-8"))
            self.at_byte = offset
        return self.at_char

    def byte(self, start: int, text: str, begin: int, stop: int) -> int:
        """The byte offset of character ``stop`` of ``text``, whose character ``begin`` is
        byte ``start``."""
        return start + (stop - begin if self.ascii else len(text[begin:stop].encode()))

    def text(self) -> str:
        if self.whole is None:
            self.whole = str(memoryview(self.data)[:self.end], "utf-8")
        return self.whole


def _error(error: JsonError, shift: int) -> str:
    """The message of ``error`` raised ``shift`` characters into the text."""
    reason = str(error).removesuffix(f" at character {error.offset}")
    return str(JsonError(reason, error.offset + shift))


def _needs_more(error: JsonError, window: str) -> bool:
    """Whether the parse failed only because the line ended: the text after it decides."""
    return (error.offset >= len(window) or str(error).startswith("unexpected end of input")
            or str(error).startswith("Unterminated string"))


def _read_bytes(data: bytes, end: int, numbers: Sequence[int],
                glance: Callable[[memoryview], Any] | None = None
                ) -> Iterator[Value | Glanced | Skipped]:
    """``_read_text`` on the bytes of a UTF-8 buffer (same values, lines and messages; a
    line ``glance`` accepts as ``Glanced``)."""
    lines = _Lines(data, numbers)
    text = _Text(data, end)
    view = memoryview(data)
    find, loads, refused = data.find, orjson.loads, (orjson.JSONDecodeError, RecursionError)
    pos = 3 if data.startswith(b"\xef\xbb\xbf") and end >= 3 else 0
    while True:
        while pos < end and data[pos] in _WS_BYTES:
            pos += 1
        if pos >= end:
            if isinstance(numbers, Consecutive):
                numbers.counted(lines.offset, lines.index)
            return
        newline = find(b"\n", pos, end)
        line_end = end if newline == -1 else newline
        # a line that starts where the count stopped (most): its number without a count
        number = lines.first + lines.index if pos == lines.offset and lines.first is not None \
            else lines.of(pos)
        first = data[pos]
        if first == 0x7B and glance is not None:  # an object: glanced, kept undecoded
            try:
                seen = glance(view[pos:line_end])
            except _GLANCE_REFUSED:
                pass
            else:
                yield (number, seen, pos)
                if line_end < end:  # its LF counted here: the next line's number is known
                    lines.offset, lines.index = line_end + 1, lines.index + 1
                    pos = line_end + 1
                else:
                    lines.offset = pos = line_end
                continue
        if first in _VALUE_START:
            try:  # the fast path: the whole line is one value
                value = loads(view[pos:line_end])
            except refused:
                pass
            else:
                lines.offset = line_end  # no LF before it: the next count starts there
                yield Value(number, value)
                pos = line_end
                continue
        else:  # no value starts here: the exact parser fails on this character
            size = 1 if first < 0x80 else 2 if first < 0xE0 else 3 if first < 0xF0 else 4
            char = str(view[pos:pos + size], "utf-8")
            yield Skipped(number, str(JsonError(f"unexpected character {char!r}",
                                                text.char(pos))))
            pos = end if newline == -1 else newline + 1  # the line feed after it, found
            continue
        shift = text.char(pos)
        window = str(view[pos:line_end], "utf-8")
        source, begin = window, 0
        try:
            value, after = parse_prefix(window, 0)
        except JsonError as error:
            if not _needs_more(error, window):
                yield Skipped(number, _error(error, shift))
                pos = _next_byte_line(data, pos, end)
                continue
            source, begin = text.text(), shift
            try:
                value, after = parse_prefix(source, begin)
            except JsonError as error:
                yield Skipped(number, str(error))
                pos = _next_byte_line(data, pos, end)
                continue
        after_byte = text.byte(pos, source, begin, after)
        yield Value(number, value, lines.of(max(after_byte - 1, pos)))
        rest = after_byte
        while rest < end and data[rest] in b" \t\r":
            rest += 1
        if rest < end and data[rest] != 0x0A:
            yield Skipped(lines.of(rest), "text after the value on its line", after_value=True)
            pos = _next_byte_line(data, rest, end)
        else:
            pos = rest


def _next_byte_line(data: bytes, offset: int, end: int) -> int:
    newline = data.find(b"\n", offset, end)
    return end if newline == -1 else newline + 1


def _read_text(text: str, numbers: Sequence[int]) -> Iterator[Value | Skipped]:
    """The reader on a decoded buffer (one that was not UTF-8)."""
    lines = _Lines(text, numbers)
    pos = 1 if text.startswith("\ufeff") else 0
    end = len(text)
    while True:
        while pos < end and text[pos] in _JSON_WS:
            pos += 1
        if pos >= end:
            return
        newline = text.find("\n", pos)
        line_end = end if newline == -1 else newline
        number = lines.of(pos)
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
        yield Value(number, value, lines.of(max(after - 1, pos)))
        rest = after
        while rest < end and text[rest] in " \t\r":
            rest += 1
        if rest < end and text[rest] != "\n":
            yield Skipped(lines.of(rest), "text after the value on its line", after_value=True)
            pos = _next_line(text, rest)
        else:
            pos = rest


def _next_line(text: str, offset: int) -> int:
    newline = text.find("\n", offset)
    return len(text) if newline == -1 else newline + 1
