"""Profile ``claude-code@2.1.332`` (``cli``): what ``claude -p --resume`` sends the model.

Every expected value here was observed with the real CLI 2.1.332 (the probes of
``docs/cli-resume.md``); the corpus cases ``cli-*`` carry the recorded outputs.
"""

from __future__ import annotations

import json
from fnmatch import fnmatchcase
from typing import Any

import pytest

from rechain.cli import main
from rechain.conformance import skips
from rechain.corpus.cases_io import Case, load_cases
from rechain.corpus.record import CLI_PROFILE
from rechain.reference import get_profile, rebuild
from rechain.reference.js.date_iso import time_of
from rechain.reference.js.jsonl import Skipped, Value, read_values
from rechain.reference.model import Options
from rechain.reference.profiles.claude_code_2_1_332 import CLAUDE_CODE, resume, same_model, to_api
from rechain.reference.profiles.claude_code_2_1_332.api import (
    INTERRUPTED_CALL,
    MISSING_RESULT,
    ORPHANED_RESULT,
)

SID = "e648d96b-892b-4db2-9b34-efa1c54e45c9"
MODEL = "claude-sonnet-4-6"


def uid(n: int) -> str:
    return f"00000000-0000-0000-0000-{0x1000 + n:012x}"


def stamp(second: int) -> str:
    return f"2026-11-20T09:{second // 60:02d}:{second % 60:02d}.000Z"


def user(n: int, parent: str | None, content: Any = None, second: int | None = None,
         **extra: Any) -> dict[str, Any]:
    row = {"parentUuid": parent, "isSidechain": False, "type": "user",
           "message": {"role": "user", "content": f"u{n}" if content is None else content},
           "uuid": uid(n), "timestamp": stamp(n * 60 if second is None else second),
           "sessionId": SID}
    return row | extra


def assistant(n: int, parent: str | None, content: Any = None, mid: str | None = None,
              model: str = MODEL, second: int | None = None) -> dict[str, Any]:
    return {"parentUuid": parent, "isSidechain": False, "type": "assistant",
            "message": {"model": model, "id": mid or f"msg_{n}", "type": "message",
                        "role": "assistant",
                        "content": [{"type": "text", "text": f"a{n}"}] if content is None
                        else content},
            "uuid": uid(n), "timestamp": stamp(n * 60 if second is None else second),
            "sessionId": SID}


def call(name: str) -> list[dict[str, Any]]:
    return [{"type": "tool_use", "id": f"toolu_{name}", "name": "Bash", "input": {}}]


def answer(n: int, parent: str, name: str) -> dict[str, Any]:
    return user(n, parent, [{"type": "tool_result", "tool_use_id": f"toolu_{name}",
                             "content": f"r{name}", "is_error": False}])


def jsonl(*rows: dict[str, Any] | bytes) -> bytes:
    out = b""
    for row in rows:
        out += (row if isinstance(row, bytes) else json.dumps(row).encode()) + b"\n"
    return out


def api(data: bytes, model: str = MODEL) -> list[dict[str, Any]]:
    return rebuild(data, "cli", Options(model=model), session_id=SID).view("api")["messages"]


def texts(messages: list[dict[str, Any]]) -> list[tuple[str, Any]]:
    """(role, text or block summary) of each message, for short assertions."""
    out: list[tuple[str, Any]] = []
    for message in messages:
        content = message["content"]
        if isinstance(content, str):
            out.append((message["role"], content))
        else:
            out.append((message["role"], [b.get("text") or b.get("id") or b.get("tool_use_id")
                                          for b in content]))
    return out


# --- the profile is registered ---------------------------------------------------------


def test_profile_by_name_and_alias() -> None:
    assert get_profile("cli") is CLAUDE_CODE
    assert get_profile("claude-code@2.1.332") is CLAUDE_CODE
    assert set(CLAUDE_CODE.views) == {"chain", "api"}


