"""The CLI profile's glance-then-decode load answers exactly as decoding every line.

The eager load is the same parser with ``glance=None``: every line goes through the
JSONL reader's decoder and the loader's dispatch. Every rebuild, view and diagnostic
must be the same either way, for the pinned release and for a release of the family
whose switches differ (what the loader rewrites or drops changes with them).
"""

from __future__ import annotations

import dataclasses
from functools import partial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rechain.reference import Options
from rechain.reference.lazyrows import LazyChain, Pending
from rechain.reference.profiles import get_profile
from rechain.reference.profiles.family import profile_for
from rechain.reference.stages import Profile, drive
from rechain.strategies import corrupted, transcripts

CLI = get_profile("cli")
# an older release: assistant text content kept as a string, voice-call rows not rewritten,
# stray results not recovered, no interleaving of what recovery puts back
OLDER = profile_for("2.1.120")
PROFILES = [CLI, OLDER]


def _eager(profile: Profile) -> Profile:
    """The profile with its loader decoding every line (no glance)."""
    return dataclasses.replace(profile, parse=partial(profile.parse, glance=None))


def _answers(data: bytes, profile: Profile, options: Options) -> list[object]:
    result = drive(data, profile, options, None)
    return [result.to_json(), *(result.view(name) for name in sorted(profile.views))]


def _facts(data: bytes, profile: Profile) -> list[object]:
    """The facts and the loader's notes the parse stage leaves for the later stages."""
    parsed = profile.parse(profile.read(data, Options()).numbered_lines())
    return [parsed.facts, parsed.lines, dataclasses.asdict(parsed.extras["claude-code"])]


def _agree(data: bytes, profile: Profile = CLI, options: Options | None = None) -> None:
    options = options or Options()
    assert _answers(data, profile, options) == _answers(data, _eager(profile), options)
    assert _facts(data, profile) == _facts(data, _eager(profile))


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=40, deadline=None)
@given(t=transcripts(rewinds=True, compaction=True))
def test_lazy_and_eager_cli_load_agree_on_generated_transcripts(profile: Profile,
                                                                t: object) -> None:
    _agree(t.to_bytes(), profile)  # type: ignore[attr-defined]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=60, deadline=None)
@given(c=corrupted(transcripts(rewinds=True, compaction=True)))
def test_lazy_and_eager_cli_load_agree_on_corrupted_transcripts(profile: Profile,
                                                                c: object) -> None:
    _agree(c.data, profile)  # type: ignore[attr-defined]


@settings(max_examples=30, deadline=None)
@given(c=corrupted(transcripts(rewinds=True)), interrupted=st.booleans())
def test_lazy_and_eager_cli_load_agree_when_resuming_an_interrupted_turn(
        c: object, interrupted: bool) -> None:
    _agree(c.data, CLI, Options(resume_interrupted_turn=interrupted))  # type: ignore[attr-defined]


