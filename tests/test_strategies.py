"""The writer model: lines look like Claude Code's, the intended conversation is sound."""

from __future__ import annotations

import re

import orjson
import pytest
from hypothesis import find, given, settings
from hypothesis.errors import InvalidArgument

from rechain.strategies import (
    FEATURES,
    GENERATIONS,
    Compact,
    Prompt,
    Reply,
    Rewind,
    Task,
    Transcript,
    extend,
    transcripts,
    write,
)
from rechain.strategies.conversation import group_of, is_result
from rechain.strategies.generations import BY_VERSION
from rechain.strategies.observe import features

UUID = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")
STAMP = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$")
CHAIN = ("user", "assistant", "system", "attachment", "progress")
SHRINK = settings(database=None, max_examples=1000, derandomize=True)


def chain_lines(t: Transcript) -> list[dict]:
    return [line for line in t.lines if line["type"] in CHAIN]


@given(transcripts())
def test_lines_are_written_like_claude_code(t: Transcript) -> None:
    data = t.to_bytes()
    assert data.endswith(b"\n")
    assert [orjson.loads(raw) for raw in data.splitlines()] == list(t.lines)
    gen = BY_VERSION[t.generation]
    uuids = [line["uuid"] for line in chain_lines(t)]
    assert len(uuids) == len(set(uuids))
    for line in chain_lines(t):
        keys = list(line)
        assert keys[0] == "parentUuid"
        assert keys[1] == ("logicalParentUuid" if line.get("subtype") == "compact_boundary"
                           else "isSidechain")
        assert UUID.match(line["uuid"]) and STAMP.match(line["timestamp"])
        assert line["sessionId"] == t.session_id and line["version"] == t.generation
        assert (keys.index("cwd") < keys.index("type")) == gen.stamps_first
        if line["type"] == "assistant":
            assert line["message"]["id"].startswith("msg_01")
            assert len(line["message"]["content"]) == 1  # one line per content block
            assert line["message"]["stop_reason"] is None


@given(transcripts())
def test_intended_is_the_live_conversation(t: Transcript) -> None:
    assert t.intended, "every script starts with a prompt"
    assert len(set(t.intended)) == len(t.intended)
    if not t.falls_back:
        assert set(t.intended) <= set(t.live)
        left_out = set(t.live) - set(t.intended)
        assert all(t.entry(u)["type"] == "progress" for u in left_out)


@given(transcripts())
def test_responses_keep_increasing_timestamps(t: Transcript) -> None:
    """The documented rule that makes reader order well defined: within one response its
    blocks and their results are written with strictly increasing timestamps."""
    groups: dict[str, list[str]] = {}
    owner: dict[str, str] = {}
    for line in chain_lines(t):
        group = group_of(line)
        if group is not None:
            groups.setdefault(group, []).append(line["timestamp"])
            block = line["message"]["content"][0]
            if block["type"] == "tool_use":
                owner[block["id"]] = group
        elif is_result(line):
            call = line["message"]["content"][0]["tool_use_id"]
            groups[owner[call]].append(line["timestamp"])
    for stamps in groups.values():
        assert stamps == sorted(stamps) and len(set(stamps)) == len(stamps)


@given(transcripts())
def test_tool_results_hang_where_the_generation_puts_them(t: Transcript) -> None:
    gen = BY_VERSION[t.generation]
    holder = {}
    for line in t.lines:
        if line.get("type") == "assistant":
            block = line["message"]["content"][0]
            if block["type"] == "tool_use":
                holder[block["id"]] = line["uuid"]
    for line in t.lines:
        if is_result(line) and not line["isSidechain"]:
            source = holder[line["message"]["content"][0]["tool_use_id"]]
            if gen.source_links:
                assert line["parentUuid"] == line["sourceToolAssistantUUID"] == source
            else:
                assert "sourceToolAssistantUUID" not in line


@given(transcripts())
def test_reader_order_is_write_order_unless_results_come_early(t: Transcript) -> None:
    eager = any(isinstance(op, Reply) and any(op.eager) for op in t.script)
    if not eager and not t.falls_back:
        assert list(t.intended) == [u for u in t.live if u in set(t.intended)]


@given(transcripts())
def test_sidechains_go_where_the_generation_writes_them(t: Transcript) -> None:
    inline = BY_VERSION[t.generation].inline_sidechains
    for agent, lines in t.subagents.items():
        assert not inline
        assert all(line["isSidechain"] and line["agentId"] == agent for line in lines)
    side = [line for line in chain_lines(t) if line["isSidechain"]]
    assert all("agentId" not in line for line in side)
    assert not side or inline
    assert not set(t.intended) & {line["uuid"] for line in side}


@given(transcripts(**dict.fromkeys(FEATURES, False)))
def test_switched_off_features_stay_off(t: Transcript) -> None:
    for op in t.script:
        assert isinstance(op, Prompt | Reply)
        if isinstance(op, Reply):
            assert op.blocks == (op.blocks[0],) and not op.unanswered and not op.queued
        else:
            assert op.kind in ("text", "blocks") and op.pause_ms >= 0


