"""Mutations of a transcript at line and byte-encoding level.

Each operation takes the file's lines (without their LF) and a seeded
``random.Random`` and returns new lines. They make what real files contain
after crashes, concurrent writers and editors: lines dropped, repeated,
reordered, torn or joined; blank and whitespace lines; CRLF, lone CR and a
BOM; invalid UTF-8; JSON that is not an object; numbers JavaScript reads
differently; huge and deeply nested lines. Standard library only.
"""

from __future__ import annotations

import random
from collections.abc import Callable

Lines = list[bytes]
LineOp = Callable[[Lines, random.Random], Lines]

BLANKS = (b"", b" ", b"\t", b"\r", b"\x0c", b"  \t ", b"\x00", b"\x1f", b"\xc2\xa0")
NON_OBJECTS = (
    b"[]",
    b"[{}]",
    b'"text"',
    b"42",
    b"-0",
    b"null",
    b"true",
    b"false",
    b"{}",
    b"[null]",
)
ODD_NUMBERS = (
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"1e400",
    b"9007199254740993",
    b"-0",
    b"0.0",
    b"1E2",
)
BAD_UTF8 = (
    b"\xff",
    b"\xc3",
    b"\xe2\x82",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xc0\xaf",
    b"\x80",
)
BOM = b"\xef\xbb\xbf"


def _pick(lines: Lines, rng: random.Random) -> int:
    return rng.randrange(len(lines)) if lines else 0


def drop(lines: Lines, rng: random.Random) -> Lines:
    if not lines:
        return lines
    del lines[_pick(lines, rng)]
    return lines


def duplicate(lines: Lines, rng: random.Random) -> Lines:
    if lines:
        at = _pick(lines, rng)
        lines.insert(rng.randrange(len(lines) + 1), lines[at])
    return lines


def swap(lines: Lines, rng: random.Random) -> Lines:
    if len(lines) > 1:
        a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[a], lines[b] = lines[b], lines[a]
    return lines


def move(lines: Lines, rng: random.Random) -> Lines:
    if len(lines) > 1:
        line = lines.pop(_pick(lines, rng))
        lines.insert(rng.randrange(len(lines) + 1), line)
    return lines


def tear(lines: Lines, rng: random.Random) -> Lines:
    """Cut a line short, as a writer killed mid-line leaves it (often the last one)."""
    if lines:
        at = len(lines) - 1 if rng.random() < 0.5 else _pick(lines, rng)
        line = lines[at]
        lines[at] = line[: rng.randrange(len(line) + 1)]
    return lines


def join(lines: Lines, rng: random.Random) -> Lines:
    """Two lines on one (a lost LF)."""
    if len(lines) > 1:
        at = rng.randrange(len(lines) - 1)
        lines[at : at + 2] = [lines[at] + lines[at + 1]]
    return lines


def blank(lines: Lines, rng: random.Random) -> Lines:
    lines.insert(rng.randrange(len(lines) + 1), rng.choice(BLANKS) * rng.randint(1, 3))
    return lines


def crlf(lines: Lines, rng: random.Random) -> Lines:
    """CRLF line ends, on every line or one."""
    if rng.random() < 0.5:
        return [line + b"\r" for line in lines]
    if lines:
        at = _pick(lines, rng)
        lines[at] += b"\r"
    return lines


def lone_cr(lines: Lines, rng: random.Random) -> Lines:
    """A CR where an LF should be: two entries on one LF-delimited line."""
    if len(lines) > 1:
        at = rng.randrange(len(lines) - 1)
        lines[at : at + 2] = [lines[at] + b"\r" + lines[at + 1]]
    return lines


def bom(lines: Lines, rng: random.Random) -> Lines:
    at = 0 if rng.random() < 0.7 or not lines else _pick(lines, rng)
    if lines:
        lines[at] = BOM + lines[at]
    else:
        lines.append(BOM)
    return lines


def leading_bytes(lines: Lines, rng: random.Random) -> Lines:
    """Bytes up to 0x20 before a line (the SDK skips them) or just above (it does not)."""
    if lines:
        at = _pick(lines, rng)
        lines[at] = bytes([rng.choice((0x00, 0x09, 0x0B, 0x1F, 0x20, 0x21, 0x7F))]) + lines[at]
    return lines


def bad_utf8(lines: Lines, rng: random.Random) -> Lines:
    if lines:
        at = _pick(lines, rng)
        line = lines[at]
        cut = rng.randrange(len(line) + 1)
        lines[at] = line[:cut] + rng.choice(BAD_UTF8) + line[cut:]
    return lines


def not_an_object(lines: Lines, rng: random.Random) -> Lines:
    """A JSON value that is not an object: replace a line, wrap it in an array, or add one."""
    choice = rng.random()
    if lines and choice < 0.4:
        at = _pick(lines, rng)
        lines[at] = b"[" + lines[at] + b"]"
    elif lines and choice < 0.7:
        lines[_pick(lines, rng)] = rng.choice(NON_OBJECTS)
    else:
        lines.insert(rng.randrange(len(lines) + 1), rng.choice(NON_OBJECTS))
    return lines


def _colons(line: bytes, limit: int = 64) -> list[int]:
    """Offsets of the first ``limit`` colons (found in C, not byte by byte in Python)."""
    found: list[int] = []
    at = line.find(b":")
    while at >= 0 and len(found) < limit:
        found.append(at)
        at = line.find(b":", at + 1)
    return found


def odd_number(lines: Lines, rng: random.Random) -> Lines:
    """Replace a value after a colon with NaN, a huge number or another JS-specific number."""
    if lines:
        at = _pick(lines, rng)
        line = lines[at]
        colons = _colons(line)
        if colons:
            start = rng.choice(colons) + 1
            end = start
            while end < len(line) and line[end] not in b",}]":
                end += 1
            lines[at] = line[:start] + rng.choice(ODD_NUMBERS) + line[end:]
    return lines


def deep(lines: Lines, rng: random.Random) -> Lines:
    """A deeply nested array or object, as a whole line or as one entry's field."""
    depth = rng.choice((100, 255, 256, 1024, 1025, 3000))
    if rng.random() < 0.5:
        value = b"[" * depth + b"]" * depth
    else:
        value = b'{"a":' * depth + b"1" + b"}" * depth
    if lines and rng.random() < 0.6:
        at = _pick(lines, rng)
        line = lines[at]
        if line.endswith(b"}"):
            lines[at] = line[:-1] + b',"deep":' + value + b"}"
            return lines
    lines.insert(rng.randrange(len(lines) + 1), value)
    return lines


#: the operations that make sense on one line (the line parser's harnesses)
ONE_LINE_OPS: tuple[LineOp, ...] = (
    tear,
    crlf,
    bom,
    leading_bytes,
    bad_utf8,
    not_an_object,
    odd_number,
    deep,
)
LINE_OPS: tuple[LineOp, ...] = (
    drop,
    duplicate,
    swap,
    move,
    tear,
    join,
    blank,
    crlf,
    lone_cr,
    bom,
    leading_bytes,
    bad_utf8,
    not_an_object,
    odd_number,
    deep,
)