def test_rebuild_messages_view_is_the_chain_as_session_messages() -> None:
    data = jsonl(user(1, None), assistant(2, uid(1)), user(3, uid(2), isMeta=True))
    result = rebuild(data, "cli")
    assert result.uuids == [uid(1), uid(2), uid(3)]  # meta rows are sent, so shown
    assert result.messages[2]["is_meta"] is True


def test_rebuild_command_views(capsys: pytest.CaptureFixture[str], tmp_path: Any) -> None:
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(jsonl(user(1, None), assistant(2, uid(1))))
    assert main(["rebuild", str(path), "--profile", "cli", "--view", "api"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["messages"] == [{"role": "user", "content": "u1"},
                                 {"role": "assistant", "content": [{"type": "text", "text": "a2"}]}]
    assert main(["rebuild", str(path), "--profile", "cli", "--view", "chain"]) == 0
    chain = json.loads(capsys.readouterr().out)
    assert (chain["leaf"], chain["tip"], chain["chain"]) == (uid(2), uid(2), [uid(1), uid(2)])


# --- the JSONL reader ----------------------------------------------------------------


def values(data: bytes) -> list[Any]:
    numbers = list(range(1, data.count(b"\n") + 2))
    return [v.value for v in read_values(data, numbers) if isinstance(v, Value)]


def test_reader_keeps_the_first_value_of_a_line_and_ignores_the_rest() -> None:
    assert values(b'{"a":1} {"b":2}\n{"c":3}\r{"d":4}\n{"e":5}\x0c\n') == [
        {"a": 1}, {"c": 3}, {"e": 5}]


def test_reader_lets_a_value_span_lines_and_skips_bad_lines() -> None:
    data = b'{"a":\n1}\n{"n":NaN}\n\xc2\xa0{"x":1}\n\xef\xbb\xbf{"y":2}\n'
    assert values(b"\xef\xbb\xbf" + data) == [{"a": 1}]
    assert any(isinstance(v, Skipped) for v in read_values(data, [1, 2, 3, 4, 5, 6]))


def test_reader_resumes_after_the_line_feed_past_a_truncated_string() -> None:
    assert values(b'{"a":"trunc\n{"b":1}\n') == [{"b": 1}]


def test_js_date() -> None:
    assert time_of("1970-01-01T00:00:05.000Z") == 5000
    assert time_of("1970-01-01") == 0
    assert time_of(None) == 0
    assert time_of("yesterday") != time_of("yesterday")  # NaN


def test_same_model_ignores_date_case_and_1m() -> None:
    assert same_model("claude-sonnet-4-6-20260101", "claude-sonnet-4-6")
    assert same_model("Claude-Sonnet-4-6[1m]", "claude-sonnet-4-6")
    assert same_model("<synthetic>", "claude-sonnet-4-6")
    assert not same_model("claude-opus-4-1-20250805", "claude-sonnet-4-6")


# --- load, tip and walk (each observed with the CLI) -----------------------------------


def test_missing_parent_bridged_within_five_seconds_only() -> None:
    near = jsonl(user(1, None, second=0), assistant(2, uid(1), second=10),
                 user(3, uid(99), second=13), assistant(4, uid(3), second=20))
    far = jsonl(user(1, None, second=0), assistant(2, uid(1), second=10),
                user(3, uid(99), second=16), assistant(4, uid(3), second=20))
    assert [r["uuid"] for r in resume(near).chain] == [uid(1), uid(2), uid(3), uid(4)]
    assert [r["uuid"] for r in resume(far).chain] == [uid(3), uid(4)]


def test_the_last_written_branch_is_resumed_whatever_the_timestamps() -> None:
    data = jsonl(user(1, None, second=0), assistant(2, uid(1), second=10),
                 user(3, uid(2), second=100), assistant(4, uid(3), second=110),
                 user(5, uid(2), second=50), assistant(6, uid(5), second=60))
    assert rebuild(data, "cli", Options(), session_id=SID).view("chain")["tip"] == uid(6)


def test_a_last_prompt_checkpoint_overrides_the_last_row() -> None:
    checkpoint = {"type": "last-prompt", "lastPrompt": "u3", "leafUuid": uid(4),
                  "sessionId": SID}
    data = jsonl(user(1, None), assistant(2, uid(1)), user(3, uid(2)), assistant(4, uid(3)),
                 checkpoint, user(5, uid(2)), assistant(6, uid(5)), checkpoint)
    assert rebuild(data, "cli", Options(), session_id=SID).view("chain")["tip"] == uid(4)


def test_no_main_chain_row_is_no_conversation() -> None:
    side = user(1, None) | {"isSidechain": True}
    assert rebuild(jsonl(side), "cli", Options(),
                   session_id=SID).view("api")["error"] == "No conversation found"


# --- the API messages ------------------------------------------------------------------


def test_sentinel_and_merged_users() -> None:
    data = jsonl(user(1, None, "summary", isCompactSummary=True), user(2, uid(1), isMeta=True),
                 user(3, uid(2)))
    assert api(data) == [
        {"role": "user", "content": [{"type": "text", "text": "summary\n"},
                                     {"type": "text", "text": "u2\n"},
                                     {"type": "text", "text": "u3"}]},
        {"role": "assistant", "content": [{"type": "text", "text": "No response requested."}]},
    ]


def test_thinking_survives_only_for_the_request_model() -> None:
    think = [{"type": "thinking", "thinking": "t", "signature": "s"}]
    data = jsonl(user(1, None), assistant(2, uid(1), [*think, {"type": "text", "text": "a2"}],
                                          model="claude-opus-4-1-20250805"))
    assert texts(api(data)) == [("user", "u1"), ("assistant", ["a2"])]
    assert api(data, model="claude-opus-4-1")[1]["content"][0]["type"] == "thinking"


def test_unanswered_call_in_a_finished_turn_is_dropped() -> None:
    data = jsonl(user(1, None), assistant(2, uid(1), call("x"), mid="m"),
                 assistant(3, uid(2), call("y"), mid="m"), answer(4, uid(3), "y"),
                 assistant(5, uid(4)))
    assert texts(api(data)) == [("user", "u1"), ("assistant", ["toolu_y"]),
                                ("user", ["toolu_y"]), ("assistant", ["a5"])]


def test_an_interrupted_turn_keeps_every_call() -> None:
    data = jsonl(user(1, None), assistant(2, uid(1), call("x"), mid="m"),
                 assistant(3, uid(2), call("y"), mid="m"), assistant(6, uid(3), call("z"), mid="m"),
                 answer(4, uid(6), "x"), answer(7, uid(4), "z"),
                 assistant(5, uid(7), call("w"), mid="w"))
    messages = api(data)
    assert texts(messages)[1] == ("assistant", ["toolu_x", "toolu_y", "toolu_z"])
    assert messages[2]["content"][0] == {"type": "tool_result", "tool_use_id": "toolu_y",
                                         "content": MISSING_RESULT, "is_error": True}
    assert messages[4]["content"] == [{"type": "tool_result", "content": INTERRUPTED_CALL,
                                       "is_error": True, "tool_use_id": "toolu_w"}]
    assert texts(messages)[-1] == ("assistant", ["No response requested."])
    assert rebuild(data, "cli", Options(), session_id=SID).view("chain")["tip"] == uid(5)


def test_orphaned_first_result_and_legacy_tool_name() -> None:
    data = jsonl(answer(1, uid(90), "gone"), assistant(2, uid(1), [
        {"type": "tool_use", "id": "toolu_t", "name": "Task", "input": {}}]),
        answer(3, uid(2), "t"), assistant(4, uid(3)))
    messages = api(data)
    assert messages[0]["content"] == [{"type": "text", "text": ORPHANED_RESULT}]
    assert messages[1]["content"][0]["name"] == "Agent"


def test_queued_command_moves_before_the_prompt() -> None:
    queued = {"parentUuid": uid(1), "isSidechain": False, "type": "attachment",
              "attachment": {"type": "queued_command", "prompt": "also this"},
              "uuid": uid(2), "timestamp": stamp(130), "sessionId": SID}
    first = api(jsonl(user(1, None), queued, assistant(3, uid(2))))[0]["content"]
    assert first[0]["text"].startswith("<system-reminder>\nThe user sent a new message")
    assert first[1] == {"type": "text", "text": "u1"}
    trailing = api(jsonl(user(1, None), assistant(2, uid(1)), queued | {"parentUuid": uid(2),
                                                                      "uuid": uid(3)}))
    assert texts(trailing) == [("user", "u1"), ("assistant", ["a2"])]  # joins the prompt


def test_to_api_is_pure_on_rows() -> None:
    rows = [user(1, None), assistant(2, uid(1))]
    before = json.dumps(rows)
    to_api(rows, MODEL)
    assert json.dumps(rows) == before


# --- the recorded corpus cases -----------------------------------------------------------


def cli_cases() -> list[Case]:
    return [c for c in load_cases() if any(e.profile == CLI_PROFILE for e in c.expectations)]


REFERENCE = "reference@0.1.0 (claude-code@2.1.332)"
RECORDED = CLI_PROFILE  # the label of the CLI's recorded answers


def known_difference(case_id: str) -> str | None:
    """The reason conformance/skips.json gives for a known difference (docs/cli-resume.md)."""
    entry = skips.load().find(REFERENCE, RECORDED, case_id)
    return entry.reason if entry is not None else None


def _marked(case: Case) -> Any:
    reason = known_difference(case.id)
    if reason is not None:  # documented differences must keep failing (strict)
        return pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=reason))
    return case