# rows the CLI's loader rewrites, drops or reads beyond the glance's fields, and lines
# where a fast decoder could part from the JSONL reader: each must be decided exactly
TRICKY = [
    b'{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z",'
    b'"message":{"role":"user","content":"hello"}}',
    b'{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.000Z",'
    b'"message":{"id":"m1","role":"assistant","content":[{"type":"tool_use","id":5,'
    b'"name":"Bash","input":{}}]}}',
    b'{"type":"attachment","uuid":"t1","parentUuid":"a1","timestamp":"2026-01-01T00:00:01.500Z",'
    b'"attachment":{"type":"hook_success"}}',
    b'{"type":"assistant","uuid":"a2","parentUuid":"a1","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"id":"m2","role":"assistant","content":"  "}}',
    b'{"type":"assistant","uuid":"a3","parentUuid":"a2","message":{"id":"m3","content":'
    b'[{"type":"text","text":"x"},{"type":7},{"text":"no type"}]}}',
    b'{"type":"user","uuid":"u2","sentAsUuid":"s2","parentUuid":"a3",'
    b'"message":{"role":"user","content":[{"type":"text","text":"hi"}]}}',
    b'{"type":"progress","uuid":"p1","parentUuid":"u2"}',
    b'{"type":"progress","uuid":7,"parentUuid":"u2"}',
    b'{"type":"user","uuid":"u3","parentUuid":"p1","message":{"content":"after progress"}}',
    b'{"type":"user","uuid":"u4","parentUuid":{"o":1},"message":{"content":"odd parent"}}',
    b'{"type":"user","uuid":{"id":1},"parentUuid":"u3","message":{"content":"odd uuid"}}',
    b'{"type":"user","uuid":"u5","parentUuid":"u3","message":null}',
    b'{"type":"user","uuid":"u6","parentUuid":"u5","message":{"content":"below a dropped row"}}',
    b'{"type":"system","subtype":"compact_boundary","uuid":"b1","parentUuid":"u6",'
    b'"compactMetadata":{"preservedSegment":{"headUuid":"u3","tailUuid":"u6","anchorUuid":"b1"}}}',
    b'{"type":"system","subtype":"file_snapshot","uuid":"f1","parentUuid":"b1"}',
    b'{"type":"system","subtype":"voice_call_talk","uuid":"v1","parentUuid":"b1","content":"x",'
    b'"origin":{"kind":"voice-call"}}',
    b'{"type":"attachment","uuid":"k1","parentUuid":"b1","isSidechain":false,'
    b'"attachment":{"type":"fork_briefing"}}',
    b'{"type":"last-prompt","leafUuid":"u6"}',
    b'{"type":"user","uuid":"u7","parentUuid":"u6","isSidechain":1e400,"message":{"content":"s"}}',
    b'{"type":"user","uuid":"u8","parentUuid":"u7","x":"\\ud800","message":{"content":"s"}}',
    b'{"\\u0074ype":"user","\\u0075uid":"u9","parentUuid":"u8","message":{"content":"esc"}}',
    b'{"type":"user","uuid":"u10","uuid":"u11","parentUuid":"u9","message":{"content":"dup"}}',
    b'{"type":"user","uuid":"u12","parentUuid":"u11","message":{"content":"a"}} {"x":1}',
    b'{"type":"user","uuid":"u13","parentUuid":"u12",',
    b'"message":{"content":"across lines"}}',
    b'{"type":"user","uuid":"u14","parentUuid":"u13","message":{"content":"cr"}}\r',
    b'{"type":"user","uuid":"u15","parentUuid":"u14","message":{"content":"ff"}}\x0c',
    b'{"type":"summary","summary":"s","leafUuid":"u15"}',
    b'{"type":"user","uuid":"u16","parentUuid":"u15","message":{"content":[1,"x"]}}',
    b'{"type":"user","uuid":"u17","parentUuid":"u16","x":' + b"[" * 1500 + b"]" * 1500 + b"}",
    b"null",
    b"[1]",
    b"",
    b"  \t",
]

# main-chain rows (``isSidechain: false``) the loader keeps as written, with every field
# their facts read: writers, teams, calls and results of every id type, odd message ids
MAIN = [
    b'{"type":"user","uuid":"m1","parentUuid":null,"isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"go"}}',
    b'{"type":"assistant","uuid":"m2","parentUuid":"m1","isSidechain":false,"agentId":"ag",'
    b'"timestamp":"2026-01-02T00:00:01.000Z","message":{"id":"x1","role":"assistant",'
    b'"content":[{"type":"text","text":"t"},{"type":"tool_use","id":"c1","name":"B","input":{}},'
    b'{"type":"tool_use","id":7,"name":"B","input":{}}]}}',
    b'{"type":"assistant","uuid":"m3","parentUuid":"m2","isSidechain":false,"agentId":3,'
    b'"teamName":"red","timestamp":"2026-01-02T00:00:02.000Z","message":{"id":9,'
    b'"role":"assistant","content":[{"type":"tool_use","id":8,"name":"B","input":{}}]}}',
    b'{"type":"user","uuid":"m4","parentUuid":"m3","isSidechain":false,"teamName":"",'
    b'"sourceToolAssistantUUID":"m2","timestamp":"2026-01-02T00:00:03.000Z","message":'
    b'{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1"},'
    b'{"type":"tool_result","tool_use_id":4},{"type":"tool_use","id":"u"}]}}',
    b'{"type":"user","uuid":"m5","parentUuid":"m4","isSidechain":false,"agentId":null,'
    b'"sourceToolAssistantUUID":5,"timestamp":"2026-01-02T00:00:04.000Z","message":'
    b'{"role":"user","content":[{"type":"tool_result"}]}}',
    b'{"type":"assistant","uuid":"m6","parentUuid":"m5","isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:05.000Z","message":{"id":"","role":"assistant",'
    b'"content":[]}}',
    b'{"type":"user","uuid":"m7","parentUuid":"p1","isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:06.000Z","message":{"role":"user","content":[]}}',
    b'{"type":"assistant","uuid":"m8","parentUuid":"m6","isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:07.000Z","message":{"id":"x8","content":"said"}}',
    b'{"type":"assistant","uuid":"m9","parentUuid":"m8","isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:08.000Z","message":{"id":"x9","content":"  "}}',
    b'{"type":"user","uuid":"m10","parentUuid":"m9","isSidechain":false,'
    b'"timestamp":"2026-01-02T00:00:09.000Z","message":{"role":"user","content":7}}',
]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@pytest.mark.parametrize("at", range(len(MAIN)))
def test_lazy_and_eager_cli_load_agree_on_main_chain_rows(profile: Profile, at: int) -> None:
    _agree(b"\n".join([*MAIN[at:], *TRICKY[:8], *MAIN[:at]]) + b"\n", profile)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(MAIN + TRICKY[:8]), max_size=10))
