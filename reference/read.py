"""Stage 1, reading: which bytes of the file a reader looks at, line by line.

Small files are read whole. The TS SDK streams files over 5 MiB in 1 MiB
chunks and keeps only what follows the last plain ``compact_boundary`` line;
it also drops ``attribution-snapshot`` lines but the last, which it moves to
the end. Its chunking shows through: a line that straddles a chunk edge is
only recognised as a boundary when it starts with ``{"type":"system"``. This
module reproduces that from the whole buffer with ``bytes.find``, without a
per-line Python loop, and keeps every line's number in the original file.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from itertools import count, islice, repeat
from operator import sub
from typing import Any, NamedTuple

from rechain.reference.js.jsonparse import JsonError, parse_line
from rechain.reference.model import Diagnostic

LARGE_FILE_BYTES = 5 * 1024 * 1024
CHUNK_BYTES = 1024 * 1024
MARKER_WINDOW = 256
BOUNDARY_MARKER = b'"compact_boundary"'
SNAPSHOT_PREFIX = b'{"type":"attribution-snapshot"'
SYSTEM_PREFIX = b'{"type":"system"'


@dataclass(frozen=True, slots=True)
class Source:
    """The lines a reader parses, in the order it parses them, with their numbers."""

    # ``NumberedLines``: lines a read stage chose of the buffer, read in place
    lines: tuple[tuple[int, bytes], ...] | NumberedLines | None
    data: bytes
    # a list when the lines' split finds more (``SnapshotLines``: the dropped snapshots), or
    # ``model.Diagnostics`` when the read stage works them out only when they are read
    diagnostics: Sequence[Diagnostic] = ()
    first_line: int = 1
    found: Any = None  # what a read stage worked out beyond the lines, for its profile's views
    # the buffer's attribution snapshots are left to the split (``SnapshotLines``)
    snapshots: bool = False
    # where each line of ``data`` starts, when the read stage split it already
    starts: list[int] | None = None
    # where the lines read start in ``data`` (``read_from(..., in_place=True)``: the file's
    # own buffer, not a copy of its tail); ``starts`` are then offsets in that buffer
    offset: int = 0
    # the read stage found that none of the lines at ``starts`` is an attribution snapshot
    no_snapshot: bool = False

    def numbered_lines(self) -> Iterable[tuple[int, bytes]]:
        """(1-based number, bytes without the LF); no empty line after a final LF."""
        if self.lines is not None:
            if isinstance(self.lines, NumberedLines):
                return self.lines
            return iter(self.lines)
        if self.snapshots:
            return SnapshotLines(self.data, self.first_line, self.diagnostics,  # type: ignore[arg-type]
                                 self.starts, self.offset,
                                 self.no_snapshot and self.starts is not None)
        return NumberedLines(self.data, self.first_line)


def line_spans(data: bytes, first_line: int = 1, start: int = 0
               ) -> Iterator[tuple[int, int, int]]:
    """(number, start, end) of each line of ``data`` from ``start``: its bytes are
    ``data[start:end]``, its LF (if any) at ``end``; no empty line after a final LF."""
    find = data.find
    end = len(data)
    number = first_line
    while start < end:
        newline = find(b"\n", start)
        if newline == -1:
            newline = end
        yield number, start, newline
        number += 1
        start = newline + 1


class NumberedLines:
    """The lines of a buffer, numbered: (1-based number, bytes without the LF).

    Iterating splits the buffer (a copy of every line). A parser that only
    needs a bytes-like line asks for ``views()`` instead: the same lines as
    memoryviews into the buffer, found with ``bytes.find`` and never copied
    (on a 100 MB file the copies cost more than finding the lines).
    """

    __slots__ = ("data", "first_line")
    offset = 0  # where the first line starts in ``data`` (``SnapshotLines`` may start later)

    def __init__(self, data: bytes, first_line: int = 1) -> None:
        self.data = data
        self.first_line = first_line

    def whole(self) -> bool:
        """Whether the lines are the buffer's own, in order (a reader may take the buffer)."""
        return True

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        pieces = self.data.split(b"\n")
        if pieces and pieces[-1] == b"":
            pieces.pop()
        return enumerate(pieces, self.first_line)

    def in_order(self) -> tuple[int, list[int] | None] | None:
        """Where the lines are the buffer's own in order (``views`` neither drops nor
        moves one): where the first starts and, when already found, where each starts;
        else None. A parser in C walks them without a view made for each. A subclass
        whose ``views`` differs says so itself."""
        return (0, None) if type(self).views is NumberedLines.views else None

    def views(self) -> Iterator[tuple[int, memoryview, int]]:
        """The same lines as ``__iter__``, as memoryviews into the buffer, and each
        line's offset in it."""
        view = memoryview(self.data)
        for number, start, newline in line_spans(self.data, self.first_line):
            yield number, view[start:newline], start


