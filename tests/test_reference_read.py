"""Stage 1: the TS SDK's pre-compact skip for files over 5 MiB, chunk edges included."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rechain.reference import Options, rebuild
from rechain.reference.read import CHUNK_BYTES, LARGE_FILE_BYTES
from rechain.strategies import rows

BIG = "x" * 200_000


def row(uuid: str, parent: str | None, kind: str = "user", **extra: object) -> bytes:
    entry = {
        "parentUuid": parent,
        "type": kind,
        "uuid": uuid,
        "sessionId": "s1",
        "message": {"role": kind, "content": extra.pop("content", "hi")},
    }
    entry.update(extra)
    return rows.line(entry)


def boundary(uuid: str, parent: str | None, **meta: object) -> bytes:
    entry = {
        "parentUuid": parent,
        "type": "system",
        "subtype": "compact_boundary",
        "uuid": uuid,
        "sessionId": "s1",
        "compactMetadata": {"trigger": "auto", **meta},
    }
    return rows.line(entry)


def padded_before(size: int) -> tuple[bytes, str]:
    """Big user/assistant rows totalling about ``size`` bytes; returns (bytes, last uuid)."""
    out, parent, n = bytearray(), None, 0
    while len(out) < size:
        n += 1
        uuid = f"p{n}"
        out += row(uuid, parent, "user" if n % 2 else "assistant", content=BIG)
        parent = uuid
    return bytes(out), parent  # type: ignore[return-value]


def after(parent: str) -> bytes:
    return row("u9", parent) + row("a9", "u9", "assistant")


def test_a_small_file_is_read_whole_even_with_a_boundary() -> None:
    head, last = padded_before(100_000)
    data = head + boundary("cb", last) + after("cb")
    assert rebuild(data).uuids[-2:] == ["u9", "a9"]
    assert len(rebuild(data).uuids) > 2


def test_over_5_mib_only_what_follows_the_last_plain_boundary_is_read() -> None:
    head, last = padded_before(LARGE_FILE_BYTES)
    data = head + boundary("cb", last) + after("cb")
    result = rebuild(data)
    assert result.uuids == ["u9", "a9"]
    first = data.count(b"\n", 0, len(head)) + 1
    assert (result.diagnostics[0].line, result.diagnostics[0].kind) == (
        1,
        "before-compact-boundary",
    )
    assert f"line {first}" in result.diagnostics[0].detail
    assert result.messages[0]["line"] == first + 1


def test_the_skip_can_be_turned_off_like_the_environment_variable_does() -> None:
    head, last = padded_before(LARGE_FILE_BYTES)
    data = head + boundary("cb", last) + after("cb")
    assert len(rebuild(data, options=Options(disable_precompact_skip=True)).uuids) > 2


def test_a_boundary_with_a_preserved_segment_is_not_a_skip_point() -> None:
    head, last = padded_before(LARGE_FILE_BYTES)
    segment = {"headUuid": "zz", "anchorUuid": "zz", "tailUuid": "zz"}
    data = head + boundary("cb", last, preservedSegment=segment) + after("cb")
    assert len(rebuild(data).uuids) > 2


def test_an_unterminated_last_line_is_never_a_skip_point() -> None:
    head, last = padded_before(LARGE_FILE_BYTES)
    data = head + row("u9", last) + boundary("cb", "u9").rstrip(b"\n")
    assert len(rebuild(data).uuids) > 2


@pytest.mark.parametrize(("carry", "skipped"), [(5, True), (29, True), (30, False), (31, False)])
def test_a_boundary_line_across_a_chunk_edge_is_seen_only_through_a_short_carry(
    carry: int, skipped: bool
) -> None:
    """The SDK re-scans a carried line under 30 bytes; longer carries need a system prefix."""
    edge = 5 * CHUNK_BYTES
    head, last = padded_before(edge - 250_000)
    filler_row = row("fill", last, content="")
    gap = edge - carry - len(head) - len(filler_row)
    head += row("fill", last, content="p" * gap)
    assert len(head) == edge - carry
    data = (
        head
        + boundary("cb", "fill")
        + row("u9", "cb", content=BIG * 3)
        + row("a9", "u9", "assistant")
    )
    assert (rebuild(data).uuids == ["u9", "a9"]) is skipped


@pytest.mark.parametrize("profile", ["sdk", "cli"])
def test_attribution_snapshots_but_the_last_are_dropped(profile: str) -> None:
    head, last = padded_before(LARGE_FILE_BYTES)
    snap = b'{"type":"attribution-snapshot","messageId":"m"}\n'
    data = (
        head + boundary("cb", last) + snap + row("u9", "cb") + snap + row("a9", "u9", "assistant")
    )
    result = rebuild(data, profile)
    assert result.uuids == ["u9", "a9"]
    dropped = [d.line for d in result.diagnostics if d.kind == "attribution-snapshot"]
    assert dropped == [data.count(b"\n", 0, data.index(snap)) + 1]


_SNAPSHOT = b'{"type":"attribution-snapshot","n":1}'
_PIECES = [_SNAPSHOT, _SNAPSHOT[:20], b" " + _SNAPSHOT, b'{"type":"user","uuid":"a"}', b"", b"x"]


@given(st.lists(st.sampled_from(_PIECES), max_size=12), st.booleans(), st.integers(0, 3),
       st.booleans())
def test_a_large_file_read_keeps_the_last_snapshot_after_every_other_line(
        pieces: list[bytes], final_newline: bool, skip: int, split: bool) -> None:
    """The large-file read from an offset (``read_from``, the split's ``SnapshotLines``):
    every line from there on numbered as in the file, snapshots but the last dropped with a
    diagnostic each, the last read after every other line; the same on each pass, by views
    and by copies, and in the CLI's joined buffer."""
    from rechain.reference.js.jsonl import join_lines, read_values
    from rechain.reference.read import SNAPSHOT_PREFIX, NumberedLines, read_from

    data = b"\n".join(pieces) + (b"\n" if final_newline and pieces else b"")
    begin = sum(len(p) + 1 for p in pieces[:skip]) if skip < len(pieces) else 0
    every = data.split(b"\n")
    if every[-1] == b"":
        every.pop()  # nothing follows the last LF (or the buffer is empty): no line there
    numbered = list(enumerate(every, 1))[skip if begin else 0:]
    first = skip + 1 if begin else 1
    snapshots = [(n, line) for n, line in numbered if line.startswith(SNAPSHOT_PREFIX)]
    expected = [(n, line) for n, line in numbered if not line.startswith(SNAPSHOT_PREFIX)]
    expected += snapshots[-1:]
    dropped = [n for n, _ in snapshots[:-1]]

    # the line starts found by the read stage (``tail_lines``), or the split's own
    starts = [at for at in [0, *(i + 1 for i, b in enumerate(data) if b == 10)]
              if begin <= at < len(data)] if split else None
    source = read_from(data, begin, starts)
    lines = source.numbered_lines()
    assert isinstance(lines, NumberedLines)
    assert [(n, bytes(v)) for n, v, _ in lines.views()] == expected
    assert list(lines) == expected  # the copying pass too, diagnostics not doubled
    assert [d.line for d in source.diagnostics if d.kind == "attribution-snapshot"] == dropped
    assert [d.through for d in source.diagnostics if d.kind == "before-compact-boundary"] \
        == ([first - 1] if begin else [])
    joined, end, numbers = join_lines(source.numbered_lines())
    assert joined[:end].split(b"\n") == ([line for _, line in expected] or [b""])
    assert list(numbers) == [n for n, _ in expected]
    joined, end, numbers = join_lines(source.numbered_lines())
    list(read_values(joined, numbers, end))  # counted as the reader goes, then the rest
    assert list(numbers) == [n for n, _ in expected]


_MARKED = [
    boundary("cb", "x").rstrip(b"\n"),
    boundary("cb", "x", preservedSegment={"headUuid": "h"}).rstrip(b"\n"),
    boundary("cb", "x", preservedMessages={"uuids": []}).rstrip(b"\n"),
    b'{"type":"user","uuid":"u","text":"compact_boundary \\"compact_boundary\\""}',
    b'{"type":"attribution-snapshot","subtype":"compact_boundary"}',
    b'{"pad":"' + b"p" * 300 + b'","type":"system","subtype":"compact_boundary","uuid":"c"}',
    b'{"type":"system","subtype":"compact_boundary","uuid":"c"',
    b'{"type":"user","uuid":"a"}', b"", b"x" * 90,
    # lines the split's snapshot test must tell apart
    b'{"type":"attribution-snapshot"', b"i" * 30, b'{"type":"attri', b'{"type":"attribution"}',
]


@given(st.lists(st.sampled_from(_MARKED), max_size=14), st.booleans(), st.sampled_from([64, 256]))
def test_the_tail_split_finds_the_last_plain_boundary_and_the_lines_from_it(
        pieces: list[bytes], final_newline: bool, chunk: int) -> None:
    """``tail_lines`` (one pass from the end, each line tested where the SDK looks) finds
    the start ``last_boundary_start`` finds (the marker searched in the whole buffer,
    chunk edges included), the start of every line from there on, and whether one of
    those lines starts as an attribution snapshot."""
    from rechain.reference import read

    data = b"\n".join(pieces) + (b"\n" if final_newline and pieces else b"")
    saved = read.CHUNK_BYTES
    read.CHUNK_BYTES = chunk  # small chunks: lines cross their edges all the time
    try:
        begin, starts, snapshot = read.tail_lines(data)
        assert begin == read.last_boundary_start(data)
    finally:
        read.CHUNK_BYTES = saved
    assert starts == [at for at in [0, *(i + 1 for i, b in enumerate(data) if b == 10)]
                      if begin <= at < len(data)]
    assert snapshot == any(data.startswith(read.SNAPSHOT_PREFIX, at) for at in starts)


_NEAR_SNAPSHOT = [
    b'{"type":"attribution-snapshot","messageId":"m"}', b'{"type":"attribution-snapshot"',
    b'{"type":"attribution-snapshoX"}', b'{"type":"attribution"}', b'{"type":"assistant"}',
    b'{"type":"user","uuid":"a"}', b"iiiiiiiiiiiiiiii", b"", b"{", b'{"type":"attri',
    b' {"type":"attribution-snapshot"}',
]


@given(st.lists(st.sampled_from(_NEAR_SNAPSHOT), max_size=10), st.booleans())
def test_the_snapshot_probe_finds_a_snapshot_line_exactly_when_one_starts_with_the_prefix(
        pieces: list[bytes], final_newline: bool) -> None:
    """``any_snapshot`` reads one byte of each line before testing the whole prefix: it
    answers as the prefix tested at every line start, short last lines included."""
    from rechain.reference.read import SNAPSHOT_PREFIX, any_snapshot

    data = b"\n".join(pieces) + (b"\n" if final_newline and pieces else b"")
    starts = [at for at in [0, *(i + 1 for i, b in enumerate(data) if b == 10)]
              if at < len(data)]
    assert any_snapshot(data, starts) == any(data.startswith(SNAPSHOT_PREFIX, at)
                                              for at in starts)


@given(st.lists(st.integers(0, 40), max_size=60), st.integers(1, 8), st.integers(0, 4),
       st.integers(0, 2000))
def test_lines_before_counts_the_lfs_as_bytes_count_does(lengths: list[int], block: int,
                                                         short: int, cut: int) -> None:
    """``read.lines_before`` (a ``find`` a line, a block of short lines counted instead)
    answers ``bytes.count`` on any lines, any block size and any end, blocks edges inside
    lines and on LFs included."""
    from rechain.reference import read

    data = b"".join(b"x" * n + b"\n" for n in lengths) + b"tail"
    end = min(cut, len(data))
    saved = read._COUNT_BLOCK, read._SHORT_LINES
    read._COUNT_BLOCK, read._SHORT_LINES = block, short
    try:
        assert read.lines_before(data, end) == data.count(b"\n", 0, end)
    finally:
        read._COUNT_BLOCK, read._SHORT_LINES = saved


def test_a_long_tail_is_read_in_the_files_own_buffer_as_a_copied_tail_is() -> None:
    """When the last plain boundary comes early, the SDK's lines stay in the file's buffer
    (``Source.offset``), numbered as in the file, snapshots before the boundary not read
    and the tail's handled as in a copy of the tail."""
    from rechain.reference import read
    from rechain.reference.parse import parse_sdk

    snap = b'{"type":"attribution-snapshot","messageId":"m"}\n'
    head = row("p1", None) + snap + row("p2", "p1", "assistant")
    tail, parent = bytearray(), "cb"
    for n in range(40):
        uuid = f"t{n}"
        tail += row(uuid, parent, "user" if n % 2 else "assistant", content=BIG)
        if n == 7 or n == 20:
            tail += snap
        parent = uuid
    data = head + boundary("cb", "p2") + bytes(tail)
    assert len(data) > LARGE_FILE_BYTES
    source = read.read_sdk(data, False)
    assert source.data is data and source.offset == len(head)
    tail = read.tail_lines(data)
    assert tail.snapshot  # two snapshots after the boundary
    copied = read.read_from(data, tail.begin, tail.starts)
    assert copied.offset == 0 and copied.data == data[len(head):]
    lazy, eager = parse_sdk(source.numbered_lines()), parse_sdk(copied.numbered_lines())
    assert (list(lazy.entries), lazy.lines, lazy.facts) == (
        list(eager.entries), eager.lines, eager.facts)
    result = rebuild(data)
    assert result.uuids == [f"t{n}" for n in range(40)]
    first = data.count(b"\n", 0, len(head)) + 1
    assert result.messages[0]["line"] == first + 1
    snaps, at = [], data.find(snap)
    while at != -1:
        snaps.append(data.count(b"\n", 0, at) + 1)
        at = data.find(snap, at + 1)
    dropped = [d.line for d in result.diagnostics if d.kind == "attribution-snapshot"]
    assert dropped == [snaps[1]]  # the tail's first; its last is read; the head's is skipped
    assert source.numbered_lines().whole() is False
    lines = data[: len(head)] + boundary("cb", "p2") + row("u9", "cb")
    assert read.SnapshotLines(lines, 1, [], None, len(head)).whole()  # the head's not read
    assert not read.SnapshotLines(lines, 1, []).whole()
