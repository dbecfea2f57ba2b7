"""2.1.88's loader keeps user and assistant rows as their bytes (``glanced.Glanced``) and
its resume keeps them so when its filters pass them through: every rebuild, view and
diagnostic is the same as when every line is decoded, on every entry point and release."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from unittest import mock

import msgspec
import pytest
from hypothesis import given, settings

from rechain.reference import Options
from rechain.reference.js.values import UNDEFINED
from rechain.reference.lazyrows import Pending
from rechain.reference.parse import glanced_row
from rechain.reference.profiles import get_profile
from rechain.reference.profiles.claude_code_2_1_88 import load as seed_load
from rechain.reference.profiles.claude_code_2_1_88 import parse as seed_parse
from rechain.reference.profiles.claude_code_2_1_88 import read as seed_read
from rechain.reference.profiles.claude_code_2_1_88 import resume as seed_resume
from rechain.reference.profiles.claude_code_2_1_88.glanced import (
    SEED_GLANCE,
    Glanced,
    glanced,
    light,
)
from rechain.reference.profiles.claude_code_2_1_88.resume import ENTRY_POINTS, ResumedRows
from rechain.reference.stages import Profile, drive
from rechain.strategies import corrupted, transcripts

RELEASES = ("claude-code@2.1.88", "claude-code@2.1.101", "claude-code@2.1.91",
            "claude-code@2.1.39", "claude-code@2.0.76")


@contextmanager
def _decoding_every_line() -> Iterator[None]:
    """The loader as it was before it glanced: no spans, so every line is decoded, and
    the resume's filters run on the decoded chain."""
    with mock.patch.object(seed_read, "_spans", lambda *_: None), \
            mock.patch.object(seed_resume, "_kept_rows", lambda *_: None):
        yield


def _eager(profile: Profile) -> Profile:
    parse = profile.parse
    return dataclasses.replace(profile, parse=lambda lines: parse(list(lines)))


def _answers(data: bytes, profile: Profile, entry: str) -> list[Any]:
    result = drive(data, profile, Options(entry=entry), None)
    return [result.to_json(), *(result.view(name) for name in profile.views)]


def _agree(data: bytes, release: str = "claude-code@2.1.88") -> None:
    profile = get_profile(release)
    for entry in ENTRY_POINTS:
        lazy = _answers(data, profile, entry)
        with _decoding_every_line():
            eager = _answers(data, _eager(profile), entry)
        assert lazy == eager, entry


@settings(max_examples=40, deadline=None)
@given(transcripts(rewinds=True, compaction=True))
def test_glanced_and_decoded_loads_agree_on_generated_transcripts(t: Any) -> None:
    _agree(t.to_bytes())