def _options(recorded: Any) -> Options:
    return Options(resume_interrupted_turn=bool(recorded.get("resume_interrupted_turn")))


@pytest.mark.parametrize("case", [_marked(c) for c in cli_cases()],
                         ids=lambda c: c.id if isinstance(c, Case) else str(c))
def test_recorded_cli_expectations(case: Case) -> None:
    data = case.input_bytes()
    for expectation in case.expectations:
        if expectation.profile != CLI_PROFILE:
            continue
        options = _options(expectation.options)
        if expectation.view == "api":
            assert rebuild(data, "cli", options,
                           session_id=case.session_id).view("api")["messages"] == list(
                expectation.messages)
        elif expectation.view == "chain":
            tip = expectation.messages[0]["uuid"] if expectation.messages else None
            assert rebuild(data, "cli", options,
                           session_id=case.session_id).view("chain")["tip"] == tip


def test_every_corpus_case_records_both_cli_views() -> None:
    missing = [c.id for c in load_cases()
               if {e.view for e in c.expectations_for(CLI_PROFILE, "api")
                   + c.expectations_for(CLI_PROFILE, "chain")} != {"api", "chain"}]
    assert missing == []


def test_known_differences_are_named_in_the_skip_list() -> None:
    """Each skipped case is a documented difference (``D<n>: ...``) of an existing case."""
    ids = {c.id for c in cli_cases()}
    entries = [e for e in skips.load().entries if fnmatchcase(REFERENCE, e.implementation)]
    for entry in entries:
        assert entry.reason.startswith("D") and "cli-resume.md" in entry.link
        assert all(any(fnmatchcase(i, pattern) for i in ids) for pattern in entry.cases)


def test_resume_interrupted_turn_cases_carry_the_option() -> None:
    switched = [c for c in cli_cases() if any(
        e.options.get("resume_interrupted_turn") for e in c.expectations_for(CLI_PROFILE, "api"))]
    assert len(switched) >= 5
    for case in switched:
        assert case.id.startswith("cli-resume-interrupted-")
