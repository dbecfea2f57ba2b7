"""The glance-then-decode parse (``lazyrows.py``) answers exactly as parsing every line.

The eager path is the same parser fed copied lines (``list(NumberedLines)``), which
never glances: every rebuild, view and diagnostic must be the same either way.
"""

from __future__ import annotations

import dataclasses

import msgspec
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.reference import PROFILES, Options
from rechain.reference.facts import facts_of
from rechain.reference.js.values import UNDEFINED
from rechain.reference.lazyrows import (
    Block,
    GlancedMessage,
    LazyEntries,
    LazyNodes,
    Pending,
    glance,
    row_of,
    valid_utf8,
)
from rechain.reference.parse import parse_sdk
from rechain.reference.profiles import get_profile
from rechain.reference.read import NumberedLines
from rechain.reference.stages import Profile, drive
from rechain.strategies import corrupted, transcripts

SDK = get_profile("sdk")


def _eager(profile: Profile) -> Profile:
    """The profile with its parser fed copied lines: no glance, every line decoded."""
    parse = profile.parse
    return dataclasses.replace(profile, parse=lambda lines: parse(list(lines)))


def _both(data: bytes, profile: Profile = SDK) -> tuple[dict[str, object], dict[str, object]]:
    lazy = drive(data, profile, Options(), None)
    eager = drive(data, _eager(profile), Options(), None)
    return lazy.to_json(), eager.to_json()


@settings(max_examples=60)
@given(transcripts(rewinds=True, compaction=True))
def test_lazy_and_eager_parse_agree_on_generated_transcripts(t: object) -> None:
    lazy, eager = _both(t.to_bytes())  # type: ignore[attr-defined]
    assert lazy == eager


@settings(max_examples=80)
@given(corrupted(transcripts(rewinds=True)))
def test_lazy_and_eager_parse_agree_on_corrupted_transcripts(c: object) -> None:
    lazy, eager = _both(c.data)  # type: ignore[attr-defined]
    assert lazy == eager


@pytest.mark.parametrize("name", sorted(PROFILES))
@settings(max_examples=25)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_every_profile_reads_a_whole_buffer_as_its_copied_lines(name: str, c: object) -> None:
    """The buffer read in place (views, the CLI's reader without a joined copy) answers as
    the same lines copied one by one."""
    lazy, eager = _both(c.data, PROFILES[name])  # type: ignore[attr-defined]
    assert lazy == eager


@pytest.mark.parametrize("name", sorted(PROFILES))
@pytest.mark.parametrize("data", [b'{"type":"x"}\n{\n', b'{"type":"x"}\n{', b'{\n\n', b'\n'],
                         ids=["open-brace-then-lf", "open-brace-at-end", "blank-line-last", "lf"])
def test_a_buffer_ending_in_lf_reads_as_its_lines(name: str, data: bytes) -> None:
    """The lines joined again lack the file's last LF; the buffer read in place must too
    (an unfinished value's error names the same character)."""
    lazy, eager = _both(data, PROFILES[name])
    assert lazy == eager


# lines where a fast decoder could part from JSON.parse: each must be decided exactly
TRICKY = [
    b'{"type":"user","uuid":"a","x":"\\ud800","message":{"role":"user","content":"hi"}}',
    b'{"type":"user","uuid":"a","x":1e400,"parentUuid":null}',
    b'{"type":"user","uuid":"a","uuid":"b","parentUuid":"a"}',
    b'{"type":"user","uuid":"a","message":{"id":"m","content":[{"type":"tool_result",'
    b'"tool_use_id":"t"}]},"message":{"content":"plain"}}',
    b'{"type":"assistant","uuid":"c","message":{"id":"m1","content":[{"type":"tool_use",'
    b'"id":"t1","id":"t2"}]}}',
    b'{"\\u0074ype":"user","\\u0075uid":"d","parentUuid":"c"}',
    b'{"type":"user","uuid":"e","x":' + b"[" * 1500 + b"]" * 1500 + b"}",
    b'{"type":"user","uuid":"f","message":{"content":[1,"x",null]}}',
    b'{"type":"user","uuid":"g","message":{"content":{"type":"tool_result"}}}',
    b'{"type":"user","uuid":"h","x":"a\x01b"}',
    b'{"type":"user","uuid":"i",}',
    b'{"type":"user","uuid":1}',
    b'{"type":["user"],"uuid":"j"}',
    b'{"type":"system","subtype":"voice_call_talk","uuid":"k","content":"x",'
    b'"origin":{"kind":"voice-call"}}',
    b'{"type":"attachment","uuid":"l","attachment":{"type":"queued_command","prompt":"p"}}',
    b'{"type":"file-history-snapshot","messageId":"m"}',
    b'{"type":"user","uuid":"m","isSidechain":1e400,"teamName":"","parentUuid":"l"}',
    b'  \t{"type":"user","uuid":"n","parentUuid":"m"}',
    b"\x00\x00[1]",
    b"null",
    b"",
]