def test_lazy_and_eager_cli_load_agree_on_any_arrangement_of_main_chain_rows(
        lines: list[bytes]) -> None:
    _agree(b"\n".join(lines) + b"\n")


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@pytest.mark.parametrize("at", range(0, len(TRICKY), 3))
def test_lazy_and_eager_cli_load_agree_on_rows_the_loader_rewrites(profile: Profile,
                                                                   at: int) -> None:
    data = b"\n".join([*TRICKY[at:], *TRICKY[:at]]) + b"\n"
    _agree(data, profile)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(TRICKY), max_size=12), st.booleans())
def test_lazy_and_eager_cli_load_agree_on_any_arrangement(lines: list[bytes], last: bool) -> None:
    _agree(b"\n".join(lines) + (b"\n" if last else b""))


@given(st.binary(max_size=200))
def test_lazy_and_eager_cli_load_agree_on_any_bytes(data: bytes) -> None:
    _agree(data)


def test_a_cli_chain_rebuild_holds_its_rows_as_bytes_and_builds_each_message_when_read(
        ) -> None:
    """Every row of a long chain is returned; none is held decoded by the load, the
    chain or the messages, and the messages are those of the eager load."""
    from rechain.conformance.bench.synthetic import synthetic_transcript

    data = synthetic_transcript(200_000, 0, "chain")
    result = drive(data, CLI, Options(), None)
    assert result.run is not None
    stored = list(dict.values(result.run.graph.nodes))
    undecoded = [r for r in stored if type(r) is Pending and r.value is None]
    assert len(stored) > 400 and len(undecoded) == len(stored) - 1  # the leaf was read
    assert type(result.run.chain) is LazyChain
    messages = list(result.messages)
    assert len(messages) == len(stored)
    assert all(r.value is None for r in undecoded)  # read, and still not kept decoded
    assert messages == list(drive(data, _eager(CLI), Options(), None).messages)


def test_a_linear_rebuild_keeps_the_chain_undecoded_through_recovery() -> None:
    """On a transcript of tool calls and results, recovery reads the turns it acts on:
    the walked chain's rows stay undecoded but for the few the relinks rewrite (the
    rows recovery puts back are decoded)."""
    from rechain.conformance.bench.synthetic import synthetic_transcript

    data = synthetic_transcript(1_000_000, 0, "linear")
    result = drive(data, CLI, Options(), None)
    assert result.run is not None
    chain = result.run.chain
    assert type(chain) is LazyChain
    recovered = result.run.graph.extras["claude-code:recovered"]
    walked = [row for row, uuid in zip(chain.stored(), chain.uuids, strict=True)
              if uuid not in recovered]
    decoded = [row for row in walked if type(row) is not Pending or row.value is not None]
    assert len(walked) > 100 and len(decoded) * 10 < len(walked)


