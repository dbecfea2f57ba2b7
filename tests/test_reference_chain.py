"""Stages 3-7 (index, relink, leaf, walk, recover) against the TS SDK rules in the spec."""

from __future__ import annotations

from transcript_rows import assistant, jsonl, result, system, tool_use, user

from rechain.reference import Options, rebuild


def uuids(*rows: object, **options: object) -> list[str]:
    return rebuild(jsonl(*rows), options=Options(**options)).uuids  # type: ignore[arg-type]


def test_the_leaf_is_the_last_written_terminal_not_the_newest_timestamp() -> None:
    # a rewind: the newer branch (u2/a2) written first, the older-looking one last
    rows = [
        user("u1", None, ts="2026-01-01T00:00:00.000Z"),
        assistant("a1", "u1", ts="2026-01-01T00:00:01.000Z"),
        user("u2", "a1", ts="2026-01-01T00:09:00.000Z"),
        assistant("a2", "u2", ts="2026-01-01T00:09:01.000Z"),
        user("u3", "a1", ts="2026-01-01T00:00:02.000Z"),
        assistant("a3", "u3", ts="2026-01-01T00:00:03.000Z"),
    ]
    assert uuids(*rows) == ["u1", "a1", "u3", "a3"]


def test_a_trailing_system_row_on_an_older_branch_decides_the_leaf() -> None:
    # spec case b4: the system row is written last, so its branch wins
    rows = [
        user("u1", None),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        system("s1", "a1"),
    ]
    assert uuids(*rows) == ["u1", "a1"]


def test_a_meta_leaf_written_last_wins_and_is_then_hidden() -> None:
    # spec case b5
    rows = [
        user("u1", None),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        user("m1", "a1", isMeta=True),
    ]
    assert uuids(*rows) == ["u1", "a1"]


def test_a_sidechain_child_does_not_hide_its_main_chain_parent() -> None:
    # spec case j2: TS gives u1 a2 (the Python SDK gives u1 a1)
    rows = [
        user("u1", None),
        assistant("a1", "u1"),
        assistant("a2", "u1"),
        user("x1", "a2", isSidechain=True),
    ]
    rows.insert(3, user("late", "a1", isSidechain=True))
    assert uuids(*rows) == ["u1", "a2"]


def test_a_later_duplicate_replaces_the_content_and_keeps_the_order() -> None:
    rows = [user("u1", None, "first"), assistant("a1", "u1"), user("u1", None, "DUPLICATE")]
    result = rebuild(jsonl(*rows))
    assert result.uuids == ["u1", "a1"]
    assert result.messages[0]["message"]["content"] == "DUPLICATE"
    assert result.messages[0]["line"] == 3
    assert [(d.line, d.kind) for d in result.diagnostics if d.kind == "duplicate-uuid"] == [
        (1, "duplicate-uuid")
    ]


def test_a_missing_parent_ends_the_chain() -> None:
    result = rebuild(jsonl(user("u1", None), assistant("a1", "gone"), user("u2", "a1")))
    assert result.uuids == ["a1", "u2"]
    assert [(d.line, d.kind) for d in result.diagnostics if d.kind == "dangling-parent"] == [
        (2, "dangling-parent")
    ]


def test_a_full_cycle_gives_nothing_and_a_leaf_into_a_cycle_stops_at_the_revisit() -> None:
    assert uuids(user("u1", "a1"), assistant("a1", "u1")) == []  # spec g1
    rows = [
        user("u1", "a2"),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        user("u3", "a2"),
    ]
    result = rebuild(jsonl(*rows))
    assert result.uuids == ["u1", "a1", "u2", "a2", "u3"]
    assert any(d.kind == "cycle" for d in result.diagnostics)


def test_a_self_loop_is_its_own_child_so_never_a_terminal() -> None:
    assert uuids(user("u1", None), assistant("a1", "a1")) == ["u1"]
    assert uuids(user("u1", None), assistant("a1", "a1"), user("u2", "a1")) == ["a1", "u2"]
    assert uuids(assistant("a1", "a1")) == []


def test_progress_rows_link_the_chain_but_are_not_shown() -> None:
    progress = {
        "type": "progress",
        "uuid": "p1",
        "parentUuid": "a1",
        "data": {"type": "hook_progress"},
    }
    assert uuids(user("u1", None), assistant("a1", "u1"), progress, user("u2", "p1")) == [
        "u1",
        "a1",
        "u2",
    ]


def test_preserved_segment_relinks_head_to_anchor_and_anchor_children_to_tail() -> None:
    boundary = system(
        "cb",
        None,
        "compact_boundary",
        compactMetadata={
            "trigger": "auto",
            "preTokens": 1,
            "preservedSegment": {"headUuid": "u2", "anchorUuid": "cs", "tailUuid": "a2"},
        },
    )
    rows = [
        user("u1", None),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        boundary,
        user("cs", "cb", isCompactSummary=True),
        user("u3", "cs"),
        assistant("a3", "u3"),
    ]
    assert uuids(*rows) == ["cs", "u2", "a2", "u3", "a3"]


def test_preserved_messages_apply_only_when_every_uuid_is_present() -> None:
    def rows(listed: list[str]) -> list[object]:
        boundary = system(
            "cb",
            None,
            "compact_boundary",
            compactMetadata={"preservedMessages": {"uuids": listed, "anchorUuid": "cs"}},
        )
        return [
            user("u1", None),
            assistant("a1", "u1"),
            boundary,
            user("cs", "cb", isCompactSummary=True),
            user("u3", "cs"),
        ]

    assert uuids(*rows(["u1", "a1"])) == ["cs", "u1", "a1", "u3"]
    assert uuids(*rows(["u1", "nope"])) == ["cs", "u3"]


