"""The Claude Code CLI oracle: the fake Messages API, result parsing, and real resumes.

Tests that run the CLI skip (with the reason) until `rechain oracle install claude-code`.
The fake API and the parsing of appended rows are checked without it.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import struct
from pathlib import Path

import pytest

from rechain.cache import cache_dir
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.claude_cli import (
    MODEL,
    ClaudeCliOracle,
    CliCase,
    chained_to,
    project_dir_name,
)
from rechain.conformance.oracles.fake_api import REPLY_TEXT, FakeMessagesApi
from rechain.conformance.oracles.registry import CLAUDE_CODE, REGISTRY, entry_path
from rechain.strategies import rows

SID = "c11c0de0-5e55-4a1b-8c2d-0123456789ab"
UNAVAILABLE = ClaudeCliOracle.available()
INTERRUPTED = (
    "[Tool call interrupted: the session ended before this call's result was recorded, so its "
    "outcome is unknown. Check whether it took effect before relying on it or running it again.]"
)

# the module's oracle fixture starts once, on one worker
pytestmark = pytest.mark.xdist_group("oracle-claude-code")
U1, A1, U2, A2 = (f"11111111-2222-4333-8444-00000000000{n}" for n in range(1, 5))


def needs_cli(test):
    """Mark a test as running the installed CLI: it skips with the reason otherwise."""
    skip = pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code: {UNAVAILABLE}")
    return pytest.mark.oracle(skip(test))


def row(kind: str, uuid: str, parent: str | None, content: object, second: int,
        model: str = MODEL, **extra: object) -> bytes:
    message: dict[str, object] = {"role": kind, "content": content}
    if kind == "assistant":
        message.update(model=model, id=f"msg_{uuid[-4:]}", type="message",
                       stop_reason="end_turn")
    entry = {"type": kind, "uuid": uuid, "parentUuid": parent, "sessionId": SID,
             "timestamp": f"2026-01-01T00:00:{second:02d}.000Z", "isSidechain": False,
             "message": message, **extra}
    return rows.line(entry)


TWO = row("user", U1, None, "hello", 1) + row("assistant", A1, U1,
                                             [{"type": "text", "text": "hi there"}], 2)


def lingering_cli_processes(port: int) -> list[int]:
    """Processes still running the oracle's binary against the fake API on ``port``.

    Only this oracle's: other tests (another xdist worker, another user) may run the CLI now.
    """
    binary = os.path.realpath(entry_path(CLAUDE_CODE))
    marker = f"ANTHROPIC_BASE_URL=http://127.0.0.1:{port}\0".encode()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if os.path.realpath(proc / "exe") != binary:
                continue
            if marker in (proc / "environ").read_bytes() + b"\0":
                found.append(int(proc.name))
        except OSError:
            continue
    return found


# --- no CLI needed --------------------------------------------------------------------


def test_registry_pins_the_cli() -> None:
    assert REGISTRY["claude-code"] is CLAUDE_CODE
    assert CLAUDE_CODE.version == "2.1.332"
    assert project_dir_name("/tmp/rechain-cli-ab_c/project") == "-tmp-rechain-cli-ab-c-project"


def test_unavailable_when_not_installed(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    assert "rechain oracle install claude-code" in str(ClaudeCliOracle.available())
    with pytest.raises(OracleError, match="unavailable"):
        ClaudeCliOracle().start()
    with pytest.raises(ValueError, match="workers"):
        ClaudeCliOracle(workers=0)


def _post(api: FakeMessagesApi, path: str, body: dict, key: str) -> tuple[int, str, bytes]:
    connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
    try:
        connection.request("POST", path, body=json.dumps(body),
                           headers={"x-api-key": key, "content-type": "application/json"})
        response = connection.getresponse()
        return response.status, response.getheader("content-type") or "", response.read()
    finally:
        connection.close()


def test_fake_api_answers_and_files_requests_by_key() -> None:
    with FakeMessagesApi() as api:
        assert api.base_url.startswith("http://127.0.0.1:")
        mine, other = api.key(), api.key()
        status, kind, body = _post(api, "/v1/messages?beta=true",
                                   {"model": "m", "messages": [], "stream": True}, mine)
        assert (status, kind) == (200, "text/event-stream")
        events = [json.loads(chunk.split(b"data: ", 1)[1])
                  for chunk in body.split(b"\n\n") if chunk]
        assert [e["type"] for e in events] == [
            "message_start", "content_block_start", "content_block_delta",
            "content_block_stop", "message_delta", "message_stop"]
        assert events[2]["delta"]["text"] == REPLY_TEXT
        status, kind, body = _post(api, "/v1/messages", {"model": "m", "messages": []}, other)
        assert status == 200 and json.loads(body)["content"][0]["text"] == REPLY_TEXT
        assert _post(api, "/v1/messages/count_tokens", {}, mine)[0] == 200
        assert _post(api, "/v1/elsewhere", {}, mine)[0] == 404
        taken = api.take(mine)
        assert [(r.path, r.query, r.is_messages) for r in taken] == [
            ("/v1/messages", "beta=true", True), ("/v1/messages/count_tokens", "", False),
            ("/v1/elsewhere", "", False)]
        assert taken[0].body["stream"] is True
        assert api.take(mine) == []
        assert len(api.take(other)) == 1
        port = api.port
    with pytest.raises(ConnectionRefusedError):
        http.client.HTTPConnection("127.0.0.1", port, timeout=5).connect()


def test_fake_api_answers_head_with_headers_only_and_ignores_hang_ups(capfd) -> None:
    with FakeMessagesApi() as api:
        connection = http.client.HTTPConnection("127.0.0.1", api.port, timeout=10)
        connection.request("HEAD", "/", headers={"x-api-key": "k"})
        response = connection.getresponse()
        assert (response.status, response.read()) == (404, b"")
        connection.close()
        for _ in range(20):  # hang up before the answer is read: no traceback on stderr
            with socket.create_connection(("127.0.0.1", api.port), timeout=5) as raw:
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                raw.sendall(b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
        assert api.take("k")[0].method == "HEAD"
    assert "Traceback" not in capfd.readouterr().err


def test_chained_to_follows_appended_rows_back_to_the_transcript() -> None:
    appended = [
        {"type": "queue-operation"},
        {"type": "assistant", "uuid": "syn", "parentUuid": "old-user",
         "message": {"content": [{"type": "text", "text": "No response requested."}]}},
        {"type": "user", "uuid": "meta", "parentUuid": "syn", "isMeta": True,
         "message": {"content": "next"}},
        {"type": "user", "uuid": "p", "parentUuid": "syn", "message": {"content": "next"}},
    ]
    assert chained_to(appended, "next") == ("syn", "old-user")
    assert chained_to(appended[:1], "next") == (None, None)
    block = [{"type": "user", "uuid": "p", "parentUuid": "x",
              "message": {"content": [{"type": "text", "text": "next"}]}}]
    assert chained_to(block, "next") == ("x", "x")


def test_chained_to_finds_a_requeued_prompt_joined_in_front_of_ours() -> None:
    """Before 2.1.200 an interrupted prompt is queued in front of the new one, one row."""
    joined = [{"type": "user", "uuid": "p", "parentUuid": "u3",
               "message": {"content": "u4\nnext"}}]
    assert chained_to(joined, "next") == ("u3", "u3")
    assert chained_to([{**joined[0], "message": {"content": "u4 next"}}], "next") == (None, None)
    exact = [{"type": "user", "uuid": "q", "parentUuid": "a", "message": {"content": "next"}}]
    assert chained_to(joined + exact, "next") == ("a", "a")


# --- with the installed CLI -----------------------------------------------------------


@pytest.fixture(scope="module")
def cli(tmp_path_factory):
    """One oracle (and fake API) for the module, with a decoy HOME and CLAUDE_CONFIG_DIR."""
    if UNAVAILABLE is not None:
        pytest.skip(f"claude-code: {UNAVAILABLE}")
    decoy = tmp_path_factory.mktemp("decoy")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECHAIN_CACHE", str(cache_dir()))
        patch.setenv("HOME", str(decoy / "home"))
        patch.setenv("CLAUDE_CONFIG_DIR", str(decoy / "claude-config"))
        patch.setenv("ANTHROPIC_BASE_URL", "http://192.0.2.1:9")  # must not leak in
        with ClaudeCliOracle(workers=2) as started:
            port = started.port
            yield started
    assert list(decoy.iterdir()) == []
    assert port is not None and lingering_cli_processes(port) == []


@needs_cli
def test_version(cli) -> None:
    assert cli.version() == "2.1.332 (Claude Code)"


@needs_cli
def test_the_adapter_counts_the_seconds_its_cli_processes_ran(tmp_path, monkeypatch) -> None:
    from rechain.conformance.impls import connect
    from rechain.conformance.oracles.cli_answers import ENV
    from rechain.conformance.protocol import Answered, CaseInput

    monkeypatch.setenv(ENV, str(tmp_path))  # an empty store: the first answer runs the CLI
    reader = connect("claude-code")
    try:
        first = reader.run(CaseInput("two", TWO, SID))
        ran = reader.process_seconds
        again = reader.run(CaseInput("two", TWO, SID))  # from the store: no process
    finally:
        reader.close()
    assert isinstance(first, Answered) and again == first
    assert ran > 0 and reader.process_seconds == ran


@needs_cli
def test_the_version_is_asked_once_per_binary(cli, monkeypatch) -> None:
    import rechain.conformance.oracles.claude_cli as claude_cli

    first = cli.version()

    def started_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("claude --version ran again")

    monkeypatch.setattr(claude_cli.subprocess, "run", started_again)
    assert ClaudeCliOracle(spec=cli.spec).version() == first  # another connection, same CLI


@needs_cli
def test_two_row_round_trip(cli) -> None:
    result = cli.resume(TWO, session_id=SID)
    assert result.ok and result.returncode == 0 and result.requests == 1, result.stderr
    assert result.messages == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [{"type": "text", "text": "hi there"}]},
    ]
    prompt = result.prompt_turn
    assert prompt is not None and prompt["role"] == "user"
    assert prompt["content"][-1]["text"] == "next"
    assert all(block["text"].startswith("<system-reminder>") for block in prompt["content"][:-1])
    assert result.resumed_parent == A1 and result.resumed_leaf == A1
    assert result.prefix_intact and result.appended
    assert result.first_request is not None and result.first_request["model"] == MODEL
    assert "retire" not in result.stderr  # the pinned model has no retirement warning
    assert result.other_requests == []


@needs_cli
def test_trailing_unresolved_tool_use_gets_a_synthetic_error_result(cli) -> None:
    tool_use = {"type": "tool_use", "id": "toolu_01", "name": "Bash", "input": {"command": "ls"}}
    data = row("user", U1, None, "hello", 1) + row("assistant", A1, U1, [tool_use], 2)
    result = cli.resume(data, session_id=SID)
    assert result.ok, result.stderr
    assert result.messages == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": [tool_use]},
        {"role": "user", "content": [{"type": "tool_result", "content": INTERRUPTED,
                                      "is_error": True, "tool_use_id": "toolu_01"}]},
        # the synthetic result is a user message at the end, so this follows as well:
        {"role": "assistant", "content": [{"type": "text", "text": "No response requested."}]},
    ]
    # both synthetic rows are persisted; the prompt hangs off them, the resume off A1
    assert result.resumed_leaf == A1 and result.resumed_parent != A1


@needs_cli
def test_ending_on_a_user_message_adds_no_response_requested(cli) -> None:
    data = TWO + row("user", U2, A1, "unanswered", 3)
    result = cli.resume(data, session_id=SID)
    assert result.ok, result.stderr
    assert result.messages[2:] == [
        {"role": "user", "content": "unanswered"},
        {"role": "assistant", "content": [{"type": "text", "text": "No response requested."}]},
    ]
    synthetic = next(r for r in result.appended if r.get("uuid") == result.resumed_parent)
    assert synthetic["type"] == "assistant" and synthetic["parentUuid"] == U2
    assert result.resumed_leaf == U2


@needs_cli
def test_thinking_is_kept_only_for_the_request_models_family(cli) -> None:
    """Found here: thinking blocks from another model's turn are stripped on resume."""
    thinking = {"type": "thinking", "thinking": "hmm", "signature": "sig"}

    def kinds(model: str) -> list[str]:
        data = row("user", U1, None, "hello", 1) + row(
            "assistant", A1, U1, [thinking, {"type": "text", "text": "answer"}], 2, model=model)
        result = cli.resume(data, session_id=SID)
        return [block["type"] for block in result.messages[1]["content"]]

    assert kinds(MODEL) == ["thinking", "text"]
    assert kinds(f"{MODEL}-20260101") == ["thinking", "text"]  # a dated id is the same model
    assert kinds("claude-sonnet-4-5-20250929") == ["text"]