@settings(max_examples=60, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_glanced_and_decoded_loads_agree_on_corrupted_transcripts(c: Any) -> None:
    _agree(c.data)


@pytest.mark.parametrize("release", RELEASES)
@settings(max_examples=15, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_every_release_of_the_line_agrees(release: str, c: Any) -> None:
    _agree(c.data, release)


def _row(uuid: str, parent: str | None, kind: str, tail: str) -> bytes:
    head = f'{{"type":"{kind}","uuid":"{uuid}","parentUuid":'
    head += "null" if parent is None else f'"{parent}"'
    return (head + ',"timestamp":"2026-01-01T00:00:0' + uuid[-1] + '.000Z",'
            '"sessionId":"s",' + tail + "}").encode()


_USER = '"message":{"role":"user","content":"hello"}'
# rows whose fields the loader or the resume read, where a glance could part from the row
TRICKY = [
    '"message":{"role":"assistant","id":"m","content":[{"type":"text","text":" "}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"text","text":"\\u00a0x"}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"text","text":"\\n"}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"text","text":5}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"thinking","thinking":"t"}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"tool_use","id":"t",'
    '"name":"TodoWrite","input":{"todos":[{"content":"c"}]}}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"tool_use","id":7,"name":"x"}]}',
    '"message":{"role":"assistant","id":"m","content":[{"type":"tool_use","name":"x"}]}',
    '"message":{"role":"assistant","id":"m","content":"a string"}',
    '"message":{"role":"assistant","id":12,"content":[{"type":"text","text":"x"}]}',
    '"message":null',
    '"isSidechain":"yes",' + _USER,
    '"isSidechain":1e400,' + _USER,
    '"permissionMode":"weird",' + _USER,
    '"permissionMode":"plan",' + _USER,
    '"snipMetadata":{"removedUuids":["u1"]},' + _USER,
    '"x":1e400,' + _USER,
    '"x":"\\ud800",' + _USER,
    '"uuid":"u9",' + _USER,
    '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}',
    '"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":null}]}',
    '"message":{"role":"user","content":[null]}',
    '"isMeta":true,' + _USER,
    '"timestamp":"\\ud800",' + _USER,
    '"timestamp":17e2,' + _USER,
    '"timestamp":null,' + _USER,
]


@pytest.mark.parametrize("at", range(len(TRICKY)))
@pytest.mark.parametrize("kind", ["user", "assistant"])
@pytest.mark.parametrize("last_id", ["m4", "m"])
def test_glanced_and_decoded_loads_agree_on_rows_a_glance_may_misread(
        at: int, kind: str, last_id: str) -> None:
    """``last_id`` "m": the last assistant shares the tricky row's ``message.id`` (a
    thinking-only row then stays)."""
    lines = [_row("u1", None, "user", _USER),
             _row("u2", "u1", kind, TRICKY[at]),
             _row("u3", "u2", "user", _USER),
             _row("u4", "u3", "assistant", '"message":{"role":"assistant","id":"' + last_id
                  + '","content":[{"type":"text","text":"ok"}]}')]
    for tail in ([], [b"\xc2\xa0" + lines[3]], [b'{"type":"user","uuid":"u5"']):
        data = b"\n".join([*lines, *tail]) + b"\n"
        for release in ("claude-code@2.1.88", "claude-code@2.1.39", "claude-code@2.1.101"):
            _agree(data, release)
        _agree(b"\xef\xbb\xbf" + data)


def _glanced_rows_agree(data: bytes) -> int:
    """Every line's ``glanced.glanced`` row against ``parse.glanced_row`` of the same glance
    (the SDK parser's row and facts, ``facts_of`` the decoded row by
    ``tests/test_reference_lazy.py``), as the loader chains them; how many it kept."""
    kept, previous = 0, None
    for number, raw, start in seed_parse.placed_views(data):
        try:
            seen = SEED_GLANCE.decode(raw)
        except (msgspec.DecodeError, RecursionError):
            continue
        row = glanced(data, start, number, seen, previous)
        if row is None:
            continue
        if seen.is_sidechain is UNDEFINED:
            seen.is_sidechain = None  # as the SDK's glance reads an absent one
        expected = glanced_row(data, start, seen, previous)
        assert expected is not None, number
        pending, facts = expected
        assert row.facts == facts and row.line == number, number
        assert (row.row.data, row.row.start, row.row.plain, row.row.value, row.row.stamp) \
            == (pending.data, pending.start, pending.plain, pending.value, pending.stamp), number
        kept += 1
        previous = seen.uuid
    return kept


@settings(max_examples=60, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_a_glanced_row_is_the_sdk_parsers_row_and_facts(c: Any) -> None:
    _glanced_rows_agree(c.data)


@pytest.mark.parametrize("at", range(len(TRICKY)))
@pytest.mark.parametrize("kind", ["user", "assistant"])
def test_a_glanced_tricky_row_is_the_sdk_parsers_row_and_facts(at: int, kind: str) -> None:
    """Rows with calls, results, sidechain flags, agents, teams and stamps of every shape."""
    extra = ['"isSidechain":true,', '"isSidechain":false,', '"agentId":"x",', '"agentId":7,',
             '"teamName":"t",', '"teamName":"",', '"isMeta":true,', '"isMeta":false,',
             '"sourceToolAssistantUUID":"a1",', '"sourceToolAssistantUUID":3,', '']
    lines = [_row("u1", None, "user", _USER)]
    lines += [_row(f"u{n + 2}", f"u{n + 1}", kind, more + TRICKY[at])
              for n, more in enumerate(extra)]
    lines += [_row("u9", "u1", "assistant", '"message":{"role":"assistant","id":"m",'
                   '"content":[{"type":"tool_use","id":"t1","name":"x"},{"type":"tool_use",'
                   '"id":"t2","name":"TodoWrite"}]}'),
              _row("u8", "u9", "user", '"message":{"role":"user","content":[{"type":'
                   '"tool_result","tool_use_id":"t1"},{"type":"tool_result","tool_use_id":'
                   '"t2"}]}')]
    assert _glanced_rows_agree(b"\n".join(lines) + b"\n") >= 3


def test_a_chain_is_held_as_bytes_from_load_to_messages() -> None:
    """On a long chain no row is held decoded: not by the loader, not by the resume's
    messages, not by the SDK parser behind ``read``; the messages are the decoded load's."""
    from rechain.conformance.bench.synthetic import synthetic_transcript

    data = synthetic_transcript(200_000, 0, "chain")
    profile = get_profile("claude-code@2.1.88")
    result = drive(data, profile, Options(), None)
    assert result.run is not None
    outcome = result.run.source.found
    stored = list(outcome.loaded.messages.values())
    assert len(stored) > 400 and all(type(row) is Glanced for row in stored)
    assert type(outcome.resumed.messages) is ResumedRows
    assert all(type(row) is Glanced for row in list.__iter__(outcome.resumed.messages))
    nodes = list(dict.values(result.run.graph.nodes))
    assert all(type(row) is Pending and row.value is None for row in nodes[:-1])
    messages = list(result.messages)
    assert len(messages) == len(stored)
    with _decoding_every_line():
        assert messages == list(drive(data, _eager(profile), Options(), None).messages)


# progress rows the loader bridges from their glance, and shapes it must decode instead
PROGRESS = [
    '{"type":"progress","uuid":"p1","parentUuid":"u1","data":{}}',
    '{"type":"progress","uuid":"p1","parentUuid":null}',
    '{"type":"progress","uuid":"p1"}',
    '{"type":"progress","uuid":"p1","parentUuid":""}',
    '{"type":"progress","uuid":"p1","parentUuid":7}',
    '{"type":"progress","uuid":"p1","parentUuid":1e400}',
    '{"type":"progress","uuid":"p1","parentUuid":"u1","parentUuid":"u0"}',
    '{"type":"progress","uuid":"p1","parentUuid":"\\u0075\\u0031"}',
    '{"type":"progress","uuid":5,"parentUuid":"u1"}',
    '{"type":"progress","parentUuid":"u1"}',
    '{"type":"progress","uuid":"p1","parentUuid":"u1","x":"\\ud800"}',
]


@pytest.mark.parametrize("at", range(len(PROGRESS)))
def test_glanced_and_decoded_loads_agree_on_progress_rows(at: int) -> None:
    """A progress row between two rows (and one bridging to another progress row): the
    bridge, the leaf and every line's reason agree with the decoded load's."""
    lines = [_row("u1", None, "user", _USER), PROGRESS[at].encode(),
             b'{"type":"progress","uuid":"p2","parentUuid":"p1"}',
             _row("u2", "p2", "assistant", '"message":{"role":"assistant","id":"m",'
                  '"content":[{"type":"text","text":"ok"}]}'),
             _row("u3", "p1", "user", _USER)]
    data = b"\n".join(lines) + b"\n"
    for release in RELEASES:
        _agree(data, release)


def _boundary(uuid: str, parent: str, head: str, tail: str, anchor: str) -> bytes:
    return (f'{{"type":"system","subtype":"compact_boundary","uuid":"{uuid}",'
            f'"parentUuid":null,"logicalParentUuid":"{parent}","timestamp":'
            '"2026-01-01T00:00:05.000Z","sessionId":"s","compactMetadata":{"trigger":"auto",'
            f'"preservedSegment":{{"headUuid":"{head}","tailUuid":"{tail}",'
            f'"anchorUuid":"{anchor}"}}}}}}').encode()


@pytest.mark.parametrize("at", range(len(TRICKY)))
def test_rows_before_the_last_boundary_of_a_large_file_agree(at: int) -> None:
    """Over 5 MiB, the rows before the last boundary are glanced at lightly
    (``glanced.Light``): the preserved segment (a tricky row in it, one written again
    after the boundary, one reached through a progress row) and everything the prune
    drops come out as from the decoded load."""
    pad = '"pad":"' + "x" * 2000 + '",'
    body = [_row(f"a{n}", f"a{n - 1}" if n else None, "user" if n % 2 else "assistant",
                 pad + '"message":{"role":"assistant","id":"m' + str(n) + '","content":'
                 '[{"type":"text","text":"x"}]}') for n in range(2700)]
    lines = [*body,
             _row("h1", "a2699", "user", TRICKY[at]),
             b'{"type":"progress","uuid":"p1","parentUuid":"h1"}',
             _row("h2", "p1", "assistant", '"message":{"role":"assistant","id":"m",'
                  '"content":[{"type":"text","text":"ok"}]}'),
             _row("h3", "h2", "user", _USER),
             _boundary("b1", "h3", "h1", "h3", "b1"),
             _row("a5", "b1", "user", _USER),
             _row("h2", "h1", "assistant", '"message":{"role":"assistant","id":"m",'
                  '"content":[{"type":"text","text":"again"}]}'),
             _row("c1", "b1", "user", _USER),
             _row("c2", "c1", "assistant", TRICKY[at])]
    data = b"\n".join(lines) + b"\n"
    assert len(data) > seed_read.shared_read.LARGE_FILE_BYTES
    made: list[Any] = []

    def counted(*args: Any) -> Any:
        row = light(*args)
        made.append(row)
        return row

    with mock.patch.object(seed_parse, "light", counted):
        for release in ("claude-code@2.1.88", "claude-code@2.1.101", "claude-code@2.1.91"):
            _agree(data, release)
    assert any(row is not None for row in made)


def _relinked_in_full(data: bytes) -> None:
    """The preserved-segment relink passing over the children of the anchor the prune drops
    next gives what relinking every row gives (on every entry point and release)."""
    whole = seed_load._relink_segment

    def every_row(*args: Any) -> None:
        whole(*args[:5])  # no ``pruned_before``: each row in the Map looked at

    for release in ("claude-code@2.1.88", "claude-code@2.1.101"):
        profile = get_profile(release)
        for entry in ENTRY_POINTS:
            skipping = _answers(data, profile, entry)
            with mock.patch.object(seed_load, "_relink_segment", every_row):
                assert _answers(data, profile, entry) == skipping, (release, entry)


@settings(max_examples=40, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_the_relink_passes_over_pruned_rows_alike_on_generated_transcripts(c: Any) -> None:
    _relinked_in_full(c.data)


@pytest.mark.parametrize("anchor", ["x1", "m1"])
def test_the_relink_passes_over_pruned_rows_alike(anchor: str) -> None:
    """Children of the anchor before the boundary, pruned (``p1``) or preserved (``h2``
    when the anchor ``m1`` is inside the segment), and after it (``c2``)."""
    assistant = '"message":{"role":"assistant","id":"m","content":[{"type":"text","text":"ok"}]}'
    lines = [_row("x1", None, "user", _USER),
             _row("p1", anchor, "assistant", assistant),
             _row("h1", "x1", "user", _USER),
             _row("m1", "h1", "assistant", assistant),
             _row("h2", anchor if anchor == "m1" else "h1", "user", _USER),
             _row("h3", "h2", "assistant", assistant),
             _boundary("b1", "h3", "h1", "h3", anchor),
             _row("c1", "b1", "user", _USER),
             _row("c2", anchor, "user", _USER),
             _row("c3", "c2", "assistant", assistant)]
    data = b"\n".join(lines) + b"\n"
    _relinked_in_full(data)
    _agree(data)


@pytest.mark.parametrize("bad", ["nowhere", "before", "after", "metadata"])
def test_a_large_file_read_from_a_late_boundary_agrees(bad: str) -> None:
    """Over 5 MiB, with a plain boundary near the end: the lines after it are read in the
    file's own buffer, checked for UTF-8 from the boundary on only, and the metadata lines
    before it are found by their markers. A byte that is not UTF-8 before the boundary,
    after it, or in a metadata line before it comes out as from the decoded load."""
    pad = '"pad":"' + "x" * 2000 + '",'
    body = [_row(f"a{n}", f"a{n - 1}" if n else None, "user" if n % 2 else "assistant",
                 pad + '"message":{"role":"assistant","id":"m' + str(n) + '","content":'
                 '[{"type":"text","text":"x"}]}') for n in range(2700)]
    broken = _row("z1", "a5", "user", '"message":{"role":"user","content":"\xff"}'.encode(
        "latin-1").decode("latin-1"))
    title = b'{"type":"custom-title","customTitle":"T\xff","sessionId":"s"}' \
        if bad == "metadata" else b'{"type":"custom-title","customTitle":"T","sessionId":"s"}'
    lines = [*body[:100], title, b'{"type":"summary","summary":"S","leafUuid":"c2"}',
             *body[100:],
             *([broken.replace(b"\xc3\xbf", b"\xff")] if bad == "before" else []),
             b'{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":null,'
             b'"timestamp":"2026-01-01T00:00:05.000Z","sessionId":"s","compactMetadata":'
             b'{"trigger":"auto"}}',
             _row("c1", "b1", "user", _USER),
             *([broken.replace(b"\xc3\xbf", b"\xff")] if bad == "after" else []),
             _row("c2", "c1", "assistant", '"message":{"role":"assistant","id":"m",'
                  '"content":[{"type":"text","text":"ok"}]}')]
    data = b"\n".join(lines) + b"\n"
    assert len(data) > seed_read.shared_read.LARGE_FILE_BYTES
    assert (b"\xff" in data) == (bad != "nowhere")
    for release in ("claude-code@2.1.88", "claude-code@2.1.101", "claude-code@2.1.91"):
        _agree(data, release)


# the timestamp of a tool result, as its line writes it ("absent": no timestamp key)
RESULT_STAMPS = ['"2026-01-01T00:00:09.000Z"', '"2026-01-01T00:00:01.000Z"', "null", "absent",
                 "17e2", '"\\ud800"', "1e400", '{"a":1}', '"not a date"', '"2026-01-01T00:00:09Z"',
                 '"2026-01-01T00:00:01.000Z","timestamp":"2026-01-01T00:00:09.000Z"',
                 '"2026-01-01T00:00:09.000Z","\\u0074imestamp":"2026-01-01T00:00:01.000Z"',
                 "123456789012345678901234567890"]


@pytest.mark.parametrize("stamp", RESULT_STAMPS)
def test_a_tool_results_kept_timestamp_reads_as_its_line(stamp: str) -> None:
    """The loader keeps a tool result's timestamp from its glance (the leaf choice and the
    recovery sort read the stamps of results): two results of parallel calls are both
    leaves and orphans, the one with the odd timestamp chosen or sorted as when every line
    is decoded."""
    stamped = "" if stamp == "absent" else f',"timestamp":{stamp}'

    def result(uuid: str, call: str, when: str) -> bytes:
        return (f'{{"type":"user","uuid":"{uuid}","parentUuid":"a2"{when},"sessionId":"s",'
                f'"message":{{"role":"user","content":[{{"type":"tool_result",'
                f'"tool_use_id":"{call}","content":"out"}}]}}}}').encode()

    lines = [_row("u1", None, "user", _USER),
             _row("a2", "u1", "assistant", '"message":{"role":"assistant","id":"m","content":['
                  '{"type":"tool_use","id":"t1","name":"Bash","input":{}},'
                  '{"type":"tool_use","id":"t2","name":"Bash","input":{}}]}'),
             result("r3", "t1", stamped),
             result("r4", "t2", ',"timestamp":"2026-01-01T00:00:05.000Z"'),
             result("r5", "t1", ',"timestamp":"2026-01-01T00:00:03.000Z"')]
    data = b"\n".join(lines) + b"\n"
    for release in RELEASES:
        _agree(data, release)
