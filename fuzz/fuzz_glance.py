"""Harness: the SDK parser's glance in C against its glance in Python, on any bytes.

``reference/_glance.c`` keeps the plain rows of a buffer and hands every other line to
the Python parser; the Python glance (``parse._glance_lines``) is the algorithm. Contract:
on any buffer, walked each way the parser walks one (every line found from the start,
the starts the read stage found, the views of lines a reader reorders), both hand on the
same rows (decoded), line numbers, facts, stamps, plain flags where both kept a row
undecoded, diagnostics, host rows and delivery counts. A difference is a finding, and
so is a crash of the C module (the worker dies with the input kept).

Run: ``rechain fuzz glance-c`` or ``python -m rechain.fuzz.fuzz_glance [libFuzzer flags]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import ModuleType
from typing import Any

from rechain.fuzz.contract import ONE_LINE, harness
from rechain.reference import parse
from rechain.reference.lazyrows import Pending, stamp_of
from rechain.reference.parse import Parsed, parse_sdk
from rechain.reference.read import NumberedLines, SnapshotLines, line_spans

NATIVE = parse.native_glance


class GlanceDisagreementError(AssertionError):
    """The C and the Python glance parsed the same buffer differently."""


class NotBuiltError(RuntimeError):
    """The C glance is not built here: there is nothing to compare."""


def _given_starts(data: bytes) -> NumberedLines:
    starts = [start for _, start, _ in line_spans(data)]
    return SnapshotLines(data, 1, [], starts, no_snapshot=True)


#: the three ways the parser walks a buffer's lines in C: every line from the start
#: (``glance_spans`` finding them), the starts the read stage found (``glance_spans``
#: given them), and the lines a reader may reorder (``glance_lines`` over their views)
WALKS: dict[str, Callable[[bytes], NumberedLines]] = {
    "found": NumberedLines,
    "given": _given_starts,
    "views": lambda data: SnapshotLines(data, 1, []),
}


@contextmanager
def glancing(glance: ModuleType | None) -> Iterator[None]:
    """The SDK parser glancing with ``glance`` (a build of ``_glance.c``; None: in Python)
    inside the block, as it did before after it."""
    saved = parse.native_glance
    parse.native_glance = glance
    try:
        yield
    finally:
        parse.native_glance = saved


def parsed(data: bytes, glance: ModuleType | None, walk: str = "found") -> Parsed:
    """``parse_sdk`` of ``data`` walked as ``walk``, glancing with ``glance`` (None: in
    Python)."""
    with glancing(glance):
        return parse_sdk(WALKS[walk](data))


def handed_on(result: Parsed) -> dict[str, Any]:
    """All the parser hands on, rows decoded: the C glance may keep undecoded a row the
    Python glance parses at once (same row, same facts)."""
    stored = list(result.entries.stored())  # type: ignore[attr-defined]
    return {
        "rows": list(result.entries),
        "lines": result.lines,
        "facts": result.facts,
        "stamps": [stamp_of(item) for item in stored],
        "diagnostics": result.findings(),
        "host": (result.host_rows, result.host_lines),
        "delivered": result.delivered,
    }


def _plain(result: Parsed) -> list[bool | None]:
    stored = result.entries.stored()  # type: ignore[attr-defined]
    return [item.plain if type(item) is Pending else None for item in stored]


def disagreement(data: bytes, glance: ModuleType | None = None) -> str | None:
    """How the two glances differ on ``data`` (the first way found), or None; ``glance``:
    the C module to compare (the one built with rechain unless given)."""
    for walk in WALKS:
        native, python = parsed(data, glance or NATIVE, walk), parsed(data, None, walk)
        for at, (mine, theirs) in enumerate(zip(_plain(native), _plain(python), strict=True)):
            if theirs is not None and mine is None:
                return f"{walk}: row {at} parsed at once in C, kept undecoded in Python"
            if mine is not None and theirs is not None and mine != theirs:
                return f"{walk}: row {at} plain={mine} in C, plain={theirs} in Python"
        mine_all, theirs_all = handed_on(native), handed_on(python)
        for name, value in mine_all.items():
            if value != theirs_all[name]:
                return f"{walk}: the {name} differ"
    return None


@harness(
    **ONE_LINE,
    description="the SDK parser's glance in C parses as its glance in Python",
)
def one_input(data: bytes) -> None:
    if NATIVE is None:
        raise NotBuiltError("the C glance (reference/_glance.c) is not built here: install "
                            "rechain where a C compiler and Python's headers are")
    found = disagreement(data)
    if found is not None:
        raise GlanceDisagreementError(found)


if __name__ == "__main__":
    from rechain.fuzz.worker import exec_harness

    exec_harness("rechain.fuzz.fuzz_glance:one_input", sys.argv[1:])
