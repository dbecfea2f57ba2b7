"""The TS Agent SDK oracle: install bookkeeping, the `rechain oracle` command, and the bridge.

Tests that run the SDK skip (with the reason) until `rechain oracle install` has run.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

import pytest
from oracle_lines import assistant, line, user, uuids
from oracle_lines import needs_oracle as needs_oracle_named

from rechain.cache import cache_dir
from rechain.cli import main
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.install import check_pin, committed_package_json
from rechain.conformance.oracles.registry import (
    AGENT_SDK_TS,
    entry_path,
    install_dir,
    marker_content,
    marker_path,
)
from rechain.conformance.oracles.ts_sdk import PROJECT_DIR, SessionFile, TsSdkOracle
from rechain.errors import UsageError

# the module's oracle fixture starts once, on one worker
pytestmark = pytest.mark.xdist_group("oracle-agent-sdk-ts")

SID = "0b4f6f1e-3c2a-4d5e-9f00-123456789abc"
UNAVAILABLE = TsSdkOracle.available()


needs_oracle = needs_oracle_named("agent-sdk-ts", UNAVAILABLE)


# --- no Node needed -------------------------------------------------------------------


def test_package_json_pins_the_registry_version() -> None:
    manifest = committed_package_json()
    check_pin(AGENT_SDK_TS, manifest)
    parsed = json.loads(manifest)
    assert parsed["private"] is True
    assert "scripts" not in parsed


def test_pin_mismatch_is_a_usage_error() -> None:
    with pytest.raises(UsageError, match="make them agree"):
        check_pin(AGENT_SDK_TS, b'{"dependencies": {"@anthropic-ai/claude-agent-sdk": "^0.3"}}')


def test_oracle_list_shows_install_state(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    expected_dir = tmp_path / "oracles" / "agent-sdk-ts@0.3.332"
    assert install_dir(AGENT_SDK_TS) == expected_dir

    def rows() -> dict[str, list[str]]:
        assert main(["oracle", "list"]) == 0
        header, *lines = capsys.readouterr().out.splitlines()
        assert header.split() == ["NAME", "VERSION", "INSTALLED", "PATH"]
        return {line.split()[0]: line.split() for line in lines}

    assert rows()["agent-sdk-ts"] == ["agent-sdk-ts", "0.3.332", "no", str(expected_dir)]

    entry_path(AGENT_SDK_TS).mkdir(parents=True)
    marker_path(AGENT_SDK_TS).write_text(json.dumps(marker_content(AGENT_SDK_TS)))
    assert rows()["agent-sdk-ts"][2] == "yes"

    marker_path(AGENT_SDK_TS).write_text(json.dumps({"name": "agent-sdk-ts", "version": "0.3.1"}))
    assert rows()["agent-sdk-ts"][2] == "no"


def test_install_without_node_is_one_line(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert main(["oracle", "install", "agent-sdk-ts"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "needs `node` on PATH" in err
    assert not install_dir(AGENT_SDK_TS).exists()  # nothing half-installed is left
    assert TsSdkOracle.available() == "node is not on PATH"


def test_install_unknown_name(capsys) -> None:
    assert main(["oracle", "install", "no-such-oracle"]) == 2
    assert "unknown oracle 'no-such-oracle'" in capsys.readouterr().err


# --- with the installed SDK -----------------------------------------------------------


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("home")


@pytest.fixture(scope="module")
def oracle(home, tmp_path_factory):
    """One bridge for the module, started with a fake HOME and a hostile CLAUDE_CONFIG_DIR."""
    if UNAVAILABLE is not None:
        pytest.skip(f"agent-sdk-ts: {UNAVAILABLE}")
    decoy = tmp_path_factory.mktemp("decoy") / "claude-config"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECHAIN_CACHE", str(cache_dir()))  # the install stays where it is
        patch.setenv("HOME", str(home))
        patch.setenv("CLAUDE_CONFIG_DIR", str(decoy))
        patch.setenv("CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP", "1")  # must not leak in
        with TsSdkOracle() as started:
            yield started
    assert not decoy.exists()


@needs_oracle
def test_version(oracle) -> None:
    assert oracle.version() == "0.3.332"
    assert oracle.import_ms is not None


@needs_oracle
def test_two_line_round_trip(oracle) -> None:
    data = user("u1", None, sessionId="entry-session", timestamp="2026-01-01T00:00:00.000Z")
    data += assistant("a1", "u1")
    messages = oracle.session_messages(data, session_id=SID)
    assert messages == [
        {"type": "user", "uuid": "u1", "session_id": "entry-session",
         "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None,
         "parent_agent_id": None, "timestamp": "2026-01-01T00:00:00.000Z"},
        # no sessionId in the entry: the SDK leaves session_id out, it does not use SID
        {"type": "assistant", "uuid": "a1",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
         "parent_tool_use_id": None, "parent_agent_id": None},
    ]


@needs_oracle
def test_session_id_must_be_a_uuid(oracle) -> None:
    data = user("u1", None) + assistant("a1", "u1")
    assert oracle.session_messages(data, session_id="not-a-uuid") == []
    assert oracle.session_messages(data, session_id=SID.upper()) != []
    with pytest.raises(OracleError, match="unusable session_id"):
        oracle.session_messages(data, session_id="../escape")


@needs_oracle
def test_include_system_messages_is_passed(oracle) -> None:
    data = user("u1", None)
    data += line(type="system", subtype="informational", uuid="s1", parentUuid="u1",
                 content="note", level="info")
    data += assistant("a1", "s1")
    assert uuids(oracle.session_messages(data, session_id=SID)) == ["u1", "a1"]
    with_system = oracle.session_messages(data, session_id=SID, include_system_messages=True)
    assert uuids(with_system) == ["u1", "s1", "a1"]


@needs_oracle
def test_limit_and_offset_are_passed(oracle) -> None:
    data = user("m0", None)
    for i in range(1, 6):
        data += (assistant if i % 2 else user)(f"m{i}", f"m{i - 1}")
    every = [f"m{i}" for i in range(6)]
    assert uuids(oracle.session_messages(data, session_id=SID)) == every
    assert uuids(oracle.session_messages(data, session_id=SID, limit=2, offset=1)) == every[1:3]
    assert uuids(oracle.session_messages(data, session_id=SID, offset=4)) == every[4:]
    assert uuids(oracle.session_messages(data, session_id=SID, limit=0, offset=2)) == every[2:]
    assert uuids(oracle.session_messages(data, session_id=SID, limit=10)) == every


@needs_oracle
def test_bytes_reach_the_sdk_exactly(oracle) -> None:
    data = (
        user("u1", None).replace(b"\n", b"\r\n")  # CRLF: JSON.parse takes the CR as space
        + b"\x00\x1f " + assistant("a1", "u1", "BAD").replace(b"BAD", b"bad \xff utf8 \xe2\x82(")
        + user("u2", "a1").rstrip(b"\n") + b"\r" + assistant("lost", "u2")  # lone CR: not a break
        + user("u3", "a1", "caf\u00e9 \U0001f600")
    )
    messages = oracle.session_messages(data, session_id=SID)
    assert uuids(messages) == ["u1", "a1", "u3"]
    assert messages[1]["message"]["content"][0]["text"] == "bad \ufffd utf8 \ufffd("
    assert messages[2]["message"]["content"] == "caf\u00e9 \U0001f600"
    (info,) = oracle.list_sessions([SessionFile(SID, data)])
    assert info["fileSize"] == len(data)


def compacted_over_the_limit() -> bytes:
    """A compaction after 5 MiB: the reader skips the bytes before it unless told not to."""
    big = "x" * (5 * 1024 * 1024 + 1)
    data = user("u0", None, big) + assistant("a0", "u0")
    data += line(type="system", subtype="compact_boundary", uuid="cb", parentUuid="a0",
                 content="Conversation compacted", compactMetadata={"trigger": "auto"})
    return data + user("u1", "cb") + assistant("a1", "u1")


@needs_oracle
def test_env_applies_to_one_call_only(oracle) -> None:
    data = compacted_over_the_limit()
    assert uuids(oracle.session_messages(data, session_id=SID)) == ["u1", "a1"]
    env = {"CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP": "1"}
    kept = oracle.session_messages(data, session_id=SID, env=env)
    assert uuids(kept) == ["u0", "a0", "u1", "a1"]
    assert uuids(oracle.session_messages(data, session_id=SID)) == ["u1", "a1"]


@needs_oracle
def test_many_calls_share_one_process(oracle) -> None:
    data = user("u1", None) + assistant("a1", "u1")
    pid = oracle.pid
    count = 300
    started = time.perf_counter()
    for _ in range(count):
        assert len(oracle.session_messages(data, session_id=SID)) == 2
    rate = count / (time.perf_counter() - started)
    print(f"agent-sdk-ts: {rate:.0f} calls/s on a 2-line transcript")
    assert oracle.pid == pid


@needs_oracle
def test_nothing_is_written_outside_the_scratch_dir(oracle, home) -> None:
    oracle.session_messages(user("u1", None), session_id=SID)
    assert not (home / ".claude").exists()
    assert list(home.iterdir()) == []
    workdir = oracle.workdir
    assert workdir is not None
    assert list((workdir / "tmp").iterdir()) == []  # per-call temp dirs are removed
    assert list((workdir / "home").iterdir()) == []


@needs_oracle
def test_list_sessions_sorts_by_mtime(oracle) -> None:
    older, newer = SID, "0b4f6f1e-3c2a-4d5e-9f00-cba987654321"
    sessions = oracle.list_sessions([
        SessionFile(older, user("u1", None, "first"), mtime_ms=1_700_000_000_000),
        SessionFile(newer, user("u1", None, "second"), mtime_ms=1_700_000_001_000),
    ])
    assert [s["sessionId"] for s in sessions] == [newer, older]
    assert [s["firstPrompt"] for s in sessions] == ["second", "first"]
    assert sessions[0]["lastModified"] == 1_700_000_001_000
    assert sessions[0]["cwd"] == PROJECT_DIR


@needs_oracle
def test_restarts_after_the_process_dies(oracle) -> None:
    data = user("u1", None)
    old = oracle.pid
    assert old is not None
    os.kill(old, signal.SIGKILL)
    deadline = time.monotonic() + 10
    while oracle.pid is not None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert uuids(oracle.session_messages(data, session_id=SID)) == ["u1"]
    assert oracle.pid not in (None, old)


@needs_oracle
def test_timeout_raises_and_the_next_call_recovers() -> None:
    huge = user("u1", None, "y" * (8 * 1024 * 1024))
    with TsSdkOracle(timeout=0.001) as slow:
        with pytest.raises(OracleError, match="no answer"):
            slow.session_messages(huge, session_id=SID)
        assert slow.pid is None
        slow.timeout = 60
        assert uuids(slow.session_messages(user("u1", None), session_id=SID)) == ["u1"]


@needs_oracle
def test_recycles_the_process_after_many_calls() -> None:
    data = user("u1", None)
    with TsSdkOracle(recycle_after=2) as oracle:
        first = oracle.pid
        oracle.session_messages(data, session_id=SID)
        oracle.session_messages(data, session_id=SID)
        assert oracle.pid == first
        oracle.session_messages(data, session_id=SID)
        assert oracle.pid not in (None, first)


def _one_by_one(oracle, calls):
    """Each call alone, through ``session_messages``: the messages or the error raised."""
    answers = []
    for call in calls:
        try:
            answers.append(oracle.session_messages(
                call.data, session_id=call.session_id,
                include_system_messages=call.include_system_messages, limit=call.limit,
                offset=call.offset, env=call.env))
        except OracleError as error:
            answers.append(error)
    return answers


def _same(batched, single) -> bool:
    if isinstance(single, OracleError):
        return type(batched) is type(single) and str(batched) == str(single)
    return batched == single


@needs_oracle
def test_a_batch_answers_like_single_calls(oracle) -> None:
    other = "0b4f6f1e-3c2a-4d5e-9f00-cba987654321"
    with_system = user("u1", None) + line(
        type="system", subtype="informational", uuid="s1", parentUuid="u1", content="note",
        level="info") + assistant("a1", "s1")
    calls = [
        MessagesCall(user("u1", None) + assistant("a1", "u1"), SID),
        MessagesCall(user("u2", None, "other bytes"), SID),  # the same id in one batch
        MessagesCall(with_system, other, include_system_messages=True),
        MessagesCall(with_system, SID, limit=1, offset=1),
        MessagesCall(user("u3", None), "../escape"),  # refused: that case only
        MessagesCall(user("u4", None), other, env={"HOME": "/"}),  # refused env
        MessagesCall(b"\xff\xfe{\n" + user("u5", None), SID.upper(), env={"X_FLAG": "1"}),
    ]
    batched = oracle.session_messages_many(calls, concurrency=3)
    single = _one_by_one(oracle, calls)
    assert [uuids(a) if isinstance(a, list) else "error" for a in batched] == [
        ["u1", "a1"], ["u2"], ["u1", "s1", "a1"], ["a1"], "error", "error", ["u5"]]
    assert all(_same(b, s) for b, s in zip(batched, single, strict=True))
    assert list((oracle.workdir / "tmp").iterdir()) == []  # scratch dirs are removed
    laid_out = oracle.workdir / "lay"
    assert [p for p in laid_out.rglob("*") if p.is_file()] == []  # transcripts removed


@needs_oracle
def test_the_bridge_reads_batches_only_from_the_laid_out_dirs(oracle, tmp_path) -> None:
    config = tmp_path / "cfg"
    cwd = tmp_path / "cwd"
    project = config / "projects" / re.sub(r"[^A-Za-z0-9]", "-", str(cwd))
    project.mkdir(parents=True)
    cwd.mkdir()
    (project / f"{SID}.jsonl").write_bytes(user("u1", None))
    for fields in ({"config_dir": str(config), "cwd": str(cwd)},
                   {"config_dir": str(oracle.workdir / "lay" / ".." / "cfg"), "cwd": str(cwd)}):
        answers = oracle._call_many("session_messages_many", [
            {**fields, "session_id": SID, "env": {}}], 1)
        assert isinstance(answers[0], OracleError)
        assert "must be directories under" in str(answers[0])


@needs_oracle
def test_a_batch_with_a_name_the_file_system_refuses(oracle) -> None:
    calls = [MessagesCall(user("u1", None), "é" * 150), MessagesCall(  # > 255 bytes
        user("u2", None), SID)]
    answers = oracle.session_messages_many(calls)
    assert isinstance(answers[0], OracleError) and "could not be laid out" in str(answers[0])
    assert uuids(answers[1]) == ["u2"]


@needs_oracle
def test_a_batch_applies_each_cases_env(oracle) -> None:
    data = compacted_over_the_limit()
    env = {"CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP": "1"}
    batched = oracle.session_messages_many(
        [MessagesCall(data, SID), MessagesCall(data, SID, env=env), MessagesCall(data, SID)])
    assert [uuids(a) for a in batched] == [["u1", "a1"], ["u0", "a0", "u1", "a1"], ["u1", "a1"]]
