"""The seed profile (claude-code@2.1.88): each rule on its minimal case, corpus cases, views."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from rechain.conformance.claude_code_2_1_88.compare import expected
from rechain.conformance.claude_code_2_1_88.record import VIEW, as_items
from rechain.corpus import load_cases
from rechain.reference import Options, get_profile, rebuild
from rechain.reference.js import date_v8
from rechain.reference.profiles.claude_code_2_1_88.deadbranch import excise_dead_branches, own_uuid
from rechain.reference.profiles.claude_code_2_1_88.views import (
    PROFILE_NAME,
)
from rechain.strategies import rows

SID = "5eed0000-2188-4000-8000-00000000aaaa"


def uid(n: int) -> str:
    return f"5eed{n:04d}-0000-4000-8000-000000000000"


def row(kind: str, n: int, parent: int | None, content: Any, sec: float, **extra: Any) -> Json:
    message = rows.user_message(content)
    if kind == "assistant":
        message = rows.assistant_message(content, extra.pop("mid", f"msg_{n}"))
    own = {"type": kind, "message": message, "uuid": uid(n), "sessionId": SID,
           "timestamp": f"2026-01-01T00:00:{sec:06.3f}Z", **extra}
    return rows.row(rows.chain(uid(parent) if parent else None), own)


Json = dict[str, Any]


def text(value: str) -> list[Json]:
    return [rows.text(value)]


def file_of(*lines: Json | str) -> bytes:
    return rows.jsonl(lines)


def uuids(data: bytes, entry: str = "continue") -> list[Any]:
    """The resumed messages' uuids (synthetic ones by their marker)."""
    view = rebuild(data, "seed", Options(entry=entry)).view("chain")
    return [m["uuid"] or m["synthetic"] for m in view["messages"]]


def test_profile_is_registered_with_its_alias_and_views() -> None:
    profile = get_profile("seed")
    assert profile.name == PROFILE_NAME
    assert set(profile.views) == {"chain", "api", "state"}


@pytest.mark.parametrize(("text_", "millis"), [
    ("2026-01-01T00:00:01.000Z", 1767225601000), ("2026-02-30T00:00:00Z", 1772409600000),
    ("2026-13-01T00:00:00Z", math.nan), ("2026-01-01T24:00:00Z", 1767312000000),
    ("2026-01-01T24:00:01Z", math.nan), ("2026-01-01T00:00:00.1234567Z", 1767225600123),
    ("2026-01-01T00:00:00", 1767225600000), ("2026-01-01 00:00:00", 1767225600000),
    ("2026-01-01T00:00:00+01:00", 1767222000000), ("2026-01-01T00:00:00+0100", 1767222000000),
    (" 2026-01-01T00:00:00Z", math.nan), ("2026", 1767225600000), ("garbage", math.nan),
    ("+002026-01-01T00:00:00Z", 1767225600000), ("2026-1-1", 1767225600000),
    ("2026-01-01t00:00:00z", 1767225600000),
])
def test_date_parse_matches_node(text_: str, millis: float) -> None:
    got = date_v8.parse(text_)
    assert (math.isnan(got) and math.isnan(millis)) or got == millis


def test_new_date_get_time_takes_numbers_and_null() -> None:
    assert date_v8.get_time(5) == 5 and date_v8.get_time(None) == 0
    assert math.isnan(date_v8.get_time(date_v8.UNDEFINED))


DECREASING = file_of(row("user", 1, None, "first", 30), row("assistant", 2, 1, text("a1"), 20),
                     row("user", 3, 2, "second", 10), row("assistant", 4, 3, text("a2"), 5))


def test_resume_id_takes_the_newest_entry_even_with_children() -> None:
    assert uuids(DECREASING, "resume-id") == [uid(1), "no-response"]
    assert uuids(DECREASING, "continue") == [uid(1), uid(2), uid(3), uid(4)]
    assert uuids(DECREASING, "resume-file") == [uid(1), uid(2), uid(3), uid(4)]


def test_a_timestamp_tie_goes_to_the_first_written() -> None:
    data = file_of(row("user", 1, None, "q", 1), row("assistant", 2, 1, text("a"), 2),
                   row("user", 3, 2, "one", 3), row("assistant", 4, 3, text("b1"), 5),
                   row("user", 5, 2, "two", 4), row("assistant", 6, 5, text("b2"), 5))
    for entry in ("continue", "resume-id", "resume-file"):
        assert uuids(data, entry) == [uid(1), uid(2), uid(3), uid(4)]


