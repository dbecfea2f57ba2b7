"""2.1.88's JSONL parse under Node: BOM, LF split, JS ``trim()``, ``JSON.parse``, skip bad lines.

The npm bundle runs on Node, not Bun, so ``parseJSONL`` takes its fallback:
each LF-separated line is decoded on its own (bad UTF-8 becomes U+FFFD), trimmed
with JavaScript's whitespace set (NBSP, form feed, U+FEFF, ... included) and
parsed; a line that does not parse is dropped without a word.
"""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import msgspec
import orjson

from rechain.reference.js.jsonparse import JsonError, parse_text
from rechain.reference.js.text import JS_SPACE
from rechain.reference.model import Diagnostic
from rechain.reference.profiles.claude_code_2_1_88.glanced import (
    LIGHT_GLANCE,
    SEED_GLANCE,
    Light,
    glanced,
    light,
    progress,
)
from rechain.reference.read import line_spans

BOM = b"\xef\xbb\xbf"
JSON_SPACE = " \t\n\r"
_HEAD = 1 << 16
_VALUE_START = frozenset('{["-0123456789tfn')


def numbered_lines(data: bytes, first: int = 1) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, bytes) of each LF-separated piece, a leading BOM removed."""
    if data.startswith(BOM):
        data = data[3:]
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    return enumerate(pieces, first)


def line_views(data: bytes, first: int = 1) -> Iterator[tuple[int, memoryview]]:
    """``numbered_lines`` as views into ``data``: no line is copied."""
    return ((number, line) for number, line, _ in placed_views(data, first))


def placed_views(data: bytes, first: int = 1) -> Iterator[tuple[int, memoryview, int]]:
    """``line_views`` with each line's offset in ``data`` (a BOM is not part of a line)."""
    view = memoryview(data)
    skip = 3 if data.startswith(BOM) else 0
    return ((number, view[start:end], start)
            for number, start, end in line_spans(data, first, skip))


@dataclass(frozen=True, slots=True)
class Spans:
    """Where the lines handed to ``parse_values`` start in their UTF-8 buffer: line
    ``n`` at ``starts[n - first]``. With it, a user or assistant row is kept undecoded
    (``glanced.Glanced``)."""

    buffer: bytes
    starts: Sequence[int]
    first: int = 1


def parse_values(
    lines: Iterable[tuple[int, bytes | memoryview]], diagnostics: list[Diagnostic],
    trimmed: bool = True, spans: Spans | None = None, progress_glanced: bool = False,
    light_before: int = 0,
) -> Iterator[tuple[int, Any]]:
    """Every line that ``JSON.parse`` accepts, as (line number, value); others reported.
    ``trimmed`` off (before 2.1.39): no JS ``trim()`` first, so only JSON's own
    whitespace may surround the value.

    A line orjson takes as it is gets that value without being decoded to text: a
    valid UTF-8 line whose value only JSON whitespace surrounds is the same after
    ``trim()``. A long line no value can start on is refused from its first characters.
    With ``spans``, a user or assistant row whose glance answers what the loader reads is
    yielded undecoded (``glanced.Glanced``: msgspec accepts a line only where
    ``JSON.parse`` of its trimmed text does, and gives the same fields). With
    ``progress_glanced`` too, a progress row whose bridge fields the glance decides is
    yielded as them (``glanced.Progress``), for a release that reads nothing else of it.
    A user or assistant row on a line before ``light_before`` (with ``spans``) is glanced
    at only for what the dispatch and the preserved-segment prune read
    (``glanced.Light``); the loader reads one the prune keeps again (``upgrade``).
    """
    loads, decode_error = orjson.loads, orjson.JSONDecodeError
    spaces = JS_SPACE if trimmed else JSON_SPACE
    peek, refused_glance = SEED_GLANCE.decode, (msgspec.DecodeError, RecursionError)
    peek_light = LIGHT_GLANCE.decode
    buffer, starts, first = (spans.buffer, spans.starts, spans.first) if spans is not None \
        else (b"", (), 0)
    previous = None  # the last glanced row's uuid (lightly or not): most rows' parent
    for number, raw in lines:
        if spans is not None:
            if number < light_before:
                try:
                    glimpse = peek_light(raw)
                except refused_glance:
                    glimpse = None
                if glimpse is not None:
                    row = light(buffer, starts[number - first], number, glimpse, previous)
                    if row is not None:
                        previous = row.uuid
                        yield number, row
                        continue
                    if progress_glanced:  # its bridge fields are all the glance reads
                        bridged = progress(glimpse)
                        if bridged is not None:
                            yield number, bridged
                            continue
            try:
                seen = peek(raw)
            except refused_glance:
                seen = None
            if seen is not None:
                row = glanced(buffer, starts[number - first], number, seen, previous)
                if row is not None:
                    previous = seen.uuid
                    yield number, row
                    continue
                if progress_glanced:
                    bridged = progress(seen)
                    if bridged is not None:
                        yield number, bridged
                        continue
        # before orjson, which would copy a view of the line (after the glances, which
        # refuse such a line without a copy, as they refuse any that is not JSON)
        refused = _refused_at_once(raw, spaces) if len(raw) > _HEAD else None
        if refused is not None:
            diagnostics.append(Diagnostic(number, "invalid-json", f"not JSON: {refused}"))
            continue
        try:
            value = loads(raw)
        except (decode_error, RecursionError):
            pass
        else:
            yield number, value
            continue
        text = str(raw, "utf-8", "replace").strip(spaces)
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


def upgrade(row: Light, spans: Spans, diagnostics: list[Diagnostic], trimmed: bool = True,
            progress_glanced: bool = False) -> Any:
    """What ``parse_values`` yields for the line of a ``Light`` row read in full."""
    data, start = spans.buffer, row.start
    stop = data.find(b"\n", start)
    raw = memoryview(data)[start : len(data) if stop == -1 else stop]
    for _, value in parse_values([(row.line, raw)], diagnostics, trimmed, spans,
                                 progress_glanced):
        return value
    raise AssertionError("a line the light glance accepted is JSON")


def _refused_at_once(raw: bytes | memoryview, spaces: str) -> JsonError | None:
    """The parser's error when no JSON value can start the trimmed line, from its first
    64 KiB alone (a gigabyte of NUL bytes is never decoded); None: parse it whole."""
    head = codecs.getincrementaldecoder("utf-8")("replace").decode(memoryview(raw)[:_HEAD])
    head = head.lstrip(spaces)
    if not head or head[0] in _VALUE_START:
        return None
    return JsonError(f"unexpected character {head[0]!r}", 0)
