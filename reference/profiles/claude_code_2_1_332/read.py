"""The CLI's read of a transcript: whole up to 5 MiB, else from the last plain boundary.

The CLI finds a plain compact boundary by its text on every line (the SDK's
chunked scan can miss one: ``large-file-compact-skip``), and drops the
attribution snapshots but the last, which it reads after every other line.
Both rules need a search of the whole buffer, which on a file with neither
costs a fourth of the floor. So a large file is first read whole on the guess
that it has neither (``Guessed``): the parser, which glances at every line
anyway, tells from each line's glance whether it could be one. At a plain
boundary it starts the load over from that line, in the same pass; a snapshot
it holds and reads after every other line, dropping the one it held before.
Where it cannot decide a line (not glanced, a snapshot's prefix after spaces or
a BOM, a snapshot that is a boundary too) it reads the file the exact way
(``Guessed.exact``).
"""

from __future__ import annotations

import orjson

from rechain.reference.js.values import truthy
from rechain.reference.model import Diagnostic, Options
from rechain.reference.read import (
    LARGE_FILE_BYTES,
    SDK_KEEPING_KEYS,
    NumberedLines,
    Source,
    dropped_snapshot,
    read_from,
    read_sdk,
    skipped_before,
)

MARKER = b"compact_boundary"


class Guessed(NumberedLines):
    """A large file's lines, read whole, a plain compact boundary's line starting the load
    over and the last attribution snapshot read after every other line (``sink``: the
    ``Source``'s list, where the lines not read before the last such boundary and the
    snapshots dropped are reported, and the exact read's diagnostics go when the guess
    fails)."""

    __slots__ = ("after", "sink")

    def __init__(self, data: bytes, sink: list[Diagnostic]) -> None:
        super().__init__(data, 1)
        self.sink = sink
        self.after = 0  # the start of a plain boundary's line, once one is found

    def plain_at(self, start: int, number: int) -> bool:
        """Whether the line holding byte ``start`` (line ``number``) is a plain boundary,
        found by its text; if so, the lines before it are reported not read."""
        data = self.data
        begin = data.rfind(b"\n", 0, start) + 1
        end = data.find(b"\n", start)
        line = data[begin:] if end == -1 else data[begin:end]
        if MARKER in line and plain_boundary(line):
            self.after = begin  # the last plain boundary is no earlier: searched from here
            self.sink[:] = [skipped_before(number)] if begin else []
            return True
        return False

    def dropped(self, lines: list[int]) -> None:
        """The attribution snapshots on these lines are not read (a later one is)."""
        self.sink += [dropped_snapshot(line) for line in lines]

    def exact(self) -> Source:
        """The read the guess stood for (the boundary searched from the one found)."""
        return read_from(self.data, last_plain_boundary(self.data, self.after))


#: the share of a large file's end searched for its last plain boundary before the guess
#: (``read_cli``): a compacted session's last compaction is most often in its last part
TAIL_SHARE = 8


def read_cli(data: bytes, options: Options) -> Source:
    """Whole files up to 5 MiB; above, only the lines from the last plain compact boundary
    on, attribution snapshots but the last dropped.

    The last eighth of the file is searched for that boundary first, from the end: a
    compacted session's history is then not read at all (the search costs about a
    thirtieth of glancing at the lines it passes). Found nowhere there, the file is read
    on the guess that it has none (``Guessed``), which finds any earlier one on the way.
    """
    if len(data) <= LARGE_FILE_BYTES or options.disable_precompact_skip:
        return read_sdk(data, True)
    begin = last_plain_boundary_in_tail(data, len(data) - len(data) // TAIL_SHARE)
    if begin is not None:
        return read_from(data, begin)
    sink: list[Diagnostic] = []
    return Source(Guessed(data, sink), data, sink)


def last_plain_boundary_in_tail(data: bytes, tail: int) -> int | None:
    """Start offset of the last plain boundary's line when the marker of that line lies at
    or after offset ``tail`` (None: no plain boundary there; one may lie before it). Every
    line holding the marker after it is judged too, from the end."""
    end = len(data)
    at = data.rfind(MARKER, tail, end)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        if plain_boundary(data[start:] if stop == -1 else data[start:stop]):
            return start
        end = start
        at = data.rfind(MARKER, tail, end) if end > tail else -1
    return None


def plain_boundary(line: bytes) -> bool:
    """A compact_boundary system row whose metadata keeps no earlier rows."""
    try:
        value = orjson.loads(line)
    except orjson.JSONDecodeError:
        return False
    if type(value) is not dict or value.get("type") != "system" \
            or value.get("subtype") != "compact_boundary":
        return False
    meta = value.get("compactMetadata")
    return type(meta) is not dict or not any(truthy(meta.get(k)) for k in SDK_KEEPING_KEYS)


def last_plain_boundary(data: bytes, after: int = 0) -> int:
    """Start offset of the last line that is a compact boundary keeping nothing (0: none),
    searched from the line start ``after`` on."""
    last = 0
    at = data.find(MARKER, after)
    while at != -1:
        start = data.rfind(b"\n", 0, at) + 1
        end = data.find(b"\n", at)
        end = len(data) if end == -1 else end
        if plain_boundary(data[start:end]):
            last = start
        at = data.find(MARKER, end)
    return last