def test_progress_bridge_only_sees_progress_written_before_its_child() -> None:
    progress = {"type": "progress", "uuid": uid(9), "parentUuid": uid(2), "sessionId": SID,
                "timestamp": "2026-01-01T00:00:03Z"}
    before = file_of(row("user", 1, None, "go", 1), row("assistant", 2, 1, text("w"), 2),
                     progress, row("user", 3, 9, "next", 4), row("assistant", 4, 3, text("d"), 5))
    after = file_of(row("user", 1, None, "go", 1), row("assistant", 2, 1, text("w"), 2),
                    row("user", 3, 9, "next", 4), progress, row("assistant", 4, 3, text("d"), 5))
    assert uuids(before) == [uid(1), uid(2), uid(3), uid(4)]
    assert uuids(after) == [uid(3), uid(4)]


def test_a_null_line_stops_loading() -> None:
    data = file_of(row("user", 1, None, "one", 1), row("assistant", 2, 1, text("a1"), 2), "null",
                   row("user", 3, 2, "two", 3), row("assistant", 4, 3, text("a2"), 4))
    assert uuids(data, "resume-id") == [uid(1), uid(2)]


def test_continue_skips_a_session_whose_head_says_sidechain() -> None:
    data = file_of(row("user", 1, None, "main", 1), row("assistant", 2, 1, text("m"), 2),
                   row("user", 3, None, "side", 8, isSidechain=True))
    assert rebuild(data, "seed", Options(entry="continue")).view("chain")["messages"] == []
    assert uuids(data, "resume-id") == [uid(1), uid(2)]


def test_trailing_tool_result_gets_continue_and_the_sentinel() -> None:
    data = file_of(row("user", 1, None, "ls", 1),
                   row("assistant", 2, 1, [{"type": "tool_use", "id": "t1", "name": "Bash",
                                            "input": {}}], 2),
                   row("user", 3, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 3))
    view = rebuild(data, "seed", Options(entry="resume-id")).view("chain")
    assert view["interruption"] == "interrupted_turn"
    assert uuids(data, "resume-id") == [uid(1), uid(2), uid(3), "continue", "no-response"]


def test_unresolved_tool_use_drops_the_whole_assistant() -> None:
    data = file_of(row("user", 1, None, "go", 1),
                   row("assistant", 2, 1, [{"type": "text", "text": "running"},
                                           {"type": "tool_use", "id": "t1", "name": "Bash",
                                            "input": {}}], 2))
    assert uuids(data) == [uid(1), "no-response"]


def test_whitespace_only_assistant_removed_and_users_merged() -> None:
    data = file_of(row("user", 1, None, "a", 1), row("assistant", 2, 1, text("  \n"), 2),
                   row("user", 3, 2, "b", 3), row("assistant", 4, 3, text("ok"), 4))
    view = rebuild(data, "seed", Options()).view("chain")
    assert [m["uuid"] for m in view["messages"]] == [uid(1), uid(4)]
    assert view["messages"][0]["message"]["content"] == [{"type": "text", "text": "a\n"},
                                                          {"type": "text", "text": "b"}]


def test_orphan_recovery_puts_siblings_then_results_after_the_anchor() -> None:
    tool = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]
    glob = [{"type": "tool_use", "id": "t2", "name": "Glob", "input": {}}]
    data = file_of(
        row("user", 1, None, "go", 1), row("assistant", 2, 1, tool, 2, mid="m"),
        row("assistant", 3, 2, glob, 2.5, mid="m"),
        row("user", 4, 3, [{"type": "tool_result", "tool_use_id": "t2"}], 3),
        row("user", 5, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 4),
        row("assistant", 6, 5, text("done"), 5))
    assert uuids(data) == [uid(1), uid(2), uid(3), uid(4), uid(5), uid(6)]


def test_recovery_that_throws_keeps_the_findings_of_the_groups_before() -> None:
    """A later group's sort throws (a number for a timestamp): the resume fails, and the
    siblings put back before it are still reported as recovered, each on its line."""
    tool = [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]
    data = file_of(
        row("user", 1, None, "go", 1), row("assistant", 2, 1, tool, 2, mid="m"),
        row("assistant", 3, 1, text("aside"), 2.5, mid="m"),
        row("user", 5, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 3),
        row("assistant", 6, 5, text("next"), 4, mid="n"),
        row("assistant", 8, 5, text("one"), 4.5, mid="n"),
        {**row("assistant", 9, 5, text("two"), 4.6, mid="n"), "timestamp": 5},
        row("user", 7, 6, "last", 9))
    result = rebuild(data, "seed", Options(entry="resume-id"))
    assert not result.messages
    assert any("localeCompare" in d.detail for d in result.diagnostics)
    recovered = [d.line for d in result.diagnostics if d.kind == "recovered"]
    assert recovered == [3]