def test_a_call_whose_id_is_not_a_string_still_brings_back_the_asides_below_it() -> None:
    """A row kept undecoded whose tool_use block has no string id names no call in its
    facts; recovery must still know it made one (the aside below it comes back)."""
    data = b"\n".join([
        TRICKY[0], TRICKY[1], TRICKY[2],
        b'{"type":"user","uuid":"u2","parentUuid":"a1","timestamp":"2026-01-01T00:00:03.000Z",'
        b'"message":{"role":"user","content":"next"}}',
    ]) + b"\n"
    _agree(data)
    assert drive(data, CLI, Options(), None).view("chain")["chain"] == ["u1", "a1", "t1", "u2"]


def test_a_decoded_row_whose_call_id_is_not_a_string_still_brings_back_its_asides() -> None:
    """The same call in a row the loader decodes (a block without a string type is
    dropped from it): the loader notes the call its facts miss for that row too."""
    decoded = TRICKY[1].replace(b'"input":{}}]', b'"input":{}},{"type":7}]')
    data = b"\n".join([
        TRICKY[0], decoded, TRICKY[2],
        b'{"type":"user","uuid":"u2","parentUuid":"a1","timestamp":"2026-01-01T00:00:03.000Z",'
        b'"message":{"role":"user","content":"next"}}',
    ]) + b"\n"
    _agree(data)
    expected = drive(b"\n".join([TRICKY[0], TRICKY[1], *data.split(b"\n")[2:]]), CLI,
                     Options(), None).view("chain")["chain"]
    assert drive(data, CLI, Options(), None).view("chain")["chain"] == expected


# assistant rows whose message ids are not strings: recovery then groups rows by reading
# each assistant row (its rules), else by the facts' string ids alone
ODD_IDS = [
    b'{"type":"user","uuid":"u1","parentUuid":null,"timestamp":"2026-01-01T00:00:00.000Z",'
    b'"message":{"role":"user","content":"hello"}}',
    b'{"type":"assistant","uuid":"a1","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.000Z",'
    b'"message":{"id":5,"role":"assistant","content":[{"type":"text","text":"one"}]}}',
    b'{"type":"assistant","uuid":"a2","parentUuid":"u1","timestamp":"2026-01-01T00:00:01.500Z",'
    b'"message":{"id":5,"role":"assistant","content":[{"type":"text","text":"two"}]}}',
    b'{"type":"assistant","uuid":"a3","parentUuid":"a1","timestamp":"2026-01-01T00:00:02.000Z",'
    b'"message":{"id":{"k":1},"role":"assistant","content":[{"type":"text","text":"3"}]}}',
    b'{"type":"assistant","uuid":"a4","parentUuid":"a1","timestamp":"2026-01-01T00:00:02.500Z",'
    b'"message":{"id":"m4","role":"assistant","content":[{"type":"tool_use","id":"c1",'
    b'"name":"Bash","input":{}}]}}',
    b'{"type":"user","uuid":"r1","parentUuid":"a4","timestamp":"2026-01-01T00:00:03.000Z",'
    b'"message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1"}]}}',
    b'{"type":"user","uuid":"u2","parentUuid":"a3","timestamp":"2026-01-01T00:00:04.000Z",'
    b'"message":{"role":"user","content":"next"}}',
]


class _GenericRules:
    """Recovery with the CLI's rules always (no by-id shortcut)."""

    def __enter__(self) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import recover

        self.saved = dict(recover._BY_ID)
        recover._BY_ID.update({rules: rules for rules in self.saved})

    def __exit__(self, *exc: object) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import recover

        recover._BY_ID.update(self.saved)


def _same_with_generic_rules(data: bytes, profile: Profile) -> None:
    """Loaded with the glance and decoding every line (each row's id noted either way)."""
    for loaded in (profile, _eager(profile)):
        fast = _answers(data, loaded, Options())
        with _GenericRules():
            assert fast == _answers(data, loaded, Options())


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=100, deadline=None)
@given(st.lists(st.sampled_from(ODD_IDS + TRICKY[:3]), max_size=10))
def test_recovery_by_the_facts_ids_answers_as_its_rules(profile: Profile,
                                                        lines: list[bytes]) -> None:
    _same_with_generic_rules(b"\n".join(lines) + b"\n", profile)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=40, deadline=None)
