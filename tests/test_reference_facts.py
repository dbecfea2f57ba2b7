"""The speed-ups keep the answers: line views, per-entry facts, facts kept in step with relinks."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from transcript_rows import assistant, jsonl, result, system, tool_use, user

from rechain.reference import rebuild
from rechain.reference.facts import ANSWERS, CALLS, ELIGIBLE, KIND, MESSAGE_ID, PARENT, facts_of
from rechain.reference.graph import index, relink_compactions
from rechain.reference.parse import parse_sdk
from rechain.reference.read import NumberedLines, read_whole
from rechain.strategies import corrupted, transcripts

EDGES = [b"", b"\n", b"\n\n", b"a", b"a\n", b"a\nb", b"a\n\nb\n", b"\r\n\r", b"a\rb\n", b"\x00\n "]


@pytest.mark.parametrize("data", EDGES)
def test_line_views_are_exactly_the_split_lines(data: bytes) -> None:
    lines = NumberedLines(data, 7)
    assert [(n, bytes(v)) for n, v, _ in lines.views()] == list(lines)


def transcript() -> bytes:
    return jsonl(
        user("u1", None),
        assistant("a1", "u1", mid="m1", blocks=[tool_use("t1")]),
        assistant("a2", "a1", mid="m1", blocks=[tool_use("t2")]),
        result("r2", "a2", "t2", sourceToolAssistantUUID="a2"),
        result("r1", "a1", "t1", sourceToolAssistantUUID="a1"),
        user("u1", None, "written again"),
        system("c1", None, subtype="compact_boundary",
               compactMetadata={"preservedSegment": {"headUuid": "u1", "anchorUuid": "s1",
                                                     "tailUuid": "r2"}}),
        user("s1", "c1", "summary", isCompactSummary=True),
        user("x1", "s1", isSidechain=True),
        user("n1", "r1", "next"),
        "not json",
    )


def test_views_and_copied_lines_parse_to_the_same_entries_and_facts() -> None:
    data = transcript()
    from_views = parse_sdk(read_whole(data).numbered_lines())
    from_bytes = parse_sdk(list(NumberedLines(data)))
    assert from_views.entries == from_bytes.entries and from_views.lines == from_bytes.lines
    assert from_views.facts == from_bytes.facts
    assert [d.to_json() for d in from_views.diagnostics] == [
        d.to_json() for d in from_bytes.diagnostics
    ]


def test_facts_say_what_the_stages_read_from_an_entry() -> None:
    by_uuid = {f[0]: f for f in parse_sdk(list(NumberedLines(transcript()))).facts or []}
    assert by_uuid["a1"][MESSAGE_ID] == "m1" and by_uuid["a1"][CALLS] == ("t1",)
    assert by_uuid["r2"][ANSWERS] == ("t2",) and by_uuid["u1"][ANSWERS] is None
    assert by_uuid["x1"][ELIGIBLE] is False and by_uuid["n1"][ELIGIBLE] is True
    assert by_uuid["c1"][KIND] == "system"


def test_parser_facts_equal_facts_computed_from_the_index_and_follow_relinks() -> None:
    parsed = parse_sdk(list(NumberedLines(transcript())))
    gathered = index(parsed.entries, parsed.lines, None, parsed.facts)
    computed = index(parsed.entries, parsed.lines)
    assert gathered.facts() == computed.facts()  # the later duplicate of u1 wins in both
    relink_compactions(gathered)
    relink_compactions(computed)
    assert gathered.facts()["u1"][PARENT] == "s1"  # head relinked to the anchor
    for uuid, entry in gathered.nodes.items():
        assert gathered.facts()[uuid] == facts_of(entry) == computed.facts()[uuid]


def test_the_rebuild_walks_the_relinked_chain_and_recovers_the_split_turn() -> None:
    rebuilt = rebuild(transcript())
    # head u1 hangs below the summary now; a2 and its result come back after a1
    assert rebuilt.uuids == ["s1", "u1", "a1", "a2", "r2", "r1", "n1"]
    kinds = {(d.line, d.kind) for d in rebuilt.diagnostics}
    assert {(6, "relinked"), (9, "relinked"), (9, "off-chain"), (3, "recovered")} <= kinds


WRITER_VALUES = [None, True, False, "", "agent-1", "agent-2", 0, 1, 1.0, -0.0, [], {}, ["x"]]


@pytest.mark.parametrize("side_a", [*WRITER_VALUES, "absent"])
@pytest.mark.parametrize("agent_a", [*WRITER_VALUES, "absent"])
def test_writer_facts_decide_same_writer_as_the_rows_do(side_a: object, agent_a: object) -> None:
    """Equal ``WRITER`` facts exactly when ``same_writer`` holds, else None (ask the rows),
    against every pair of values: absent and null sides are false, ``===`` elsewhere."""
    from rechain.reference.facts import WRITER
    from rechain.reference.rows import same_writer

    def row(uuid: str, side: object, agent: object) -> dict[str, object]:
        fields = {"type": "user", "uuid": uuid}
        if side != "absent":
            fields["isSidechain"] = side
        if agent != "absent":
            fields["agentId"] = agent
        return fields

    first = row("a", side_a, agent_a)
    for side_b in [*WRITER_VALUES, "absent"]:
        for agent_b in [*WRITER_VALUES, "absent"]:
            second = row("b", side_b, agent_b)
            mine, theirs = facts_of(first)[WRITER], facts_of(second)[WRITER]
            if mine is not None and theirs is not None:
                assert (mine == theirs) is same_writer(first, second), (first, second)


def test_orphan_recovery_leaves_the_results_it_does_not_return_undecoded() -> None:
    """On a transcript whose abandoned branches hold most tool results, recovery files
    them from their facts: the only rows decoded are returned ones (and boundaries)."""
    from rechain.conformance.bench.synthetic import synthetic_transcript
    from rechain.reference.lazyrows import Pending

    result = rebuild(synthetic_transcript(3_000_000, seed=4, kind="mostly-dead"))
    assert result.run is not None
    nodes = result.run.graph.nodes
    returned = {row["uuid"] for row in result.run.chain}
    decoded = {uuid for uuid, row in dict.items(nodes) if type(row) is not Pending}
    off_chain_results = {uuid for uuid, fact in result.run.graph.facts().items()
                         if fact[ANSWERS] and uuid not in returned}
    assert len(off_chain_results) > 100
    assert not decoded & off_chain_results


def _homes_both_ways(data: bytes) -> list[tuple[object, object]]:
    """Each profile's results filed under the rows of the chain's messages: with the
    filings restricted to those rows, and with every result filed everywhere."""
    from rechain.reference import PROFILES
    from rechain.reference.orphans import _callers, _filings, _messages_on_chain, _scan
    from rechain.reference.profiles.claude_code_2_1_332.recover import CLI
    from rechain.reference.recover import SDK

    pairs = []
    for name, rules in (("agent-sdk@0.3.332", SDK), ("claude-code@2.1.332", CLI)):
        run = rebuild(data, PROFILES[name]).run
        if run is None or not run.chain:
            continue
        graph = run.graph
        facts, nodes = graph.facts(), graph.nodes
        on_chain = {row["uuid"] for row in run.chain}
        messages = _messages_on_chain([facts[u] for u in on_chain], rules, nodes)
        _, makers, ids, results, members, made = _scan(facts, rules, nodes, on_chain, messages)
        further = [f for f in results if rules.looks_further(f, facts)]
        answered = {c for f in further for c in f[ANSWERS]}
        # everywhere: every result filed under every row, every call's row looked up;
        # restricted: only the calls the chain's messages made (as ``_index`` does)
        everywhere = _filings(nodes, facts, results, _callers(makers, answered, ids), rules,
                              set(nodes))[0]
        restricted = _filings(nodes, facts, results, _callers(makers, made & answered, ids),
                              rules, members)[0]
        pairs.append(({m: everywhere.get(m) for m in members},
                      {m: restricted.get(m) for m in members}))
    return pairs


_NUMBER_PARENT = (b'{"type":"user","uuid":"R","parentUuid":5,"sourceToolAssistantUUID":"5",'
                  b'"timestamp":"2026-01-01T00:00:30.000Z","message":{"role":"user","content":'
                  b'[{"type":"tool_result","tool_use_id":"t1","content":"x"}]}}')


def test_results_filed_only_under_the_chains_messages_file_as_filing_all_would() -> None:
    """A result is passed over when none of its places is a row of a message on the chain;
    one that is not keeps all its filings (a number parent and the same string as source
    make one tag)."""
    data = jsonl(
        user("u1", None),
        assistant("5", "u1", mid="m1", blocks=[tool_use("t1")]),
        assistant("a2", "5", mid="m1"),
        _NUMBER_PARENT,
        result("r9", "a9", "t9", sourceToolAssistantUUID="5"),
        user("n1", "a2", "next"),
    )
    for everywhere, restricted in _homes_both_ways(data):
        assert everywhere == restricted


@settings(max_examples=40, deadline=None)
@given(corrupted(transcripts(rewinds=True, compaction=True)))
def test_restricted_filings_agree_on_generated_transcripts(c: object) -> None:
    for everywhere, restricted in _homes_both_ways(c.data):  # type: ignore[attr-defined]
        assert everywhere == restricted