class SnapshotLines(NumberedLines):
    """The lines as the TS SDK reads a large file: attribution snapshots but the last
    dropped, the last read after every other line.

    They are found while the buffer is split (one prefix test per line), not by a scan
    of the whole buffer first. Each full pass puts the dropped snapshots' diagnostics
    in ``sink`` (the ``Source``'s list), replacing those of an earlier pass.
    """

    __slots__ = ("no_snapshot", "offset", "sink", "starts")

    def __init__(self, data: bytes, first_line: int, sink: list[Diagnostic],
                 starts: list[int] | None = None, offset: int = 0,
                 no_snapshot: bool = False) -> None:
        super().__init__(data, first_line)
        self.sink = sink
        self.starts = starts  # where the lines start, when the read stage found them
        self.offset = offset  # where the first line starts in ``data`` (``Source.offset``)
        self.no_snapshot = no_snapshot  # the read stage found no snapshot at ``starts``

    def whole(self) -> bool:
        """No line is a snapshot: nothing is dropped or moved (one scan of the buffer)."""
        if self.no_snapshot:
            return True
        data, offset = self.data, self.offset
        return not data.startswith(SNAPSHOT_PREFIX, offset) and \
            data.find(b"\n" + SNAPSHOT_PREFIX, offset) == -1

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        return ((number, bytes(view)) for number, view, _ in self.views())

    def in_order(self) -> tuple[int, list[int] | None] | None:
        """With the starts the read stage found and no snapshot to drop or move there
        (whose dropped-snapshot findings are then cleared), every line in order."""
        starts = self.starts
        if starts is None or not (self.no_snapshot or not any_snapshot(self.data, starts)):
            return None
        self.sink[:] = [d for d in self.sink if d.kind != "attribution-snapshot"]
        return self.offset, starts

    def views(self) -> Iterator[tuple[int, memoryview, int]]:
        view = memoryview(self.data)
        spans = self.in_order()
        if spans is not None:  # every line in order, each view cut in C
            starts = spans[1]
            assert starts is not None
            return zip(count(self.first_line),
                       map(view.__getitem__, map(slice, starts, self._ends(starts))), starts)
        return self._held_last(view)

    def _held_last(self, view: memoryview) -> Iterator[tuple[int, memoryview, int]]:
        """The lines, snapshots but the last dropped, the last after every other line."""
        prefixed = self.data.startswith
        held: tuple[int, memoryview, int] | None = None
        dropped: list[Diagnostic] = []
        for number, start, newline in self._spans():
            if prefixed(SNAPSHOT_PREFIX, start, newline):
                if held is not None:
                    dropped.append(dropped_snapshot(held[0]))
                held = (number, view[start:newline], start)
            else:
                yield number, view[start:newline], start
        self.sink[:] = [d for d in self.sink if d.kind != "attribution-snapshot"] + dropped
        if held is not None:
            yield held

    def _spans(self) -> Iterator[tuple[int, int, int]]:
        """(number, start, end) of every line: from the starts the read stage found, else
        split here."""
        starts = self.starts
        if starts is not None:
            return zip(count(self.first_line), starts, self._ends(starts))
        return line_spans(self.data, self.first_line, self.offset)

    def _ends(self, starts: list[int]) -> list[int]:
        """Where each line starting at ``starts`` ends (its LF, or the buffer's end)."""
        ends = [*map(sub, islice(starts, 1, None), repeat(1))]
        if starts:
            stop = self.data.find(b"\n", starts[-1])
            ends.append(len(self.data) if stop == -1 else stop)
        return ends



