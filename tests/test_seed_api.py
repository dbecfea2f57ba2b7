"""The seed profile's ``api`` view: attachments, pairing repairs and the harness cut.

Each rule is checked on a small transcript built here; the corpus cases with
recorded 2.1.88 requests are checked in ``test_seed_corpus.py``.
"""

from __future__ import annotations

from typing import Any

from rechain.conformance.claude_code_2_1_88.compare import api_difference, observed_request
from rechain.reference import rebuild
from rechain.reference.model import Options
from rechain.reference.profiles.claude_code_2_1_88 import api, attachments
from rechain.strategies import rows

Json = dict[str, Any]
SID = "5eed0000-2188-4000-8000-00000000bbbb"


def uid(n: int) -> str:
    return f"5eed{n:04d}-0000-4000-8000-00000000000b"


def row(kind: str, n: int, parent: int | None, content: Any, **extra: Any) -> Json:
    message = rows.user_message(content)
    if kind == "assistant":
        message = {"id": extra.pop("mid", f"msg_{n}"), "role": "assistant",
                   "model": extra.pop("model", "claude-sonnet-4-6"), "content": content}
    own = {"type": kind, "message": message, "uuid": uid(n), "sessionId": SID,
           "timestamp": f"2026-01-01T00:00:{n:02d}.000Z", **extra}
    return rows.row(rows.chain(uid(parent) if parent else None), own)


def attachment(n: int, parent: int, payload: Json) -> Json:
    return rows.row(rows.chain(uid(parent)), {
        "type": "attachment", "attachment": payload, "uuid": uid(n), "sessionId": SID,
        "timestamp": f"2026-01-01T00:00:{n:02d}.000Z"})


def use(tid: str) -> Json:
    return {"type": "tool_use", "id": tid, "name": "Bash", "input": {"command": "ls"},
            "caller": "x"}


def result(tid: str, content: str = "out") -> Json:
    return rows.tool_result(tid, content)


def sent(*lines: Json, entry: str = "resume-id") -> list[Json]:
    data = rows.jsonl(lines)
    return rebuild(data, "seed", Options(entry=entry), session_id=SID).view("api")["messages"]


def test_a_queued_command_is_folded_into_the_tool_result_before_it() -> None:
    messages = sent(row("user", 1, None, "go"), row("assistant", 2, 1, [use("t1")]),
                    row("user", 3, 2, [result("t1", " out ")]),
                    attachment(4, 3, {"type": "queued_command", "prompt": "also this"}),
                    row("assistant", 5, 4, [{"type": "text", "text": "done"}]))
    folded = messages[2]["content"][0]["content"]
    assert folded.startswith("out\n\n<system-reminder>\nThe user sent a new message while you")
    assert "also this" in folded and folded.endswith("</system-reminder>")


def test_hook_context_after_an_assistant_is_its_own_user_message() -> None:
    messages = sent(row("user", 1, None, "go"),
                    row("assistant", 2, 1, [{"type": "text", "text": "a"}]),
                    attachment(3, 2, {"type": "hook_additional_context", "hookName": "H",
                                      "content": ["c1", "c2"]}),
                    row("assistant", 4, 3, [{"type": "text", "text": "b"}]))
    assert messages[2] == {"role": "user", "content": [{"type": "text", "text": attachments.wrap(
        "H hook additional context: c1\nc2")}]}
    empty = sent(row("user", 1, None, "go"),
                 row("assistant", 2, 1, [{"type": "text", "text": "a"}]),
                 attachment(3, 2, {"type": "hook_additional_context", "hookName": "H",
                                   "content": []}),
                 row("assistant", 4, 3, [{"type": "text", "text": "b"}]))
    assert [m["role"] for m in empty] == ["user", "assistant", "assistant"]


def test_an_attachment_bubbles_up_past_a_plain_prompt() -> None:
    lines = [row("user", 1, None, "go"), row("assistant", 2, 1, [{"type": "text", "text": "a"}]),
            row("user", 3, 2, "second"),
             attachment(4, 3, {"type": "queued_command", "prompt": "q"}),
             row("assistant", 5, 4, [{"type": "text", "text": "b"}])]
    third = sent(*lines)[2]["content"]
    assert third[0]["text"].startswith("<system-reminder>\nThe user sent")
    assert third[1] == {"type": "text", "text": "second"}


def test_tool_use_blocks_lose_extra_fields_and_thinking_stays_on_a_model_mismatch() -> None:
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s"}
    messages = sent(row("user", 1, None, "go"),
                    row("assistant", 2, 1, [thinking, use("t1")], model="claude-opus-4-1"),
                    row("user", 3, 2, [result("t1")]),
                    row("assistant", 4, 3, [{"type": "text", "text": "ok"}]))
    assert messages[1]["content"] == [thinking, {"type": "tool_use", "id": "t1", "name": "Bash",
                                                 "input": {"command": "ls"}}]


