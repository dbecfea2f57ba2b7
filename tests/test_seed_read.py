"""2.1.88's large-file read finds its lines without the general split: the same lines.

When no line of the buffer read is an attribution snapshot, ``read_for_load`` numbers
the lines from their places; the general split (``read.read_from``'s lines, snapshots
but the last dropped and the last moved) must give the same numbered lines, and the
live-segment check must read the same boundary lines.
"""

from __future__ import annotations

import json

import pytest

from rechain.reference import read as shared_read
from rechain.reference.profiles.claude_code_2_1_88.read import read_for_load

PAD = "x" * 2000
BIG = 5 * 1024 * 1024 // 2000 + 50  # lines of padding past the 5 MiB threshold


def _row(n: int, parent: int | None) -> bytes:
    return json.dumps({"parentUuid": f"{parent:08d}" if parent else None, "type": "user",
                       "uuid": f"{n:08d}", "pad": PAD}).encode()


def _boundary(n: int, segment: bool) -> bytes:
    meta = {"preservedSegment": {"headUuid": "1", "tailUuid": "2", "anchorUuid": "3"}} \
        if segment else {}
    return json.dumps({"type": "system", "subtype": "compact_boundary", "uuid": f"b{n}",
                       "parentUuid": None, "compactMetadata": meta}).encode()


SNAPSHOT = b'{"type":"attribution-snapshot","messageId":"m"}'


def _file(extra: list[bytes], *, bom: bool = False, final_lf: bool = True) -> bytes:
    rows = [_row(n, n - 1 if n > 1 else None) for n in range(1, BIG)]
    body = b"\n".join([*rows[: BIG // 2], *extra, *rows[BIG // 2:]])
    return (b"\xef\xbb\xbf" if bom else b"") + body + (b"\n" if final_lf else b"")


CASES = {
    "plain": _file([]),
    "no final LF": _file([], final_lf=False),
    "BOM": _file([], bom=True),
    "blank lines": _file([b"", b"  ", b""]),
    "plain boundary": _file([_boundary(1, False)]),
    "boundary keeping a segment": _file([_boundary(1, True)]),
    "snapshots": _file([SNAPSHOT, _boundary(1, True), SNAPSHOT]),
    "snapshot holding the segment marker": _file([
        SNAPSHOT[:-1] + b',"type":"system","subtype":"compact_boundary",'
        b'"compactMetadata":{"preservedSegment":{"headUuid":"1"}}}', SNAPSHOT]),
}


@pytest.mark.parametrize("name", CASES)
@pytest.mark.parametrize("chunk_edges", [True, False])
def test_large_read_lines_match_the_general_split(name: str, chunk_edges: bool) -> None:
    data = CASES[name]
    assert len(data) > shared_read.LARGE_FILE_BYTES
    # every leaf kept: the lines as split, before any dead branch is cut
    got = read_for_load(data, False, keep_all_leaves=True, chunk_edges=chunk_edges)
    begin = shared_read.last_boundary_start(data, ("preservedSegment",), chunk_edges)
    source = shared_read.read_from(data, begin)
    expected = [(n, bytes(line)) for n, line in source.numbered_lines()]
    if expected and expected[0][0] == 1 and expected[0][1].startswith(b"\xef\xbb\xbf"):
        expected[0] = (1, expected[0][1][3:])
    assert [(n, bytes(line)) for n, line in got.lines] == expected
    assert [d.kind for d in got.diagnostics] == [d.kind for d in source.diagnostics]
    assert got.spans is not None
    assert all(got.spans.buffer.startswith(line, got.spans.starts[n - got.spans.first])
               for n, line in expected)