def test_preserved_messages_without_a_uuid_list_is_an_error_of_the_reader() -> None:
    boundary = system("cb", None, "compact_boundary", compactMetadata={"preservedMessages": True})
    result = rebuild(jsonl(user("u1", None), boundary))
    assert result.messages == () and result.error is not None


def test_parallel_results_off_the_walk_are_recovered_before_the_on_chain_one() -> None:
    # spec c2: one assistant, three calls; the walk goes through r1 only
    rows = [
        user("u1", None, ts="2026-01-01T00:00:00.000Z"),
        assistant(
            "a1",
            "u1",
            mid="m1",
            blocks=[tool_use("t1"), tool_use("t2"), tool_use("t3")],
            ts="2026-01-01T00:00:01.000Z",
        ),
        result("r2", "a1", "t2", ts="2026-01-01T00:00:02.000Z"),
        result("r3", "a1", "t3", ts="2026-01-01T00:00:03.000Z"),
        result("r1", "a1", "t1", ts="2026-01-01T00:00:04.000Z"),
        assistant("a2", "r1", mid="m2", ts="2026-01-01T00:00:05.000Z"),
    ]
    assert uuids(*rows) == ["u1", "a1", "r2", "r3", "r1", "a2"]


def test_streaming_split_siblings_and_their_results_come_back_in_timestamp_order() -> None:
    # spec d2: three fragments of one message, results parented through the source link
    rows = [
        user("u1", None, ts="2026-01-01T00:00:00.000Z"),
        assistant("f1", "u1", mid="m1", blocks=[tool_use("t1")], ts="2026-01-01T00:00:01.000Z"),
        assistant("f2", "f1", mid="m1", blocks=[tool_use("t2")], ts="2026-01-01T00:00:02.000Z"),
        assistant("f3", "f2", mid="m1", blocks=[tool_use("t3")], ts="2026-01-01T00:00:03.000Z"),
        result("r1", "f1", "t1", ts="2026-01-01T00:00:04.000Z", sourceToolAssistantUUID="f1"),
        result("r2", "f2", "t2", ts="2026-01-01T00:00:05.000Z", sourceToolAssistantUUID="f2"),
        result("r3", "f3", "t3", ts="2026-01-01T00:00:06.000Z", sourceToolAssistantUUID="f3"),
        assistant("a2", "r1", mid="m2", ts="2026-01-01T00:00:07.000Z"),
    ]
    assert uuids(*rows) == ["u1", "f1", "f2", "f3", "r2", "r3", "r1", "a2"]


def test_limit_and_offset_slice_like_javascript() -> None:
    rows = [user("u1", None), assistant("a1", "u1"), user("u2", "a1"), assistant("a2", "u2")]
    assert uuids(*rows, limit=2, offset=1) == ["a1", "u2"]
    assert uuids(*rows, offset=3) == ["a2"]
    assert uuids(*rows, limit=0, offset=0) == ["u1", "a1", "u2", "a2"]


def test_a_part_in_order_stays_and_one_out_of_order_is_sorted() -> None:
    # checked against agent-sdk-ts 0.3.332: m1's results come back as written (their
    # stamps rise), m2's are sorted (theirs fall) though m2's first stamp is below m1's
    # last, where one part ends and the next starts
    ts = "2026-01-01T00:00:{:02d}.000Z".format
    rows = [
        user("u1", None, ts=ts(0)),
        assistant("a1", "u1", mid="m1", blocks=[tool_use("t1"), tool_use("t2"), tool_use("t3")],
                  ts=ts(1)),
        result("r1", "a1", "t1", ts=ts(20)),
        result("r2", "a1", "t2", ts=ts(21)),
        result("r3", "a1", "t3", ts=ts(2)),
        assistant("b1", "r3", mid="m2", blocks=[tool_use("t4"), tool_use("t5"), tool_use("t6")],
                  ts=ts(3)),
        result("r4", "b1", "t4", ts=ts(12)),
        result("r5", "b1", "t5", ts=ts(11)),
        result("r6", "b1", "t6", ts=ts(4)),
        assistant("c1", "r6", mid="m3", ts=ts(5)),
    ]
    assert uuids(*rows) == ["u1", "a1", "r1", "r2", "r3", "b1", "r5", "r4", "r6", "c1"]


def test_a_stray_comes_back_and_a_call_two_messages_made_brings_nothing_back() -> None:
    # checked against agent-sdk-ts 0.3.332: r2 is filed under a1 through its source link
    # alone (its parent is no row), so not every result is a direct child; t3 was made by
    # rows of two messages (b1 first), so r3 is filed under neither and stays off
    ts = "2026-01-01T00:00:{:02d}.000Z".format
    rows = [
        user("u1", None, ts=ts(0)),
        assistant("b1", "u1", mid="m9", blocks=[tool_use("t3")], ts=ts(1)),
        assistant("a1", "u1", mid="m1", blocks=[tool_use("t1"), tool_use("t2"), tool_use("t3")],
                  ts=ts(2)),
        result("r1", "a1", "t1", ts=ts(5)),
        result("r2", "x9", "t2", ts=ts(4), sourceToolAssistantUUID="a1"),
        result("r3", "x8", "t3", ts=ts(3)),
        assistant("a2", "a1", mid="m2", ts=ts(6)),
    ]
    assert uuids(*rows) == ["u1", "a1", "r2", "r1", "a2"]