def test_a_missing_result_is_synthesised_and_an_orphan_result_stripped() -> None:
    messages = sent(row("user", 1, None, "go"),
                    row("assistant", 2, 1, [use("t1"), use("t2")]),
                    row("user", 3, 2, [result("t1"), result("zz")]),
                    row("assistant", 4, 3, [{"type": "text", "text": "ok"}]))
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "t2", "content": api.MISSING_RESULT,
         "is_error": True}, result("t1")]


def test_a_repeated_tool_use_id_is_dropped_from_the_later_assistant() -> None:
    messages = sent(row("user", 1, None, "go"), row("assistant", 2, 1, [use("t1")]),
                    row("user", 3, 2, [result("t1")]), row("assistant", 4, 3, [use("t1")]),
                    row("user", 5, 4, [result("t1")]),
                    row("assistant", 6, 5, [{"type": "text", "text": "ok"}]))
    assert messages[3]["content"] == [{"type": "text", "text": api.INTERRUPTED_USE,
                                       "citations": []}]
    # the repeated result now answers nothing: its message is stripped to "(no content)"
    assert messages[4] == {"role": "user", "content": [{"type": "text", "text": "(no content)"}]}


def test_the_harness_cut_removes_context_reminders_and_the_prompt() -> None:
    context = {"type": "text", "text": api.CONTEXT_PREFIX + "\n# currentDate\n</system-reminder>"}
    skills = attachments.wrap(api.SKILLS_PREFIX[18:] + ": x")
    todo = api.TODO_PREFIX + " yet\n</system-reminder>"
    request = [{"role": "user", "content": [context, {"type": "text", "text": "hi"}]},
               {"role": "assistant", "content": [use("t1")]},
               {"role": "user", "content": [
                   {"type": "tool_result", "tool_use_id": "t1", "content": f"out\n\n{skills}"},
                   {"type": "text", "text": todo},
                   {"type": "text", "text": "next", "cache_control": {"type": "ephemeral"}}]}]
    assert api.harness_free(request, "next") == [
        {"role": "user", "content": [{"type": "text", "text": "hi"}]},
        request[1],
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                      "content": "out"}]}]


def test_the_comparison_sees_tool_result_content() -> None:
    mine = [{"role": "user", "content": [result("t1", "a")]}]
    theirs = [{"role": "user", "content": [{**result("t1", "b"),
                                            "cache_control": {"type": "ephemeral"}}]}]
    assert api_difference(mine, theirs) is not None
    assert api_difference(mine, [{"role": "user", "content": [{
        **result("t1", "a"), "cache_control": {"type": "ephemeral"}}]}]) is None
    assert observed_request([], {"role": "user", "content": "next"}, "next") == []


def test_legacy_tool_names_are_sent_under_the_current_name() -> None:
    task = {"type": "tool_use", "id": "t1", "name": "Task", "input": {"prompt": "p"}}
    plan = {"type": "tool_use", "id": "t2", "name": "ExitPlanMode",
            "input": {"plan": "x", "planFilePath": "/p", "keep": 1}}
    messages = sent(row("user", 1, None, "go"), row("assistant", 2, 1, [task, plan]),
                    row("user", 3, 2, [result("t1"), result("t2")]),
                    row("assistant", 4, 3, [{"type": "text", "text": "ok"}]))
    assert [b["name"] for b in messages[1]["content"]] == ["Agent", "ExitPlanMode"]
    assert messages[1]["content"][1]["input"] == {"keep": 1}


def test_hook_context_that_is_not_an_array_fails_the_request() -> None:
    lines = [row("user", 1, None, "go"), row("assistant", 2, 1, [rows.text("a")]),
             attachment(3, 2, {"type": "hook_additional_context", "content": "s1"}),
             row("user", 4, 3, "more"), row("assistant", 5, 4, [rows.text("b")])]
    data = rows.jsonl(lines)
    view = rebuild(data, "seed", Options(entry="resume-id"), session_id=SID).view("api")
    assert view["messages"] == [] and "content.join" in view["error"]
    lines[2] = attachment(3, 2, {"type": "hook_additional_context", "content": ""})
    assert [m["role"] for m in sent(*lines)] == ["user", "assistant", "user", "assistant"]


def test_continue_on_a_session_without_messages_restores_its_title() -> None:

    data = rows.line({"type": "custom-title", "customTitle": "T", "sessionId": SID})
    assert rebuild(data, "seed", Options(entry="continue"),
                   session_id=SID).view("state")["state"]["customTitle"] == "T"
    hidden = data + rows.line({"isSidechain": True})
    assert rebuild(hidden, "seed", Options(entry="continue"),
                   session_id=SID).view("state")["state"]["customTitle"] is None


def test_a_reply_whose_content_is_neither_text_nor_a_list_does_not_break_the_request() -> None:
    """Found by the views fuzz harness: a user row with ``content: null`` after a call."""
    messages = sent(row("assistant", 2, None, [use("t1")]), row("user", 3, 2, None),
                    row("user", 5, 4, [result("t1")]),
                    row("assistant", 4, 3, [{"type": "text", "text": "done"}]))
    assert "assistant" in [m["role"] for m in messages]