@pytest.mark.parametrize("at", range(len(TRICKY)))
def test_lazy_and_eager_parse_agree_on_lines_a_fast_decoder_may_misread(at: int) -> None:
    data = b"\n".join([*TRICKY[at:], *TRICKY[:at]]) + b"\n"
    stored = parse_sdk(NumberedLines(data)).entries.stored()  # type: ignore[attr-defined]
    assert any(type(row) is Pending for row in stored)  # the glance did keep rows undecoded
    for profile in PROFILES.values():
        lazy, eager = _both(data, profile)
        assert lazy == eager


def test_a_buffer_with_invalid_utf8_is_glanced_and_reported_when_read() -> None:
    data = b'{"type":"user","uuid":"a","x":"\xff"}\n{"type":"user","uuid":"b","parentUuid":"a"}\n'
    assert not valid_utf8(data)
    parsed = parse_sdk(NumberedLines(data))
    assert all(type(row) is Pending for row in parsed.entries.stored())  # type: ignore[attr-defined]
    assert parsed.diagnostics == []  # not checked while parsing
    assert [(d.line, d.kind) for d in parsed.findings()] == [(1, "invalid-utf8")]
    assert parsed.entries[0]["x"] == "\ufffd"  # the row decoded as the SDK decodes it


# lines with bytes that are not UTF-8: in a string the glance skips, in a field it decodes,
# in a key, on a line of another type, on a line that is no JSON, in a result's timestamp
BAD_BYTES = [
    b'{"type":"user","uuid":"o","x":"\xff","parentUuid":"n"}',
    b'{"type":"user","uuid":"p\xfe","parentUuid":"o"}',
    b'{"type":"user","\xc0key":1,"uuid":"q","parentUuid":"o"}',
    b'{"type":"file-history-snapshot","messageId":"\xe2"}',
    b'{"type":"user","uuid":"r","x":"\xe2\x82"',
    b'{"type":"user","uuid":"s","parentUuid":"q","timestamp":"2026\xff","message":{"role":'
    b'"user","content":[{"type":"tool_result","tool_use_id":"t","content":"\xf0\x9f"}]}}',
    b'{"type":"attribution-snapshot","x":"\xff"}',
]


@pytest.mark.parametrize("at", range(len(BAD_BYTES)))
def test_lazy_and_eager_parse_agree_on_lines_with_bytes_that_are_not_utf8(at: int) -> None:
    """Each finding in the place the eager parse puts it: before the line's other findings,
    in line order, for every profile."""
    data = b"\n".join([*TRICKY[:5], BAD_BYTES[at], *TRICKY[5:], *BAD_BYTES[:at]]) + b"\n"
    for profile in PROFILES.values():
        lazy, eager = _both(data, profile)
        assert lazy == eager
    kinds = [d["kind"] for d in _both(data)[0]["diagnostics"]]  # type: ignore[union-attr]
    assert "invalid-utf8" in kinds


def test_a_large_file_reports_bad_bytes_only_in_the_lines_it_reads() -> None:
    """Past 5 MiB the SDK reads from the last plain boundary on: bad bytes before it are
    in no line it parses, those after it are reported."""
    pad = b'{"type":"user","uuid":"u%d","parentUuid":null,"x":"' + b"a" * 2000 + b'"}'
    head = [pad.replace(b"%d", str(n).encode()) for n in range(2700)]
    boundary = (b'{"type":"system","subtype":"compact_boundary","uuid":"cb","parentUuid":null,'
                b'"content":"c","compactMetadata":{"trigger":"auto"}}')
    data = b"\n".join([BAD_BYTES[0], *head, boundary, BAD_BYTES[0].replace(b'"o"', b'"z"', 1)])
    assert len(data) > 5 * 1024 * 1024
    lazy, eager = _both(data + b"\n")
    assert lazy == eager
    bad = [d["line"] for d in lazy["diagnostics"] if d["kind"] == "invalid-utf8"]  # type: ignore[index]
    assert bad == [2703]