# where the prefix's type name has a byte that is rare there in other lines ('i' of
# "attribution": an "assistant" line has 's', a "user" line '"', a "system" line 'e')
_SNAPSHOT_PROBE = SNAPSHOT_PREFIX.index(b"attribution") + 4
_SNAPSHOT_BYTE = SNAPSHOT_PREFIX[_SNAPSHOT_PROBE]


def any_snapshot(data: bytes, starts: list[int]) -> bool:
    """Whether a line starting at ``starts`` is an attribution snapshot: one byte of each
    line read in C first (a ``startswith`` call a line cost twice as much), the whole
    prefix tested only when some line has the probe's byte there, or ends before it."""
    probe = _SNAPSHOT_PROBE
    cut = bisect_left(starts, len(data) - probe)  # the lines from ``cut`` may end before it
    if _SNAPSHOT_BYTE not in map(data.__getitem__, [start + probe for start in
                                                    islice(starts, cut)]):
        starts = starts[cut:]
    return any(map(data.startswith, repeat(SNAPSHOT_PREFIX), starts))


def read_whole(data: bytes) -> Source:
    """Every line of the file (the Python SDK, the CLI under 5 MiB, ...)."""
    return Source(None, data)


SDK_KEEPING_KEYS = ("preservedSegment", "preservedMessages")


def read_sdk(data: bytes, disable_precompact_skip: bool) -> Source:
    """The TS SDK's read: whole up to 5 MiB, else the pre-compact skip."""
    if len(data) <= LARGE_FILE_BYTES or disable_precompact_skip:
        return read_whole(data)
    tail = tail_lines(data)
    return read_from(data, tail.begin, tail.starts, in_place=True, snapshot=tail.snapshot)


class Tail(NamedTuple):
    """What the split from the end found (``tail_lines``)."""

    begin: int  # where the last plain boundary's line starts (0: none, every line is read)
    starts: list[int]  # where each line from there on starts
    snapshot: bool  # whether one of those lines starts as an attribution snapshot


def tail_lines(data: bytes, keeping: tuple[str, ...] = SDK_KEEPING_KEYS,
               chunk_edges: bool = True, marked: list[int] | None = None) -> Tail:
    """``last_boundary_start`` (``chunk_edges``: as the SDK sees a line across one), the
    start of every line from there on, and whether one is an attribution snapshot: the
    lines are split from the end, each tested where the reader looks for the boundary
    marker, until the last plain boundary. ``marked``: where the lines found to hold the
    marker there start are put, last first.

    One pass that stops at that boundary, and its line starts spare the parser's split:
    a search of the whole buffer for the marker cost a fifth of the floor (its
    characters are all common in JSON, so ``bytes.find`` skips little). Each line is
    tested for a snapshot as the split reaches its start, where its bytes were just read
    (one byte, then the prefix where that byte matches): probing every line's start after
    the split cost 0.01 s of CPU on 40,000 lines, each probe a miss of the caches.
    """
    starts: list[int] = []
    keep = starts.append
    rfind, find, prefixed = data.rfind, data.find, data.startswith
    chunk, window = CHUNK_BYTES, MARKER_WINDOW - 1 + len(BOUNDARY_MARKER)
    probe, probed = _SNAPSHOT_PROBE, _SNAPSHOT_BYTE
    newline = rfind(b"\n")
    snapshot = False
    if newline + 1 < len(data):
        keep(newline + 1)  # a last line without an LF: never a boundary
        snapshot = prefixed(SNAPSHOT_PREFIX, newline + 1)
    # the chunk edge at or below ``newline`` (none: every line is judged alike)
    edge = newline // chunk * chunk if chunk_edges else -1
    begin = 0
    while newline >= 0:  # the LF that ends the line starting at ``start``
        start = rfind(b"\n", 0, newline) + 1
        keep(start)
        # a line no longer than the probe's place is no snapshot (the prefix is longer)
        if newline - start > probe and data[start + probe] == probed and \
                prefixed(SNAPSHOT_PREFIX, start):
            snapshot = True
        if start < edge:  # the line crosses a chunk edge
            if _straddles(start, newline):
                found = prefixed(SYSTEM_PREFIX, start) and \
                    find(BOUNDARY_MARKER, start, newline) != -1
            else:
                found = _marked(data, start, newline)
            edge = (start - 1) // chunk * chunk
        elif find(BOUNDARY_MARKER, start, newline if newline < start + window
                  else start + window) == -1:
            newline = start - 1
            continue
        else:
            found = _marked(data, start, newline)
            if start == edge:
                edge -= chunk
        if found and marked is not None:
            marked.append(start)
        if found and _is_plain_boundary(data[start:newline], keeping):
            begin = start
            break
        newline = start - 1
    starts.reverse()
    return Tail(begin, starts, snapshot)