@needs_cli
def test_no_conversation_is_a_result_not_an_error(cli) -> None:
    result = cli.resume(b'{"type":"summary","summary":"x","leafUuid":"nope"}\n', session_id=SID)
    assert not result.ok and result.returncode != 0 and result.requests == 0
    assert "No conversation found" in result.stderr


@needs_cli
def test_env_is_passed_and_reserved_names_are_refused(cli) -> None:
    with pytest.raises(OracleError, match="unusable env"):
        cli.resume(TWO, session_id=SID, env={"ANTHROPIC_BASE_URL": "http://example.invalid"})
    with pytest.raises(OracleError, match="unusable session_id"):
        cli.resume(TWO, session_id="../x")


@needs_cli
def test_map_keeps_input_order_across_workers(cli) -> None:
    cases = [CliCase(TWO.replace(b"hi there", f"reply {n}".encode()), SID) for n in range(4)]
    results = list(cli.map(cases))
    texts = [r.messages[1]["content"][0]["text"] for r in results]
    assert texts == [f"reply {n}" for n in range(4)]
    assert all(r.requests == 1 for r in results)
    mixed = cli.resume_all([CliCase(TWO, SID), CliCase(TWO, "../bad")])
    assert mixed[0].ok and isinstance(mixed[1], OracleError)  # type: ignore[union-attr]


@needs_cli
def test_a_hang_is_killed_and_reported() -> None:
    hang = ["sh", "-c", "sleep 30 & wait", "sh"]  # the CLI's argv lands in sh's $@, unused
    with ClaudeCliOracle(timeout=0.5, wrapper=hang) as slow, pytest.raises(
        OracleError, match="no exit within"
    ):
        slow.resume(TWO, session_id=SID)