def test_utf8_check_spans_chunk_edges() -> None:
    from rechain.reference.lazyrows import _UTF8_CHUNK

    data = b"a" * (2 * _UTF8_CHUNK - 1) + "é".encode() + b"\n"  # é across the second edge
    assert valid_utf8(data)
    assert not valid_utf8(data[:-2])  # ends inside a sequence


def test_glanced_rows_stay_undecoded_until_read() -> None:
    data = (
        b'{"type":"user","uuid":"a","parentUuid":null,"message":{"role":"user","content":"q"}}\n'
        b'{"type":"progress","uuid":"b","parentUuid":"a","data":{"big":[1,2,3]}}\n'
    )
    parsed = parse_sdk(NumberedLines(data))
    assert isinstance(parsed.entries, LazyEntries)
    stored = list(parsed.entries.stored())
    assert all(type(row) is Pending for row in stored)
    assert parsed.facts == [facts_of(orjson.loads(line)) for line in data.splitlines()]
    assert parsed.entries[1] == orjson.loads(data.splitlines()[1])
    assert stored[1].value is not None and stored[0].value is None


def test_lazy_nodes_decode_on_read_and_keep_identity() -> None:
    data = b'{"type":"user","uuid":"a"}'
    row = Pending(data, 0)
    nodes = LazyNodes({"a": row})
    first = nodes["a"]
    assert first == {"type": "user", "uuid": "a"}
    assert nodes.get("a") is first and row.decoded() is first
    assert list(nodes.values()) == [first] and nodes.get("z") is None


def test_short_and_long_lines_are_both_kept_undecoded() -> None:
    short = b'{"type":"user","uuid":"a","parentUuid":null}'
    long = b'{"type":"user","uuid":"b","parentUuid":"a","pad":"' + b"x" * 400 + b'"}'
    stored = list(parse_sdk(NumberedLines(short + b"\n" + long)).entries.stored())  # type: ignore[attr-defined]
    assert type(stored[0]) is Pending and type(stored[1]) is Pending
    assert [row.raw() for row in stored] == [short, long]


def test_glance_names_only_the_graph_fields() -> None:
    seen = glance(b'{"type":"user","uuid":"a","cwd":"/x","message":{"role":"user","id":"m",'
                  b'"content":[{"type":"text","text":"long"}]}}')
    assert seen is not None and (seen.type, seen.uuid, seen.message) == (
        "user", "a", GlancedMessage(id="m", content=[Block(type="text")]))
    assert seen.parent_uuid is UNDEFINED and seen.agent_id is UNDEFINED  # absent, not null
    assert msgspec.structs.asdict(seen).keys() == {
        "uuid", "type", "parent_uuid", "subtype", "is_sidechain", "team_name", "message",
        "attachment", "source", "agent_id", "is_meta", "quiet", "host_hidden", "ran_by",
        "timestamp"}
    renamed = glance(b'{"type":"user","uuid":"a","parentUuid":null,"agentId":"x","isSidechain":1,'
                     b'"teamName":"t","sourceToolAssistantUUID":"s","\\u0075uid":"b"}')
    assert renamed is not None and (renamed.uuid, renamed.parent_uuid, renamed.agent_id,
                                    renamed.is_sidechain, renamed.team_name,
                                    renamed.source) == ("b", None, "x", 1, "t", "s")
    assert glance(b"[1]") is None and glance(b'{"a":"\\ud800"}') is None
    flags = glance(b'{"isMeta":true,"closesQuietTurn":true,"hostHiddenToolUseIds":[],'
                   b'"ranByToolUseId":"t","isMeta":false}')
    assert flags is not None and (flags.is_meta, flags.quiet, flags.host_hidden,
                                  flags.ran_by) == (False, True, [], "t")


@given(st.binary(max_size=200))
def test_lazy_and_eager_parse_agree_on_any_bytes(data: bytes) -> None:
    lazy, eager = _both(data)
    assert lazy == eager


@pytest.mark.parametrize("raw", [b"", b" ", b"  x", b"\x00" * 70_000 + b"{", b"\x00" * 70_000,
                                 b"\x00" * 256 + b" a", b"\x20" * 255 + b"!", b"a"])