def _is_plain_boundary(line: bytes, keeping: tuple[str, ...] = SDK_KEEPING_KEYS) -> bool:
    """A compact_boundary system entry with none of the ``keeping`` metadata keys truthy."""
    try:
        value, _ = parse_line(line)
    except JsonError:
        return False
    if type(value) is not dict:
        return False
    if value.get("type") != "system" or value.get("subtype") != "compact_boundary":
        return False
    meta = value.get("compactMetadata")
    if type(meta) is not dict:
        return True
    from rechain.reference.js.values import truthy

    return not any(truthy(meta.get(name)) for name in keeping)


def boundary_keeps(line: bytes, keeping: tuple[str, ...]) -> bool:
    """A compact_boundary line whose metadata has one of ``keeping`` (no truncation there)."""
    try:
        value, _ = parse_line(line)
    except JsonError:
        return False
    if type(value) is not dict or value.get("type") != "system":
        return False
    return value.get("subtype") == "compact_boundary" and not _is_plain_boundary(line, keeping)


def _marked(data: bytes, start: int, newline: int) -> bool:
    """The marker within the first ``MARKER_WINDOW`` bytes of a line no snapshot."""
    at = data.find(BOUNDARY_MARKER, start, newline)
    return at != -1 and at - start < MARKER_WINDOW and not data.startswith(SNAPSHOT_PREFIX, start)


def _straddles(start: int, newline: int) -> bool:
    """Whether the SDK sees this line through its carry-over path at a chunk edge.

    A line whose LF lies in a later chunk than its start is carried; a carry
    shorter than the snapshot prefix is re-scanned as an ordinary line, but
    only when the line crosses a single chunk edge.
    """
    first, last = start // CHUNK_BYTES, newline // CHUNK_BYTES
    if first == last:
        return False
    carry = (first + 1) * CHUNK_BYTES - start
    return not (last == first + 1 and carry < len(SNAPSHOT_PREFIX))


def lines_holding(data: bytes, marker: bytes) -> list[int]:
    """The start offsets of the lines of ``data`` that hold ``marker``, in order (one
    search of the buffer, the rest of a line skipped once it is found there)."""
    starts: list[int] = []
    at = data.find(marker)
    while at != -1:
        starts.append(data.rfind(b"\n", 0, at) + 1)
        newline = data.find(b"\n", at)
        if newline == -1:
            break
        at = data.find(marker, newline)
    return starts


