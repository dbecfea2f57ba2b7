"""Which glanced lines hold bytes that are not UTF-8, found when the diagnostics are read.

The SDK decodes a line with U+FFFD for each bad byte sequence before ``JSON.parse``,
and the parser reports such a line (``invalid-utf8``). The glance (``lazyrows.py``)
does not check the strings it skips, so a line with bad bytes there is glanced as any
other (a bad byte in a field it decodes makes it refuse the line, parsed at once) and
its row is decoded exactly when read (orjson refuses it, ``parse_line`` replaces the
bytes). What is left is the finding. Checking the buffer costs 7 % of the floor on an
ASCII file and 20-25 % on one with accents (every real transcript), on every load,
for a finding few callers read: so it is worked out when the diagnostics are.
"""

from __future__ import annotations

import codecs

from rechain.reference.lazyrows import valid_utf8
from rechain.reference.model import Diagnostic
from rechain.reference.read import NumberedLines

INVALID_UTF8 = "invalid UTF-8 bytes read as U+FFFD"
# what the parser reports of a line it decoded itself: a line whose bytes are not UTF-8
# and that parses has its ``invalid-utf8`` finding already, one that does not has none
_DECODED = frozenset({"invalid-utf8", "invalid-json"})


def with_invalid_utf8(lines: NumberedLines, diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """The parser's ``diagnostics`` (in the order it parsed ``lines``) with an
    ``invalid-utf8`` finding before the first finding of each line it glanced at whose
    bytes are not UTF-8, where the parser reports it when it decodes the line at once.

    One check of the buffer settles the common case; only a buffer with bad bytes is
    read line by line."""
    if valid_utf8(lines.data, lines.offset):
        return diagnostics
    decoded = {finding.line for finding in diagnostics if finding.kind in _DECODED}
    place: dict[int, int] = {}  # line number -> its place in the parse order
    bad: list[tuple[int, Diagnostic]] = []
    for at, (number, raw, _) in enumerate(lines.views()):
        place[number] = at
        if number not in decoded and not _is_utf8(raw):
            bad.append((at, Diagnostic(number, "invalid-utf8", INVALID_UTF8)))
    if not bad:
        return diagnostics
    merged: list[Diagnostic] = []
    taken = 0
    for finding in diagnostics:
        at = place.get(finding.line, -1)  # type: ignore[arg-type]
        while taken < len(bad) and bad[taken][0] <= at:
            merged.append(bad[taken][1])
            taken += 1
        merged.append(finding)
    merged += (finding for _, finding in bad[taken:])
    return merged


def _is_utf8(raw: bytes | memoryview) -> bool:
    try:
        codecs.utf_8_decode(raw, "strict", True)
    except UnicodeDecodeError:
        return False
    return True