def test_leading_bytes_are_counted_as_lstrip_would_without_copying_the_line(raw: bytes) -> None:
    from rechain.reference.parse import _leading

    expected = len(raw) - len(raw.lstrip(bytes(range(0x21))))
    assert _leading(raw) == expected == _leading(memoryview(raw))


@given(st.binary(max_size=300).map(lambda b: b.translate(bytes(range(256))[::-1]) + b))
def test_leading_bytes_agree_with_lstrip_on_any_bytes(raw: bytes) -> None:
    from rechain.reference.parse import _leading

    assert _leading(raw) == len(raw) - len(raw.lstrip(bytes(range(0x21))))


def test_a_chain_rebuild_holds_its_rows_as_bytes_and_builds_each_message_when_read() -> None:
    """Every row of a long chain is returned; none is held decoded, before or after its
    message is read, and the messages are those of the eager parse."""
    from rechain.conformance.bench.synthetic import synthetic_transcript

    data = synthetic_transcript(200_000, 0, "chain")
    result = drive(data, SDK, Options(), None)
    assert result.run is not None
    stored = list(dict.values(result.run.graph.nodes))
    undecoded = [r for r in stored if type(r) is Pending and r.value is None]
    assert len(stored) > 400 and len(undecoded) == len(stored) - 1  # the leaf was read
    messages = list(result.messages)
    assert len(messages) == len(stored)
    assert all(r.value is None for r in undecoded)  # read, and still not kept decoded
    assert messages == list(drive(data, _eager(SDK), Options(), None).messages)
    assert messages[0] is not result.messages[0]  # built afresh each time it is read


@settings(max_examples=60, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_glanced_facts_are_the_decoded_rows_facts(c: object) -> None:
    """The facts read from a glance (``facts.glance_facts``) are ``facts_of`` the row."""
    data: bytes = c.data  # type: ignore[attr-defined]
    lazy = parse_sdk(NumberedLines(data))
    eager = parse_sdk(list(NumberedLines(data)))
    assert lazy.facts == eager.facts
    assert lazy.facts == [facts_of(row) for row in eager.entries]


@settings(max_examples=60, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)), st.booleans())
def test_a_plain_row_is_filtered_by_its_type_as_the_decoded_row_is(c: object,
                                                                   system: bool) -> None:
    """A row the parser marks plain (``Pending.plain``: the SDK view filters it without
    decoding it) is, decoded, no host assistant, queued command or local-command mark,
    and hidden exactly when it is neither a user nor an assistant row (nor a system row
    the options show)."""
    from rechain.reference.hostrows import is_host_assistant
    from rechain.reference.view import hidden_reason

    stored = parse_sdk(NumberedLines(c.data)).entries  # type: ignore[attr-defined]
    for item in getattr(stored, "stored", lambda: [])():
        if type(item) is not Pending or not item.plain:
            continue
        row = item.fresh()
        kind = row["type"]
        assert not is_host_assistant(row) and kind != "attachment" and not row.get("isMeta")
        shown = kind in ("user", "assistant") or (kind == "system" and system)
        assert (hidden_reason(row, system) is None) == shown


@pytest.mark.parametrize("line", [
    b'{"type":"user","uuid":"a","isMeta":true}', b'{"type":"user","uuid":"a","isMeta":1}',
    b'{"type":"assistant","uuid":"a","closesQuietTurn":true,"message":{"content":'
    b'[{"type":"text","text":""}]}}',
    b'{"type":"assistant","uuid":"a","hostHiddenToolUseIds":[]}',
    b'{"type":"assistant","uuid":"a","ranByToolUseId":"t"}',
    b'{"type":"user","uuid":"a","isSidechain":"yes"}', b'{"type":"user","uuid":"a","teamName":""}',
    b'{"type":"user","uuid":"a","isMeta":true,"isMeta":null}',
])
def test_a_row_with_a_view_flag_is_not_plain(line: bytes) -> None:
    """Any flag the SDK view reads, whatever its value but absent, null or false, leaves
    the row to be decoded (the last of duplicate keys counting, as in ``JSON.parse``)."""
    (item,) = parse_sdk(NumberedLines(line)).entries.stored()  # type: ignore[attr-defined]
    assert type(item) is Pending
    assert item.plain is line.endswith(b'"isMeta":null}')