@given(t=transcripts(rewinds=True, compaction=True))
def test_recovery_by_the_facts_ids_answers_as_its_rules_on_generated_transcripts(
        profile: Profile, t: object) -> None:
    _same_with_generic_rules(t.to_bytes(), profile)  # type: ignore[attr-defined]


# a turn that made a call and what hangs off its row: asides of every kind (the loader
# notes the meta and virtual ones), a row that is none, lines of asides and a fork
ASIDES = [
    b'{"type":"user","uuid":"q1","parentUuid":null,"isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:00.000Z","message":{"role":"user","content":"go"}}',
    b'{"type":"assistant","uuid":"q2","parentUuid":"q1","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:01.000Z","message":{"id":"y2","role":"assistant",'
    b'"content":[{"type":"tool_use","id":"k1","name":"B","input":{}}]}}',
    b'{"type":"user","uuid":"q3","parentUuid":"q2","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:02.000Z","message":{"role":"user",'
    b'"content":[{"type":"tool_result","tool_use_id":"k1"}]}}',
    b'{"type":"user","uuid":"s1","parentUuid":"q2","isSidechain":false,"isMeta":true,'
    b'"timestamp":"2026-01-03T00:00:01.100Z","message":{"role":"user","content":"meta"}}',
    b'{"type":"assistant","uuid":"s2","parentUuid":"q2","isSidechain":false,"isVirtual":true,'
    b'"timestamp":"2026-01-03T00:00:01.200Z","message":{"id":"y9","role":"assistant",'
    b'"content":[{"type":"tool_use","id":"k9","name":"B","input":{}}]}}',
    b'{"type":"user","uuid":"s3","parentUuid":"s2","isSidechain":false,"isVirtual":true,'
    b'"timestamp":"2026-01-03T00:00:01.300Z","message":{"role":"user",'
    b'"content":[{"type":"tool_result","tool_use_id":"k9"}]}}',
    b'{"type":"attachment","uuid":"s4","parentUuid":"q2","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:01.400Z","attachment":{"type":"hook_success"}}',
    b'{"type":"system","uuid":"s5","parentUuid":"s4","isSidechain":false,"subtype":"info",'
    b'"timestamp":"2026-01-03T00:00:01.500Z","content":"x"}',
    b'{"type":"user","uuid":"s6","parentUuid":"s1","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:01.600Z","message":{"role":"user","content":"plain"}}',
    b'{"type":"user","uuid":"s7","parentUuid":"q2","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:01.700Z","message":{"role":"user","content":"branch"}}',
    b'{"type":"system","uuid":"s8","parentUuid":"s7","isSidechain":false,"subtype":"info",'
    b'"timestamp":"2026-01-03T00:00:01.800Z","content":"y"}',
    b'{"type":"user","uuid":"s9","parentUuid":"s4","isSidechain":false,"isMeta":true,'
    b'"isVirtual":true,"timestamp":"2026-01-03T00:00:01.900Z","message":{"content":"m"}}',
    b'{"type":"attachment","uuid":"s10","parentUuid":"q3","isSidechain":false,'
    b'"timestamp":"2026-01-03T00:00:02.100Z","attachment":{"type":"hook_success"}}',
    b'{"type":"user","uuid":"s11","parentUuid":"q2","isSidechain":false,"isMeta":true,'
    b'"sentAsUuid":"q1","timestamp":"2026-01-03T00:00:02.200Z","message":{"content":"m2"}}',
]


class _EveryChild:
    """Recovery mapping every row off the chain by parent, as if each could be an aside."""

    def __enter__(self) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import recover

        self.saved = recover._children
        recover._children = lambda graph, seen, asides: self.saved(  # type: ignore[assignment]
            graph, seen, set(graph.facts()))

    def __exit__(self, *exc: object) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import recover

        recover._children = self.saved  # type: ignore[assignment]