def last_boundary_start(data: bytes, keeping: tuple[str, ...] = SDK_KEEPING_KEYS,
                        chunk_edges: bool = True, marked: list[int] | None = None) -> int:
    """Start offset of the line after which the reader keeps bytes (0 when none).

    ``keeping`` names the compactMetadata keys that make a boundary keep what
    precedes it (2.1.88 knows only ``preservedSegment``); without ``chunk_edges``
    a line across a chunk edge is judged like any other (Claude Code 2.1.91 on).
    ``marked``: the lines holding ``BOUNDARY_MARKER`` (``lines_holding``), when the
    caller searched for them already.
    """
    last = 0
    for start in lines_holding(data, BOUNDARY_MARKER) if marked is None else marked:
        newline = data.find(b"\n", start)
        if newline != -1 and not data.startswith(SNAPSHOT_PREFIX, start):
            line = data[start:newline]
            if chunk_edges and _straddles(start, newline):
                found = line.startswith(SYSTEM_PREFIX) and _is_plain_boundary(line, keeping)
            else:
                first = data.find(BOUNDARY_MARKER, start, newline)
                found = first - start < MARKER_WINDOW and _is_plain_boundary(line, keeping)
            if found:
                last = start
    return last


def read_from(data: bytes, begin: int, starts: list[int] | None = None,
              in_place: bool = False, copy_short_tail: bool = True,
              first_line: int | None = None, snapshot: bool = True) -> Source:
    """The lines from offset ``begin`` on, numbered as in the file; attribution snapshots
    but the last dropped, the last read after every other line (left to the split,
    ``SnapshotLines``). ``starts``: where those lines start in ``data``, when known.

    ``in_place``: the lines may stay in ``data`` itself (``Source.offset``) when they are
    most of it, for a reader that only takes their views (the SDK's parser): a copy of
    the tail cost as much as a third of the floor (fresh pages for 100 MB: 0.05 s) and
    held the file twice at the peak. A short tail is copied, so that a result does not
    keep a whole file alive for a few lines, unless ``copy_short_tail`` is off (a reader
    whose result keeps the file anyway, and finds its lines there). ``first_line``: the
    number of the line at ``begin``, when the caller counted the lines before it.
    ``snapshot`` off: the caller found that no line from ``begin`` is an attribution
    snapshot (with ``starts``), so the split does not look again.
    """
    if first_line is None:
        first_line = lines_before(data, begin) + 1
    diagnostics = [skipped_before(first_line)] if begin else []
    if in_place and begin and starts is not None and (
            begin <= len(data) // 2 or not copy_short_tail):
        return Source(None, data, diagnostics, first_line, snapshots=True, starts=starts,
                      offset=begin, no_snapshot=not snapshot)
    if starts is not None and begin:
        starts = [start - begin for start in starts]
    return Source(None, data[begin:] if begin else data, diagnostics, first_line, snapshots=True,
                  starts=starts, no_snapshot=not snapshot)


_COUNT_BLOCK = 1 << 20
_SHORT_LINES = 2048  # LFs in a block past which its lines are short: bytes.count is faster


def lines_before(data: bytes, end: int, start: int = 0) -> int:
    """How many LFs ``data[start:end]`` holds (``data.count(b"\n", start, end)``), fast on
    long lines.

    ``bytes.count`` reads a byte at a time (0.057 s for 100 MB), a ``find`` jumps to the
    next LF in C: on lines of a few KB, as a transcript's are, finding each is several
    times faster. A block of the buffer whose lines turn out short is counted instead,
    so that neither way costs much more than the other on any buffer.
    """
    total = 0
    find, count = data.find, data.count
    for low in range(start, end, _COUNT_BLOCK):
        high = min(low + _COUNT_BLOCK, end)
        at, seen = find(b"\n", low, high), 0
        while at != -1:
            seen += 1
            if seen > _SHORT_LINES:
                seen += count(b"\n", at + 1, high)
                break
            at = find(b"\n", at + 1, high)
        total += seen
    return total


def skipped_before(first_line: int) -> Diagnostic:
    """The finding for a large file's lines before its last compact boundary (every reader
    that skips them words it alike)."""
    return Diagnostic(
        1,
        "before-compact-boundary",
        f"lines 1-{first_line - 1} not read: the file is over 5 MiB and they precede "
        f"the last compact boundary (line {first_line})",
        first_line - 1,
    )


def dropped_snapshot(line: int) -> Diagnostic:
    """The finding for an attribution snapshot passed over for a later one."""
    return Diagnostic(
        line, "attribution-snapshot", "attribution snapshot dropped: only the last one is read"
    )