@pytest.mark.parametrize("bad", [{"rewind": True}, {"min_ops": 3, "max_ops": 2},
                                 {"max_entries": 0}, {"generations": ["9.9.9"]}])
def test_invalid_arguments_are_rejected(bad: dict) -> None:
    with pytest.raises(InvalidArgument):
        transcripts(**bad).example()


@pytest.mark.parametrize("gen", [g.version for g in GENERATIONS])
def test_key_order_follows_the_real_files(gen: str) -> None:
    t = write([Prompt(), Reply(blocks=("tool_use",))], generation=gen)
    user, assistant, result = chain_lines(t)
    stamps = ["userType", "cwd", "sessionId", "version", "gitBranch"]
    if BY_VERSION[gen].stamps_first:  # 1.0.98 … 2.1.39 (shared/corpus-real)
        assert list(user)[:7] == ["parentUuid", "isSidechain", *stamps]
        assert list(assistant)[-5:] == ["message", "requestId", "type", "uuid", "timestamp"]
    else:  # format.md §3.3: stamps last
        assert list(user)[-7:-1] == ["userType", "entrypoint", *stamps[1:]]
    first = "model" if BY_VERSION[gen].model_first else "id"
    assert next(iter(assistant["message"])) == first
    assert ("sourceToolAssistantUUID" in result) == BY_VERSION[gen].source_links


def test_a_rewind_leaves_the_abandoned_branch_and_forks_at_the_survivor() -> None:
    t = write([Prompt(), Reply(), Prompt(), Reply(), Rewind(0), Prompt(), Reply()])
    prompts = [line for line in chain_lines(t) if line["type"] == "user"]
    assert prompts[1]["parentUuid"] == prompts[2]["parentUuid"]  # the fork
    assert prompts[1]["uuid"] not in t.intended and prompts[2]["uuid"] in t.intended


def test_a_trailing_rewind_writes_nothing() -> None:
    plain = write([Prompt(), Reply(), Prompt(), Reply()])
    assert write([Prompt(), Reply(), Prompt(), Reply(), Rewind(0)]).intended == plain.intended


def test_compaction_writes_boundary_then_summary_and_relinks_the_segment() -> None:
    t = write([Prompt(), Reply(), Prompt(), Reply(), Compact(keep=1), Prompt(), Reply()])
    boundary = next(line for line in t.lines if line.get("subtype") == "compact_boundary")
    segment = boundary["compactMetadata"]["preservedSegment"]
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"] == segment["tailUuid"]
    summary = t.entry(segment["anchorUuid"])
    assert summary["isCompactSummary"] and summary["parentUuid"] == boundary["uuid"]
    assert t.intended[:3] == (boundary["uuid"], summary["uuid"], segment["headUuid"])
    assert segment["tailUuid"] in t.intended


def test_extending_continues_at_the_leaf() -> None:
    t = write([Prompt(), Reply(blocks=("tool_use", "tool_use"), delays=(1, 0))])
    longer = extend(t, [Prompt(), Reply()])
    assert longer.lines[: len(t.lines)] == t.lines
    assert longer.intended[: len(t.intended)] == t.intended


def test_subagent_transcripts_are_separate_files() -> None:
    t = write([Prompt(), Task(steps=2)], generation="2.1.332")
    (agent, lines), = t.subagents.items()
    assert re.fullmatch(r"a[0-9a-f]{6}", agent) and len(lines) == 4
    assert t.subagent_bytes(agent).count(b"\n") == 4


SMALL = {"sidechains": False, "metadata": False, "system_rows": False, "meta_rows": False}


def test_scripts_shrink_to_a_few_lines() -> None:
    forked = find(transcripts(max_ops=8, compaction=False, **SMALL),
                  lambda t: any(isinstance(op, Rewind) for op in t.script)
                  and not t.falls_back and len(t.live) < sum(
                      1 for line in chain_lines(t) if not line["isSidechain"]),
                  settings=SHRINK)
    assert len(forked.lines) <= 6, forked
    kept = find(transcripts(max_ops=8, rewinds=False, generations=["2.1.332"], **SMALL),
                lambda t: any("preservedSegment" in line.get("compactMetadata", {})
                              for line in t.lines),
                settings=SHRINK)
    assert len(kept.lines) <= 6, kept


def test_reader_order_differs_from_write_order_after_an_early_result() -> None:
    """a1(call 1), a2(call 2), r2 written early, a3 chained to r2, then r1: the walk from r1
    reaches a1 only; a2 and a3 (same message.id) and r2 come back after a1, blocks first."""
    t = write([Prompt(), Reply(blocks=("tool_use", "tool_use", "text"), eager=(False, True))])
    u, a1, a2, r2, a3, r1 = (line["uuid"] for line in chain_lines(t))
    assert t.live == (u, a1, a2, r2, a3, r1)
    assert t.intended == (u, a1, a2, a3, r2, r1)
    assert "reader order differs from write order" in features(t)
