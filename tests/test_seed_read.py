"""2.1.88's large-file read finds its lines without the general split: the same lines.

When no line of the buffer read is an attribution snapshot, ``read_for_load`` numbers
the lines from their places; the general split (``read.read_from``'s lines, snapshots
but the last dropped and the last moved) must give the same numbered lines, and the
live-segment check must read the same boundary lines.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.reference import read as shared_read
from rechain.reference.profiles.claude_code_2_1_88.deadbranch import excise_dead_branches
from rechain.reference.profiles.claude_code_2_1_88.read import _metadata_lines, read_for_load

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
    "snapshots before a plain boundary only": _file([SNAPSHOT, SNAPSHOT, _boundary(1, False)]),
    "a snapshot after a plain boundary": _file([SNAPSHOT, _boundary(1, False), SNAPSHOT]),
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


def _message(uuid: str, parent: str | None, pad: str = "") -> bytes:
    head = f'{{"parentUuid":{json.dumps(parent)},"uuid":"{uuid}","timestamp":"t"'
    return f'{head},"type":"user","pad":"{pad}"}}'.encode()


def _dead_file(extra: list[bytes], tail: tuple[bytes, ...] = ()) -> bytes:
    """A buffer whose last chain is short and whose dead branches hold most bytes."""
    live = [_message(f"{n:036d}", f"{n - 1:036d}" if n else None) for n in range(3)]
    dead = [_message(f"{900 + n:036d}", None, "y" * 100_000) for n in range(60)]
    return b"\n".join([live[0], *dead, *extra, *live[1:], *tail]) + b"\n"


SEGMENT = _boundary(1, True)
DEAD_CASES = {
    "no boundary": _dead_file([]),
    "live segment": _dead_file([SEGMENT]),
    "segment marker in a dropped snapshot": _dead_file([
        SNAPSHOT[:-1] + b',"type":"system","subtype":"compact_boundary",'
        b'"compactMetadata":{"preservedSegment":{"headUuid":"1"}}}', SNAPSHOT]),
    "segment marker in the last snapshot": _dead_file([
        SNAPSHOT, SNAPSHOT[:-1] + b',"type":"system","subtype":"compact_boundary",'
        b'"compactMetadata":{"preservedSegment":{"headUuid":"1"}}}']),
    "segment named without compact_boundary": _dead_file([
        b'{"type":"system","subtype":"x","compactMetadata":{"preservedSegment":{}}}']),
    "segment with a falsy preservedSegment": _dead_file([
        b'{"type":"system","subtype":"compact_boundary","compactMetadata":'
        b'{"preservedSegment":null}}', b'{"note":"preservedSegment"}']),
    # lines the in-place cut reads by 2.1.88's byte rules as the general cut does
    "own uuids by their bytes": _dead_file([
        b'{"parentUuid":', b'{"parentUuid":"short', b'{"parentUuid":7,"uuid":"'
        + b"8" * 36 + b'","timestamp":"t"}',
        b'{"parentUuid":null,"x":{"uuid":"' + b"1" * 36 + b'","timestamp":"t"},"uuid":"'
        + b"2" * 36 + b'","timestamp":"t"}',
        b'{"parentUuid":null,"uuid":"' + b"3" * 20, b'{"parentUuid":null,"uuid":"'
        + b"4" * 36 + b'","isSidechain":true}']),
    "a snapshot among dead branches": _dead_file([SNAPSHOT, SNAPSHOT]),
    "a sidechain leaf": _dead_file([], (b'{"parentUuid":"' + b"9" * 36 + b'","uuid":"'
                                        + b"5" * 36 + b'","timestamp":"t","isSidechain":true}',)),
    "a leaf whose own uuid is the nested one": _dead_file([], (
        b'{"parentUuid":"' + b"0" * 35 + b'2","x":{"uuid":"' + b"6" * 36
        + b'","timestamp":"t"},"uuid":"' + b"7" * 36 + b'","timestamp":"t"}',
        b'{"parentUuid":"' + b"7" * 36 + b'","uuid":"' + b"8" * 36 + b'","timestamp":"t"}')),
}


@pytest.mark.parametrize("name", DEAD_CASES)
def test_a_live_segment_marker_alone_keeps_the_dead_branches(name: str) -> None:
    data = DEAD_CASES[name]
    assert len(data) > shared_read.LARGE_FILE_BYTES
    begin = shared_read.last_boundary_start(data, ("preservedSegment",), True)
    general = [(n, bytes(line)) for n, line in shared_read.read_from(data, begin)
               .numbered_lines()]
    # any line read holding both markers that keeps its segment (the whole-line test)
    live = any(b"compact_boundary" in line and b"preservedSegment" in line
               and shared_read.boundary_keeps(line, ("preservedSegment",))
               for _, line in general)
    expected = general if live else [(n, bytes(line)) for n, line in
                                     excise_dead_branches(tuple(general))]
    got = read_for_load(data, False)
    assert [(n, bytes(line)) for n, line in got.lines] == expected
    assert live == (name in ("live segment", "segment marker in the last snapshot"))
    assert live or begin or len(expected) < len(general)  # else no excision is exercised


# --- scanPreBoundaryMetadata: the lines of the region before the boundary that are kept ---

_KINDS = ("summary", "custom-title", "tag", "agent-name", "agent-color", "agent-setting",
          "mode", "worktree-state", "pr-link")
_PIECES = [*(f'"type":"{kind}"'.encode() for kind in _KINDS),
           b'"type":"tags"', b'"type":"user"', b'"type": "tag"', b'"type":"mode', b"\n",
           b'{"a":1}', b"\\", b'"', b"x" * 70_000, b"y" * 65_530]


def _metadata_by_the_spec(region: bytes) -> list[tuple[int, bytes]]:
    """The rule as the spec words it: every whole line holding one of the nine markers
    anywhere; a line longer than 64 KiB only when one lies in its first 64 KiB."""
    markers = [f'"type":"{kind}"'.encode() for kind in _KINDS]
    kept = []
    for number, line in enumerate(region.split(b"\n"), 1):
        head = line[:65536]
        if any(m in (head if len(line) > 65536 else line) for m in markers):
            kept.append((number, line))
    return kept


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_the_metadata_scan_keeps_the_lines_the_spec_names(pieces: list[bytes]) -> None:
    region = b"".join(pieces) + b"\n"
    data = region + b'{"type":"system","subtype":"compact_boundary"}\n'
    kept, boundary_line = _metadata_lines(data, len(region))
    assert list(kept) == _metadata_by_the_spec(region[:-1])
    assert boundary_line == region.count(b"\n") + 1