def _same_with_every_child(data: bytes, profile: Profile) -> None:
    for loaded in (profile, _eager(profile)):
        narrow = _answers(data, loaded, Options())
        with _EveryChild():
            assert narrow == _answers(data, loaded, Options())


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=150, deadline=None)
@given(st.permutations(ASIDES[3:]), st.integers(0, 10))
def test_recovery_maps_only_the_rows_that_may_be_asides(profile: Profile, rest: list[bytes],
                                                        cut: int) -> None:
    _same_with_every_child(b"\n".join([*ASIDES[:3], *rest[:cut]]) + b"\n", profile)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=40, deadline=None)
@given(t=transcripts(rewinds=True, compaction=True))
def test_recovery_maps_only_the_rows_that_may_be_asides_on_generated_transcripts(
        profile: Profile, t: object) -> None:
    _same_with_every_child(t.to_bytes(), profile)  # type: ignore[attr-defined]


@settings(max_examples=500, deadline=None)
@given(st.tuples(*(st.integers(0, 10 ** n - 1) for n in (4, 2, 2, 2, 2, 2, 3))),
       st.sampled_from(["{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}Z",
                        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}",
                        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}.{:03d}+00:00",
                        "{:04d}-{:02d}-{:02d} {:02d}:{:02d}:{:02d}.{:03d}Z"]))
def test_a_written_stamp_is_read_as_date_parse_reads_it(fields: tuple[int, ...],
                                                          form: str) -> None:
    """The CLI's recovery reads a stamp in the written form in C; any stamp, in range or
    not (month 13, day 31 of April, hour 24, year 0), is the time ``time_of`` gives."""
    _same_stamp(form.format(*fields))


@pytest.mark.parametrize("stamp", ["2024-02-29T23:59:59.999Z", "2023-02-29T00:00:00.000Z",
                                   "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z",
                                   "1969-12-31T23:59:59.999Z", "2026-01-01T24:00:00.000Z",
                                   "2026-01-01T23:59:60.000Z", "2026-04-31T00:00:00.000Z"])
def test_the_edges_of_a_written_stamp_are_read_as_date_parse_reads_them(stamp: str) -> None:
    _same_stamp(stamp)


def _same_stamp(stamp: str) -> None:
    import math

    from rechain.reference.js.date_iso import time_of
    from rechain.reference.profiles.claude_code_2_1_332.chain import time_of_stamp
    from rechain.reference.profiles.claude_code_2_1_332.recover import _stamp

    expected = time_of(stamp)
    assert _stamp({"timestamp": stamp}) == (math.inf if math.isnan(expected) else expected)
    assert math.isnan(time_of_stamp(stamp)) if math.isnan(expected) \
        else time_of_stamp(stamp) == expected


class _ScannedSystems:
    """The preserved-segment relink and recovery finding the system (and attachment) rows
    by scanning the facts, not from the loader's notes."""

    def __enter__(self) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import load, recover

        self.saved = load._systems, recover._side_rows
        load._systems = lambda graph: self.saved[0](  # type: ignore[assignment]
            dataclasses.replace(graph, position=dict(graph.position)))
        recover._side_rows = lambda graph: self.saved[1](  # type: ignore[assignment]
            dataclasses.replace(graph, position=dict(graph.position)))

    def __exit__(self, *exc: object) -> None:
        from rechain.reference.profiles.claude_code_2_1_332 import load, recover

        load._systems, recover._side_rows = self.saved  # type: ignore[assignment]


def _same_with_scanned_systems(data: bytes, profile: Profile) -> None:
    for loaded in (profile, _eager(profile)):
        noted = _answers(data, loaded, Options())
        with _ScannedSystems():
            assert noted == _answers(data, loaded, Options())


BOUNDARIES = [
    b'{"type":"system","subtype":"compact_boundary","uuid":"c1","parentUuid":"u6",'
    b'"compactMetadata":{"preservedSegment":{"headUuid":"u1","tailUuid":"u3","anchorUuid":"c1"}}}',
    b'{"type":"system","subtype":"compact_boundary","uuid":"c2","parentUuid":null,'
    b'"isSidechain":false,"compactMetadata":{"preservedMessages":{"anchorUuid":"c2",'
    b'"uuids":["u12","u14"]}}}',
    b'{"type":"system","subtype":"compact_boundary","uuid":"c3","parentUuid":"u9",'
    b'"logicalParentUuid":"u9"}',
]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(BOUNDARIES + TRICKY[:16] + TRICKY[20:24] + ASIDES),
                max_size=14))