@settings(max_examples=40, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_a_glanced_timestamp_is_the_decoded_rows(c: object) -> None:
    """Orphan recovery sorts rows kept undecoded by a glance at their timestamp
    (``stamp_of``): the decoded row's ``timestamp``, the row left undecoded."""
    from rechain.reference.lazyrows import stamp_of

    stored = parse_sdk(NumberedLines(c.data)).entries  # type: ignore[attr-defined]
    for item in getattr(stored, "stored", lambda: [])():
        assert stamp_of(item) == row_of(item).get("timestamp")
        assert type(item) is not Pending or item.value is None


@pytest.mark.parametrize("stamp", [b'"2026-01-01T00:00:00.000Z"', b"null", b"1e400", b"12",
                                   b'{"a":1}', b'"x","timestamp":"y"', b'"\\u00e9"',
                                   b"123456789012345678901234567890"])
@pytest.mark.parametrize("result", [False, True], ids=["prompt", "tool-result"])
def test_a_timestamp_of_any_shape_is_read_as_json_parse_reads_it(stamp: bytes,
                                                                  result: bool) -> None:
    """A tool result keeps its timestamp from the glance (``Pending.stamp``), any other row
    reads it from its line when asked: either way as ``JSON.parse`` reads it."""
    from rechain.reference.lazyrows import UNKEPT, stamp_of

    content = b'"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]},' \
        if result else b""
    line = b'{"type":"user","uuid":"a",' + content + b'"\\u0074imestamp":' + stamp + b"}"
    (item,) = parse_sdk(NumberedLines(line)).entries.stored()  # type: ignore[attr-defined]
    assert type(item) is Pending
    assert (item.stamp is not UNKEPT) is (result and stamp in (
        b'"2026-01-01T00:00:00.000Z"', b"null", b'"x","timestamp":"y"', b'"\\u00e9"'))
    assert stamp_of(item) == orjson.loads(line.replace(b"1e400", b"1e300")).get("timestamp") \
        or stamp == b"1e400"
    assert stamp_of(item) == row_of(item).get("timestamp")


def test_the_load_leaves_the_collector_as_found_and_its_objects_out_of_the_young() -> None:
    """``drive`` pauses the collector and then moves what a large load made to the oldest
    generation (so the first young collection after it does not scan the load again), a
    small one's left to the collector; a caller's own frozen objects stay frozen and a
    caller's paused collector stays paused."""
    import gc

    data = b"".join(orjson.dumps({"type": "user", "uuid": f"u{i}", "parentUuid": f"u{i - 1}"
                                  if i else None, "message": {"content": "hi"}}) + b"\n"
                    for i in range(12_000))
    if not gc.isenabled() or gc.get_freeze_count():
        pytest.skip("the collector is paused or holds frozen objects already")
    result = drive(data, SDK, Options(), None)
    assert gc.isenabled() and gc.get_freeze_count() == 0
    assert gc.get_count()[0] < 700  # the load's thousands of facts are not young
    assert len(result.messages) == 12_000
    small = data[: data.index(b"u100")]  # a hundred rows: their objects stay young
    drive(small, SDK, Options(), None)
    assert gc.get_count()[0] > 0 or gc.get_count()[1] > 0
    gc.freeze()
    frozen = gc.get_freeze_count()
    try:
        drive(data, SDK, Options(), None)
        assert gc.get_freeze_count() == frozen  # the caller's freeze is not undone
        gc.disable()
        drive(data, SDK, Options(), None)
        assert not gc.isenabled()
    finally:
        gc.enable()
        gc.unfreeze()


def test_diagnostics_are_worked_out_when_first_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A caller that reads only the messages never pays for the findings of every line left
    out; one that reads them gets them once, equal to the tuple they were."""
    from rechain.reference import rebuild, stages

    calls: list[int] = []
    real = stages.left_out

    def counted(*args: object, **kwargs: object) -> object:
        calls.append(1)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(stages, "left_out", counted)
    data = b"\n".join(TRICKY) + b"\n"
    result = rebuild(data, "sdk")
    assert [m["line"] for m in result.messages]
    assert calls == []
    found = tuple(result.diagnostics)
    assert calls == [1] and found and result.diagnostics == found == tuple(result.diagnostics)
    assert calls == [1]
