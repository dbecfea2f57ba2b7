"""Stage 8 (the SDK view): queued commands, local commands, meta rows, message shape."""

from __future__ import annotations

from transcript_rows import assistant, jsonl, system, user

from rechain.reference import Options, rebuild


def queued(uuid: str, parent: str, prompt: str = "also do X", **extra: object) -> dict[str, object]:
    return {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "attachment",
        "uuid": uuid,
        "attachment": {"type": "queued_command", "prompt": prompt, **extra},
        "timestamp": "2026-01-01T00:30:00.000Z",
        "sessionId": "s1",
    }


def test_a_queued_command_with_a_reply_after_it_is_shown_as_a_user_message() -> None:
    result = rebuild(
        jsonl(user("u1", None), assistant("a1", "u1"), queued("q1", "a1"), assistant("a2", "q1"))
    )
    assert result.uuids == ["u1", "a1", "q1", "a2"]
    shown = result.messages[2]
    assert shown["type"] == "user" and shown["isQueuedCommand"] is True
    assert shown["message"] == {"role": "user", "content": "also do X"}


def test_a_queued_command_trailing_the_leaf_is_shown() -> None:
    # spec o2: nothing hangs off q1; it trails the leaf a1
    result = rebuild(jsonl(user("u1", None), assistant("a1", "u1"), queued("q1", "a1")))
    assert result.uuids == ["u1", "a1", "q1"]


def test_a_queued_command_followed_by_a_new_prompt_stays_hidden() -> None:
    result = rebuild(
        jsonl(
            user("u1", None),
            assistant("a1", "u1"),
            queued("q1", "a1"),
            user("u2", "q1"),
            assistant("a2", "u2"),
        )
    )
    assert result.uuids == ["u1", "a1", "u2", "a2"]


def test_a_queued_command_takes_its_source_uuid() -> None:
    result = rebuild(
        jsonl(
            user("u1", None),
            assistant("a1", "u1"),
            queued("q1", "a1", source_uuid="typed-1"),
            assistant("a2", "q1"),
        )
    )
    assert result.uuids == ["u1", "a1", "typed-1", "a2"]


def test_local_command_rows_after_a_caveat_are_marked_complete() -> None:
    rows = [
        user("c0", None, "<local-command-caveat>Caveat</local-command-caveat>", isMeta=True),
        user("c1", "c0", "<command-name>/model</command-name>"),
        user("c2", "c1", "<local-command-stdout>Set model</local-command-stdout>"),
    ]
    result = rebuild(jsonl(*rows))
    assert result.uuids == ["c1", "c2"]
    assert all(m.get("isCompletedLocalCommand") is True for m in result.messages)


def test_meta_rows_are_hidden_unless_their_origin_is_a_shown_kind() -> None:
    rows = [
        user("u1", None),
        user("m1", "u1", isMeta=True, origin={"kind": "channel"}),
        user("m2", "m1", isMeta=True, origin={"kind": "human"}),
        assistant("a1", "m2"),
    ]
    result = rebuild(jsonl(*rows))
    assert result.uuids == ["u1", "m1", "a1"]
    assert result.messages[1]["is_meta"] is True
    assert result.messages[1]["origin"] == {"kind": "channel"}


def test_an_assistant_that_closes_a_quiet_turn_is_hidden_only_when_empty_or_the_sentinel() -> None:
    quiet = assistant(
        "a2",
        "u2",
        blocks=[{"type": "text", "text": "No response requested."}],
        closesQuietTurn=True,
    )
    spoken = assistant("a3", "a2", blocks=[{"type": "text", "text": "hello"}], closesQuietTurn=True)
    result = rebuild(
        jsonl(user("u1", None), assistant("a1", "u1"), user("u2", "a1"), quiet, spoken)
    )
    assert result.uuids == ["u1", "a1", "u2", "a3"]


def test_system_rows_on_the_chain_are_shown_on_request() -> None:
    rows = [user("u1", None), system("s1", "u1"), assistant("a1", "s1")]
    assert rebuild(jsonl(*rows)).uuids == ["u1", "a1"]
    assert rebuild(jsonl(*rows), options=Options(include_system_messages=True)).uuids == [
        "u1",
        "s1",
        "a1",
    ]


def test_a_session_message_has_the_sdk_fields_and_its_line() -> None:
    row = user("u1", None, isCompactSummary=True)
    message = rebuild(jsonl(row)).messages[0]
    assert message == {
        "type": "user",
        "uuid": "u1",
        "session_id": "s1",
        "message": row["message"],
        "parent_tool_use_id": None,
        "parent_agent_id": None,
        "isCompactSummary": True,
        "is_meta": True,
        "timestamp": row["timestamp"],
        "line": 1,
    }


def test_fields_the_entry_lacks_are_left_out_not_null() -> None:
    row = {
        "type": "user",
        "uuid": "u1",
        "parentUuid": None,
        "message": {"role": "user", "content": "x"},
    }
    message = rebuild(jsonl(row)).messages[0]
    assert "session_id" not in message and "timestamp" not in message


def test_every_left_out_message_is_explained() -> None:
    rows = [
        user("u1", None),
        assistant("a1", "u1"),
        user("u2", "a1"),
        assistant("a2", "u2"),
        user("u3", "a1"),
        assistant("a3", "u3"),
        user("m1", "a3", isMeta=True),
        assistant("a4", "m1"),
    ]
    result = rebuild(jsonl(*rows))
    reasons = {d.line: d.kind for d in result.diagnostics}
    assert result.uuids == ["u1", "a1", "u3", "a3", "a4"]
    assert reasons == {3: "off-chain", 4: "off-chain", 7: "hidden"}