def test_the_relink_finds_the_system_rows_the_loader_noted(profile: Profile,
                                                           lines: list[bytes]) -> None:
    _same_with_scanned_systems(b"\n".join(lines) + b"\n", profile)


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=40, deadline=None)
@given(t=transcripts(rewinds=True, compaction=True))
def test_the_relink_finds_the_system_rows_the_loader_noted_on_generated_transcripts(
        profile: Profile, t: object) -> None:
    _same_with_scanned_systems(t.to_bytes(), profile)  # type: ignore[attr-defined]


# the last row written is older than a main-chain row below it: the tip is the newest row
# below it on the main chain (a newer sidechain row below it is passed over)
NEWER_BELOW = [
    b'{"type":"user","uuid":"n1","parentUuid":null,"isSidechain":false,'
    b'"timestamp":"2026-01-04T00:00:01.000Z","message":{"role":"user","content":"a"}}',
    b'{"type":"assistant","uuid":"n2","parentUuid":"n1","isSidechain":false,'
    b'"timestamp":"2026-01-04T00:00:05.000Z","message":{"id":"w2","content":[]}}',
    b'{"type":"user","uuid":"n4","parentUuid":"n3","isSidechain":false,'
    b'"timestamp":"2026-01-04T00:00:08.000Z","message":{"role":"user","content":"b"}}',
    b'{"type":"user","uuid":"n5","parentUuid":"n3","isSidechain":true,'
    b'"timestamp":"2026-01-04T00:00:09.000Z","message":{"role":"user","content":"c"}}',
    b'{"type":"user","uuid":"n6","parentUuid":"n4","isSidechain":1,'
    b'"timestamp":"2026-01-04T00:00:09.500Z","message":{"role":"user","content":"d"}}',
    b'{"type":"user","uuid":"n3","parentUuid":"n2","isSidechain":false,'
    b'"timestamp":"2026-01-04T00:00:03.000Z","message":{"role":"user","content":"e"}}',
]


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
@settings(max_examples=100, deadline=None)
@given(st.permutations(NEWER_BELOW[2:5]))
def test_the_newest_row_below_the_last_is_found_from_glances(profile: Profile,
                                                             middle: list[bytes]) -> None:
    _agree(b"\n".join([*NEWER_BELOW[:2], *middle, NEWER_BELOW[5]]) + b"\n", profile)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TRICKY[:20] + MAIN + BOUNDARIES + NEWER_BELOW), max_size=14))
def test_the_facts_hold_each_loaded_rows_string_parent(lines: list[bytes]) -> None:
    """The walks up the chain read parents from the facts (relinked rows included)."""
    from rechain.reference.js.values import UNDEFINED

    for loaded in (CLI, _eager(CLI)):
        run = drive(b"\n".join(lines) + b"\n", loaded, Options(), None).run
        assert run is not None
        nodes, facts = run.graph.nodes, run.graph.facts()
        assert list(nodes) == list(facts)
        for uuid in nodes:
            parent = nodes[uuid].get("parentUuid", UNDEFINED)
            if type(parent) is str or type(facts[uuid][2]) is str:
                assert facts[uuid][2] == parent


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(TRICKY[:20] + MAIN + ASIDES + ODD_IDS), max_size=14))
def test_the_facts_and_notes_hold_each_loaded_rows_call_and_result_ids(
        lines: list[bytes]) -> None:
    """The timestamp bridge reads a row's calls and results from the facts and notes."""
    from rechain.reference.profiles.claude_code_2_1_332.chain import TimestampBridge, _ids

    for loaded in (CLI, _eager(CLI)):
        run = drive(b"\n".join(lines) + b"\n", loaded, Options(), None).run
        assert run is not None
        graph = run.graph
        nodes, facts = graph.nodes, graph.facts()
        bridge = TimestampBridge(graph)
        for uuid in list(nodes):
            assert bridge._calls({uuid}) == _ids((uuid,), nodes, "tool_use", "id")
            assert set(facts[uuid][6] or ()) == _ids((uuid,), nodes, "tool_result",
                                                     "tool_use_id")