def test_preserved_segment_relinks_and_prunes() -> None:
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": uid(10),
                "parentUuid": None, "sessionId": SID, "timestamp": "2026-01-01T00:00:10Z",
                "compactMetadata": {"preservedSegment": {"headUuid": uid(3), "anchorUuid": uid(11),
                                                         "tailUuid": uid(4)}}}
    data = file_of(row("user", 1, None, "old", 1), row("assistant", 2, 1, text("old"), 2),
                   row("user", 3, 2, "kept", 3),
                   row("assistant", 4, 3, text("kept reply"), 4,),
                   boundary, row("user", 11, 10, "summary", 11, isCompactSummary=True),
                   row("user", 12, 11, "after", 12), row("assistant", 13, 12, text("a"), 13))
    assert uuids(data) == [uid(10), uid(11), uid(3), uid(4), uid(12), uid(13)]


def test_snip_relinks_across_removed_entries() -> None:
    snip = {"type": "system", "subtype": "snip", "uuid": uid(9), "parentUuid": uid(4),
            "sessionId": SID, "timestamp": "2026-01-01T00:00:09Z",
            "snipMetadata": {"removedUuids": [uid(2), uid(3)]}}
    data = file_of(row("user", 1, None, "a", 1), row("assistant", 2, 1, text("b"), 2),
                   row("user", 3, 2, "c", 3), row("assistant", 4, 3, text("d"), 4), snip,
                   row("user", 5, 9, "e", 5), row("assistant", 6, 5, text("f"), 6))
    assert uuids(data) == [uid(1), uid(4), uid(9), uid(5), uid(6)]


def test_state_view_restores_metadata_of_the_leaf_session() -> None:
    data = file_of(row("user", 1, None, "a", 1), row("assistant", 2, 1, text("b"), 2),
                   {"type": "custom-title", "customTitle": "T", "sessionId": SID},
                   {"type": "tag", "tag": "x", "sessionId": "other"},
                   {"type": "summary", "summary": "S", "leafUuid": uid(2)})
    state = rebuild(data, "seed", Options(entry="resume-id")).view("state")["state"]
    assert (state["customTitle"], state["tag"], state["summary"]) == ("T", None, "S")


def test_api_view_merges_adjacent_users() -> None:
    data = file_of(row("user", 1, None, "a", 1), row("assistant", 2, 1, text("b"), 2))
    assert rebuild(data, "seed", Options()).view("api")["messages"] == [
        {"role": "user", "content": text("a")}, {"role": "assistant", "content": text("b")}]


def test_rebuild_messages_view_is_the_continue_chain() -> None:
    assert rebuild(DECREASING, "seed").uuids == [uid(1), uid(2), uid(3), uid(4)]
    assert rebuild(DECREASING, "seed", Options(entry="resume-id")).uuids == [uid(1)]


def test_large_file_skips_before_the_boundary_and_keeps_metadata() -> None:
    pad = "x" * 1000
    old = [row("user", 100 + i, None, pad, 1) for i in range(5600)]
    boundary = {"type": "system", "subtype": "compact_boundary", "uuid": uid(10),
                "parentUuid": None, "sessionId": SID, "timestamp": "2026-01-01T00:00:10Z"}
    data = file_of(*old, {"type": "custom-title", "customTitle": "Old", "sessionId": SID},
                   boundary, row("user", 11, 10, "after", 11), row("assistant", 12, 11,
                                                                    text("ok"), 12))
    assert len(data) > 5 * 1024 * 1024
    assert uuids(data, "resume-id") == [uid(10), uid(11), uid(12)]
    assert rebuild(data, "seed",
                   Options(entry="resume-id")).view("state")["state"]["customTitle"] == "Old"
    assert uuids(data, "resume-id")[:1] == [uid(10)]


def test_dead_branch_excision_keeps_the_last_chain_and_metadata() -> None:
    def line(uuid: str, parent: str | None, body: str = "") -> bytes:
        head = f'{{"parentUuid":{json.dumps(parent)},"uuid":"{uuid}","timestamp":"t"'
        return f'{head},"pad":"{body}"}}'.encode()
    live = [line(uid(1), None), line(uid(2), uid(1))]
    dead = [line(uid(50 + i), None, "y" * 100_000) for i in range(60)]
    lines = tuple(enumerate([live[0], *dead, b'{"type":"tag"}', live[1]], 1))
    assert own_uuid(live[1]) == uid(2).encode()
    kept = excise_dead_branches(lines)
    assert [n for n, _ in kept] == [1, 62, 63]


SEED_CASES = [c for c in load_cases() if c.id.startswith("seed-")]


