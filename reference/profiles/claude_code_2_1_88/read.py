"""2.1.88's physical read: whole file up to 5 MiB, else the forward chunked read.

Above ``SKIP_PRECOMPACT_THRESHOLD`` (strictly greater), ``readTranscriptForLoad``
keeps only what follows the last compact boundary *without*
``preservedSegment`` (``preservedMessages`` does not exist yet), drops
attribution snapshots but the last, and the pre-boundary bytes are scanned for
session metadata lines. A still-large, mostly dead buffer then loses its dead
branches before parsing (``walkChainBeforeParse``).
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from itertools import chain, islice, repeat
from operator import sub
from typing import Any, overload

from rechain.reference import read as shared_read
from rechain.reference.lazyrows import valid_utf8
from rechain.reference.listing.claude_code_2_1_39 import has_first_prompt
from rechain.reference.listing.scan import last_field_88
from rechain.reference.model import Diagnostic
from rechain.reference.profiles.claude_code_2_1_88.deadbranch import (
    Lines,
    kept_spans,
)
from rechain.reference.profiles.claude_code_2_1_88.parse import Spans, placed_views
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease

LITE_BYTES = 65536
OLD_LITE_BYTES = 16384  # the head and tail the session list read before 2.1.88's line
METADATA_MARKERS = tuple(
    f'"type":"{kind}"'.encode()
    for kind in ("summary", "custom-title", "tag", "agent-name", "agent-color",
                 "agent-setting", "mode", "worktree-state", "pr-link")
)
CARRY_CAP = 64 * 1024
# any metadata marker, in one search of the bytes: nine ``bytes.find`` over 90 MB cost 0.4 s
# (their characters are all common in JSON), this regex 0.06 s (its literal prefix is found
# in C and the rest tried only there)
_ANY_METADATA = re.compile(rb'"type":"(?:' + b"|".join(
    re.escape(marker[len(b'"type":"'):-1]) for marker in METADATA_MARKERS) + rb')"')
SEGMENT_MARKER = b"preservedSegment"
_TEAM = re.compile(rb'"teamName": ?"([^"]+)"')


@dataclass(frozen=True, slots=True)
class SeedSource:
    """What the loader parses: pre-boundary metadata lines first, then the buffer's lines."""

    lines: Lines
    metadata_lines: tuple[tuple[int, bytes], ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    spans: Spans | None = None  # where ``lines`` start in a UTF-8 buffer (``parse_values``)
    #: how many lines the whole file has (a BOM is not a line's; no empty line after a
    #: final LF), when the read counted them
    line_count: int | None = None
    #: the number of the last line that may be a compact boundary (the split's marked
    #: lines): the rows before it are most likely pruned (0: none marked, or not known)
    light_before: int = 0


def read_for_load(data: bytes, disable_skip: bool, keep_all_leaves: bool = False,
                  chunk_edges: bool = True) -> SeedSource:
    """The bytes ``loadTranscriptFile`` parses, with their original line numbers
    (``chunk_edges``: off with ``SeedRelease.boundary_across_chunks``)."""
    if disable_skip or len(data) <= shared_read.LARGE_FILE_BYTES:
        starts = array("q", (start for _, _, start in placed_views(data)))
        lines: Lines = SpanLines(data, range(1, len(starts) + 1), starts)
        return SeedSource(lines, spans=_spans(data, starts, 1), line_count=len(starts))
    # one pass from the end splits the lines after the last plain boundary, and finds the
    # lines that hold the marker where the reader looks (the lines before are not split)
    marked: list[int] = []
    begin, found, snapshots = shared_read.tail_lines(data, ("preservedSegment",), chunk_edges,
                                                     marked)
    marked.reverse()
    metadata: tuple[tuple[int, bytes], ...] = ()
    first = 1
    if begin > 0:
        metadata, first = _metadata_lines(data, begin)
    # the lines after a boundary stay in the file's own buffer (no copy of the tail), so
    # every offset here is one in ``data``: the chain's lines are read there
    # (``profile.ChainLines``), and the result keeps the file
    source = shared_read.read_from(data, begin, found, in_place=True, copy_short_tail=False,
                                   first_line=first, snapshot=snapshots)
    line_count = first - 1 + len(found)
    numbers: Sequence[int]
    if snapshots:
        # attribution snapshots: all but the last dropped, the last read after the others
        numbers, offsets = array("q"), array("q")
        for number, _, start in source.numbered_lines().views():  # type: ignore[attr-defined]
            numbers.append(number)
            offsets.append(start)
        starts = array("q", bytes(8 * (max(numbers, default=first) - first + 1)))
        for number, start in zip(numbers, offsets, strict=True):
            starts[number - first] = start
    else:  # every line in order: its number follows from its place
        numbers, offsets = range(first, first + len(found)), array("q", found)
        starts = array("q", found)
    lines = SpanLines(data, numbers, offsets)
    has_segment = _has_live_segment_marker(data, offsets, len(found) != len(offsets), marked,
                                           begin)
    diagnostics = tuple(source.diagnostics)  # the split's dropped snapshots among them
    if not keep_all_leaves and not has_segment:
        kept = kept_spans(data, offsets, _line_ends(data, offsets, type(numbers) is range))
        if kept is not None:
            if len(kept) != len(offsets):
                alive = set(kept)
                diagnostics += tuple(_dead(numbers[at]) for at in range(len(offsets))
                                     if at not in alive)
            lines = SpanLines(data, array("q", [numbers[at] for at in kept]),
                              array("q", [offsets[at] for at in kept]))
    if lines and lines[0][0] == 1 and lines[0][1][:3] == b"\xef\xbb\xbf":
        starts[0] += 3
        lines.starts[0] += 3  # type: ignore[attr-defined]
    last_marked = bisect_left(found, marked[-1]) + first if marked else 0
    return SeedSource(lines, metadata, diagnostics, _spans(data, starts, first, begin),
                      line_count, last_marked)


class SpanLines(Sequence[tuple[int, memoryview]]):
    """Numbered lines of a buffer held as where they start: (number, view to the LF)
    made when a line is read, so that a million lines are not a million views and
    tuples held while the loader runs."""

    __slots__ = ("data", "numbers", "starts")

    def __init__(self, data: bytes, numbers: Sequence[int], starts: array[int]) -> None:
        self.data, self.numbers, self.starts = data, numbers, starts

    def __len__(self) -> int:
        return len(self.starts)

    @overload
    def __getitem__(self, at: int) -> tuple[int, memoryview]: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[tuple[int, memoryview], ...]: ...

    def __getitem__(self, at: int | slice) -> Any:
        if type(at) is slice:
            return tuple(self[i] for i in range(*at.indices(len(self))))
        data, start = self.data, self.starts[at]  # type: ignore[index]
        stop = data.find(b"\n", start)
        return self.numbers[at], memoryview(data)[start : len(data) if stop == -1 else stop]  # type: ignore[index]

    def __iter__(self) -> Iterator[tuple[int, memoryview]]:
        return zip(self.numbers, self._views(), strict=True)

    def spans(self) -> Iterator[tuple[int, memoryview, int]]:
        """(number, view, offset) of each line."""
        return zip(self.numbers, self._views(), self.starts, strict=True)

    def _views(self) -> Iterator[memoryview]:
        """Each line's view, cut in C: when the lines follow one another (``numbers`` a
        range) each ends where the next starts, and only the last LF is searched for."""
        data, starts = self.data, self.starts
        ends: Iterator[int]
        if type(self.numbers) is range and starts:
            last = data.find(b"\n", starts[-1])
            ends = chain(map(sub, islice(starts, 1, None), repeat(1)),
                         (len(data) if last == -1 else last,))
        else:
            ends = map(partial(_line_end, data), starts)
        return map(memoryview(data).__getitem__, map(slice, starts, ends))


def _spans(buffer: bytes, starts: array[int], first: int, offset: int = 0) -> Spans | None:
    """Where the lines start, when the buffer is UTF-8 from ``offset`` on (msgspec does not
    check skipped strings: another buffer's rows are all decoded, as ``JSON.parse`` of
    each line's replaced text)."""
    utf8 = valid_utf8(buffer, offset)  # from ``offset`` only: the bytes before are not read
    return Spans(buffer, starts, first) if utf8 else None


def _line_ends(buffer: bytes, starts: Sequence[int], contiguous: bool) -> Sequence[int]:
    """Where each line ends (its LF, or the buffer's end); ``contiguous``: each line
    starts right after the one before it, so only the last is searched for."""
    if not starts:
        return ()
    last = buffer.find(b"\n", starts[-1])
    last = len(buffer) if last == -1 else last
    if contiguous:
        ends = array("q", map(sub, starts[1:], repeat(1)))  # type: ignore[index]
        ends.append(last)
        return ends
    return [_line_end(buffer, start) for start in starts]


def _dead(number: int) -> Diagnostic:
    return Diagnostic(number, "dead-branch", "off the chain of a large, mostly dead buffer: "
                      "removed before parsing")


def _has_live_segment_marker(buffer: bytes, offsets: array[int], dropped: bool,
                             marked: Sequence[int] = (), begin: int = 0) -> bool:
    """Whether a boundary with ``preservedSegment`` was seen after the last truncation:
    a line the loader reads (``offsets``, from ``begin`` on; ``dropped``: some attribution
    snapshots are not among them) holding ``compact_boundary`` and ``preservedSegment``.

    The lines the split marked as boundaries (``marked``, where they start) are tried
    first: one that passes answers without a search of the whole buffer. Otherwise the
    rarer marker is searched for, and the search stops at the first such line.
    """
    read = set(offsets) if dropped else None
    for start in marked:
        if _live_segment_line(buffer, start, _line_end(buffer, start), read):
            return True
    find = buffer.find
    at = find(SEGMENT_MARKER, begin)
    while at != -1:
        start = buffer.rfind(b"\n", 0, at) + 1
        end = _line_end(buffer, at)
        if _live_segment_line(buffer, start, end, read):
            return True
        at = find(SEGMENT_MARKER, end)
    return False


def _live_segment_line(buffer: bytes, start: int, end: int, read: set[int] | None) -> bool:
    """The test of one line: read, holding both markers, a boundary keeping a segment."""
    line = buffer[start:end]
    return SEGMENT_MARKER in line and b"compact_boundary" in line \
        and (read is None or start in read) \
        and shared_read.boundary_keeps(line, ("preservedSegment",))


def _line_end(data: bytes, start: int) -> int:
    newline = data.find(b"\n", start)
    return len(data) if newline == -1 else newline


def _metadata_lines(data: bytes, end: int) -> tuple[tuple[tuple[int, bytes], ...], int]:
    """``scanPreBoundaryMetadata``: the whole lines before ``end`` (a line's start) that
    hold a metadata marker (one longer than ``CARRY_CAP`` only when it holds one in its
    first ``CARRY_CAP`` bytes), numbered; and the number of the line at ``end``.

    The region is searched, not split: a compacted session's history is most of its file,
    and a copy and split of it cost more memory than the rest of the load, and a test of
    every line for every marker most of its time. The lines are counted as the search
    goes, once over the region."""
    search, find, rfind = _ANY_METADATA.search, data.find, data.rfind
    count = shared_read.lines_before
    kept: list[tuple[int, bytes]] = []
    number, counted = 1, 0  # the number of the line starting at ``counted``
    found = search(data, 0, end)
    while found is not None:
        start = rfind(b"\n", 0, found.start()) + 1
        stop = find(b"\n", start, end)
        stop = end if stop == -1 else stop
        line = data[start:stop]
        if len(line) <= CARRY_CAP or any(m in line[:CARRY_CAP] for m in METADATA_MARKERS):
            number += count(data, start, counted)
            counted = start
            kept.append((number, line))
        found = search(data, stop, end)
    return tuple(kept), number + count(data, end, counted)


def hidden_from_continue(data: bytes, release: SeedRelease = BASE) -> bool:
    """``enrichLog`` drops sessions whose head holds ``"isSidechain":true`` (not before
    2.1.39) or a team name; between 2.1.39's lite list and 2.1.88's line also one whose
    first 16 KiB hold no first prompt and whose head or tail no custom title. The head is
    what the list reads: 64 KiB on 2.1.88's line, 16 KiB before (2.1.39 lists a session
    whose first ``"isSidechain":true`` lies past 16 KiB)."""
    head = data[:LITE_BYTES if release.continue_lists_promptless else OLD_LITE_BYTES]
    if (b'"isSidechain":true' in head and release.continue_hides_sidechain_heads) \
            or _TEAM.search(head) is not None:
        return True
    if release.continue_lists_promptless or not release.lite_session_list:
        return False
    small = data[:OLD_LITE_BYTES].decode("utf-8", "replace")
    tail = data[-OLD_LITE_BYTES:].decode("utf-8", "replace")
    return not has_first_prompt(small) and not last_field_88(tail, "customTitle")