@pytest.mark.parametrize("case", SEED_CASES, ids=lambda c: c.id)
def test_seed_corpus_cases_agree_with_2_1_88(case: Any) -> None:
    recorded = case.expectations_for(PROFILE_NAME, VIEW)
    assert recorded, "record with python -m rechain.conformance.claude_code_2_1_88.record"
    data = case.input_bytes()
    for expectation in recorded:
        entry = expectation.options["entry"]
        view = rebuild(data, "seed", Options(entry=entry), session_id=case.session_id).view("chain")
        assert expected(view["messages"]) == as_items(list(expectation.messages)), entry


def test_assistant_with_string_content_fails_the_resume() -> None:
    data = file_of(row("user", 1, None, "hi", 1),
                   {**row("assistant", 2, 1, "plain", 2)})
    for entry in ("continue", "resume-id", "resume-file"):
        assert "content.find" in rebuild(data, "seed", Options(entry=entry)).view("chain")["error"]


def test_todos_come_from_the_last_todowrite() -> None:
    todo = [{"type": "tool_use", "id": "t1", "name": "TodoWrite",
             "input": {"todos": [{"content": "x", "status": "pending"}]}}]
    data = file_of(row("user", 1, None, "plan", 1), row("assistant", 2, 1, todo, 2),
                   row("user", 3, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 3),
                   row("assistant", 4, 3, text("ok"), 4))
    state = rebuild(data, "seed", Options()).view("state")["state"]
    assert state["todos"] == [{"content": "x", "status": "pending"}]


def test_state_difference_reads_the_reappended_title() -> None:
    from rechain.conformance.claude_code_2_1_88.compare import state_difference

    forked = [{"type": "custom-title", "customTitle": "T"}]
    assert state_difference({"customTitle": "T", "tag": None}, forked) is None
    assert state_difference({"customTitle": None, "tag": None}, forked) is not None


def test_resume_file_restores_no_metadata() -> None:
    data = file_of(row("user", 1, None, "a", 1), row("assistant", 2, 1, text("b"), 2),
                   {"type": "custom-title", "customTitle": "T", "sessionId": SID})
    assert rebuild(data, "seed",
                   Options(entry="resume-file")).view("state")["state"]["customTitle"] is None
    assert rebuild(data, "seed",
                   Options(entry="continue")).view("state")["state"]["customTitle"] == "T"


def test_api_merges_fragments_across_tool_results_and_sends_local_commands() -> None:
    use1 = [{"type": "tool_use", "id": "t1", "name": "A", "input": {}}]
    use2 = [{"type": "tool_use", "id": "t2", "name": "B", "input": {}}]
    local = {"type": "system", "subtype": "local_command", "uuid": uid(7), "parentUuid": uid(5),
             "content": "<local-command-stdout>ok</local-command-stdout>", "sessionId": SID,
             "timestamp": "2026-01-01T00:00:07Z"}
    data = file_of(row("user", 1, None, "go", 1), row("assistant", 2, 1, use1, 2, mid="m"),
                   row("user", 3, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 3),
                   row("assistant", 4, 3, use2, 4, mid="m"),
                   row("user", 5, 4, [{"type": "tool_result", "tool_use_id": "t2"}], 5),
                   local, row("user", 8, 7, "next", 8), row("assistant", 9, 8, text("ok"), 9))
    sent = rebuild(data, "seed", Options()).view("api")["messages"]
    assert [m["role"] for m in sent] == ["user", "assistant", "user", "assistant"]
    assert [b["id"] for b in sent[1]["content"]] == ["t1", "t2"]
    assert sent[2]["content"][-2:] == [
        {"type": "text", "text": "<local-command-stdout>ok</local-command-stdout>\n"},
        {"type": "text", "text": "next"}]


def test_large_dead_file_loses_off_chain_siblings_before_recovery() -> None:
    """Confirmed with 2.1.88: small file u1 a2 a3 tr4 tr5 a6, over 5 MiB u1 a2 tr5 a6."""
    t1 = [{"type": "tool_use", "id": "t1", "name": "A", "input": {}}]
    t2 = [{"type": "tool_use", "id": "t2", "name": "B", "input": {}}]
    core = [row("user", 1, None, "root", 1), row("assistant", 2, 1, t1, 2, mid="m"),
            row("assistant", 3, 2, t2, 2.1, mid="m"),
            row("user", 4, 3, [{"type": "tool_result", "tool_use_id": "t2"}], 2.2),
            row("user", 5, 2, [{"type": "tool_result", "tool_use_id": "t1"}], 2.3),
            row("assistant", 6, 5, text("end"), 2.4)]
    dead = [row("user", 200 + i, 1, "x" * 1000, 1.5) for i in range(5600)]
    assert uuids(file_of(*core), "resume-id") == [uid(n) for n in (1, 2, 3, 4, 5, 6)]
    big = file_of(core[0], *dead, *core[1:])
    assert uuids(big, "resume-id") == [uid(n) for n in (1, 2, 5, 6)]
