"""The Python Agent SDK oracle: registry entry, the worker protocol, and the real SDK's quirks.

Tests that run the SDK skip (with the reason) until `rechain oracle install agent-sdk-py`.
The worker's protocol is also checked without the SDK, against a stub package.
"""

from __future__ import annotations

import base64
import math
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from oracle_lines import assistant, line, user, uuids
from oracle_lines import needs_oracle as needs_oracle_named

from rechain.cache import cache_dir
from rechain.cli import main
from rechain.conformance.jsonl_process import JsonLinesProcess
from rechain.conformance.oracles import OracleError, OracleReaderError
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.install import bundled_claude, can_install
from rechain.conformance.oracles.py_sdk import PySdkOracle, worker_script
from rechain.conformance.oracles.py_sdk_worker import (
    BadRequestError,
    checked_env,
    checked_session_id,
    project_dir_name,
    scoped_env,
)
from rechain.conformance.oracles.registry import AGENT_SDK_PY, REGISTRY, install_dir

# the module's oracle fixture starts once, on one worker
pytestmark = pytest.mark.xdist_group("oracle-agent-sdk-py")

SID = "0b4f6f1e-3c2a-4d5e-9f00-123456789abc"
UNAVAILABLE = PySdkOracle.available()


needs_oracle = needs_oracle_named("agent-sdk-py", UNAVAILABLE)


# --- no SDK needed --------------------------------------------------------------------


def test_registry_pins_the_python_sdk(tmp_path, monkeypatch) -> None:
    assert REGISTRY["agent-sdk-py"] is AGENT_SDK_PY
    assert (AGENT_SDK_PY.package, AGENT_SDK_PY.version) == ("claude-agent-sdk", "0.2.189")
    assert can_install(AGENT_SDK_PY)
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    assert install_dir(AGENT_SDK_PY) == tmp_path / "oracles" / "agent-sdk-py@0.2.189"
    assert "rechain oracle install agent-sdk-py" in str(PySdkOracle.available())
    with pytest.raises(OracleError, match="unavailable"):
        PySdkOracle().start()


def test_oracle_list_shows_every_pinned_oracle(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    assert main(["oracle", "list"]) == 0
    rows = {
        tuple(row.split()[:2]): row.split()[2]
        for row in capsys.readouterr().out.splitlines()[1:]
    }
    assert rows[("agent-sdk-py", "0.2.189")] == "no"
    assert rows[("agent-sdk-ts", "0.3.332")] == "no"
    assert rows[("claude-code", "2.1.332")] == "no"


def test_worker_helpers() -> None:
    assert project_dir_name("/tmp/rechain-py-x1/project") == "-tmp-rechain-py-x1-project"
    assert checked_session_id(SID) == SID
    for bad in ("../x", "a/b", "", ".", ".."):
        with pytest.raises(BadRequestError, match="unusable session_id"):
            checked_session_id(bad)
    with pytest.raises(BadRequestError, match="unusable env"):
        checked_env({"CLAUDE_CONFIG_DIR": "/elsewhere"})
    with scoped_env({"RECHAIN_TEST_SCOPED": "1"}):
        assert os.environ["RECHAIN_TEST_SCOPED"] == "1"
    assert "RECHAIN_TEST_SCOPED" not in os.environ


def test_bundled_claude_is_found_in_a_venv_layout(tmp_path) -> None:
    python = tmp_path / "venv" / "bin" / "python"
    assert bundled_claude(python) is None
    bundled = tmp_path / "venv/lib/python3.11/site-packages/claude_agent_sdk/_bundled/claude"
    bundled.parent.mkdir(parents=True)
    bundled.write_bytes(b"#!/bin/sh\n")
    assert bundled_claude(python) == bundled


STUB_SDK = '''
__version__ = "0.0.stub"

class Message:
    def __init__(self, **fields):
        self.__dict__.update(fields)

def get_session_messages(session_id, directory=None, limit=None, offset=0):
    import dataclasses, os, pathlib
    config = pathlib.Path(os.environ["CLAUDE_CONFIG_DIR"])
    data = next(config.glob(f"projects/*/{session_id}.jsonl")).read_bytes()
    if data == b"crash":
        os._exit(3)
    text = data.decode("utf-8")  # raises like the real SDK's read_text on bad bytes
    @dataclasses.dataclass
    class M:
        type: str
        uuid: str
        text: str
        flag: str | None
    return [M("user", "u1", text, os.environ.get("RECHAIN_STUB_FLAG"))]
'''


@pytest.fixture
def stub_worker(tmp_path):
    """The real worker script, run by this Python with a stub ``claude_agent_sdk``."""
    (tmp_path / "stub" / "claude_agent_sdk").mkdir(parents=True)
    (tmp_path / "stub" / "claude_agent_sdk" / "__init__.py").write_text(textwrap.dedent(STUB_SDK))
    env = {"PYTHONPATH": str(tmp_path / "stub"), "PATH": "/usr/bin:/bin",
           "HOME": str(tmp_path), "TMPDIR": str(tmp_path)}
    worker = JsonLinesProcess(
        "stub worker", [sys.executable, str(worker_script())], env, 30, cwd=tmp_path,
        error=OracleError,
    )
    yield worker
    worker.close()


def test_worker_protocol_with_a_stub_sdk(stub_worker) -> None:
    def call(data: bytes, **extra: object) -> dict:
        return stub_worker.request({"cmd": "session_messages", "session_id": SID,
                                    "transcript_b64": base64.b64encode(data).decode(),
                                    **extra}, timeout=30)

    assert stub_worker.ready["version"] == "0.0.stub"
    assert call(b"hello")["messages"] == [
        {"type": "user", "uuid": "u1", "text": "hello", "flag": None}]
    assert call(b"x", env={"RECHAIN_STUB_FLAG": "on"})["messages"][0]["flag"] == "on"
    assert call(b"x")["messages"][0]["flag"] is None  # env applied to one call only
    raised = call(b"bad \xff")
    assert raised["ok"] is False and raised["raised"] is True
    assert raised["error_type"] == "UnicodeDecodeError"
    refused = call(b"x", env={"HOME": "/root"})
    assert refused["ok"] is False and "raised" not in refused
    assert stub_worker.request({"cmd": "nope"}, timeout=30)["error"] == "unknown cmd 'nope'"
    with pytest.raises(OracleError, match="exited"):
        call(b"crash")
    assert not stub_worker.alive()


def test_worker_batch_with_a_stub_sdk(stub_worker) -> None:
    """One request, many cases: each case's env, the same id twice, per-case failures."""
    other = "0b4f6f1e-3c2a-4d5e-9f00-cba987654321"

    def case(data: bytes, sid: str = SID, **extra: object) -> dict:
        return {"session_id": sid, "transcript_b64": base64.b64encode(data).decode(), **extra}

    reply = stub_worker.request({"cmd": "session_messages_many", "cases": [
        case(b"one"), case(b"two"), case(b"three", other, env={"RECHAIN_STUB_FLAG": "on"}),
        case(b"bad \xff", other), case(b"x", "../escape"), case(b"x", env={"HOME": "/"}),
        case(b"four", limit="many"),
    ]}, timeout=30)
    replies = reply["replies"]
    assert [r["messages"][0]["text"] for r in replies[:3]] == ["one", "two", "three"]
    assert [r["messages"][0]["flag"] for r in replies[:3]] == [None, None, "on"]
    assert replies[3]["raised"] is True and replies[3]["error_type"] == "UnicodeDecodeError"
    assert [r["ok"] for r in replies[4:]] == [False, False, False]
    assert not any("raised" in r for r in replies[4:])
    assert "unusable session_id" in replies[4]["error"]
    bad = stub_worker.request({"cmd": "session_messages_many", "cases": "no"}, timeout=30)
    assert bad["ok"] is False and "cases must be a list" in bad["error"]


# --- with the installed SDK -----------------------------------------------------------


@pytest.fixture(scope="module")
def oracle(tmp_path_factory):
    """One worker for the module, started with a fake HOME and a hostile CLAUDE_CONFIG_DIR."""
    if UNAVAILABLE is not None:
        pytest.skip(f"agent-sdk-py: {UNAVAILABLE}")
    decoy = tmp_path_factory.mktemp("decoy") / "claude-config"
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("RECHAIN_CACHE", str(cache_dir()))
        patch.setenv("HOME", str(tmp_path_factory.mktemp("home")))
        patch.setenv("CLAUDE_CONFIG_DIR", str(decoy))
        with PySdkOracle() as started:
            yield started
    assert not decoy.exists()


@needs_oracle
def test_version(oracle) -> None:
    assert oracle.version() == "0.2.189"
    assert oracle.import_ms is not None


@needs_oracle
def test_two_line_round_trip(oracle) -> None:
    data = user("u1", None, sessionId="entry-session") + assistant("a1", "u1")
    assert oracle.session_messages(data, session_id=SID) == [
        {"type": "user", "uuid": "u1", "session_id": "entry-session",
         "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None,
         "parent_agent_id": None},
        # no sessionId in the entry: Python puts "" (TS leaves the key out)
        {"type": "assistant", "uuid": "a1", "session_id": "",
         "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}]},
         "parent_tool_use_id": None, "parent_agent_id": None},
    ]


@needs_oracle
def test_limit_offset_and_session_id(oracle) -> None:
    data = user("m0", None)
    for i in range(1, 6):
        data += (assistant if i % 2 else user)(f"m{i}", f"m{i - 1}")
    every = [f"m{i}" for i in range(6)]
    assert uuids(oracle.session_messages(data, session_id=SID, limit=2, offset=1)) == every[1:3]
    assert uuids(oracle.session_messages(data, session_id=SID, offset=4)) == every[4:]
    assert oracle.session_messages(data, session_id="not-a-uuid") == []
    with pytest.raises(OracleError, match="unusable session_id"):
        oracle.session_messages(data, session_id="../escape")


@needs_oracle
def test_invalid_utf8_raises_unicode_decode_error(oracle) -> None:
    """k3: the Python reader raises where TS substitutes U+FFFD; the worker lives on."""
    pid = oracle.pid
    data = user("u1", None) + assistant("a1", "u1", "BAD").replace(b"BAD", b"bad \xff")
    with pytest.raises(OracleReaderError) as caught:
        oracle.session_messages(data, session_id=SID)
    assert caught.value.error_type == "UnicodeDecodeError"
    assert "the reader raised UnicodeDecodeError" in str(caught.value)
    assert oracle.pid == pid
    assert uuids(oracle.session_messages(user("u1", None), session_id=SID)) == ["u1"]


@needs_oracle
def test_nan_is_accepted(oracle) -> None:
    """k6: json.loads takes NaN, so the line is kept (TS and the CLI drop it)."""
    data = user("u1", None) + assistant("a1", "u1").replace(b'"type": "assistant"',
                                                            b'"type": "assistant", "n": NaN')
    messages = oracle.session_messages(data, session_id=SID)
    assert uuids(messages) == ["u1", "a1"]


@needs_oracle
def test_nan_inside_message_survives_the_trip(oracle) -> None:
    data = user("u1", None).replace(b'"content": "hi"', b'"content": "hi", "score": NaN')
    [message] = oracle.session_messages(data, session_id=SID)
    assert math.isnan(message["message"]["score"])


@needs_oracle
def test_no_preserved_segment_relink(oracle) -> None:
    """f: Python ignores preservedSegment, so the preserved u1 a1 are not on the chain."""
    boundary = line(type="system", subtype="compact_boundary", uuid="cb", parentUuid=None,
                    content="Conversation compacted",
                    compactMetadata={"trigger": "manual", "preTokens": 1,
                                     "preservedSegment": {"headUuid": "u1", "anchorUuid": "cs",
                                                          "tailUuid": "a1"}})
    data = (user("u1", None) + assistant("a1", "u1") + boundary
            + user("cs", "cb", "summary", isCompactSummary=True)
            + user("u2", "cs") + assistant("a2", "u2"))
    assert uuids(oracle.session_messages(data, session_id=SID)) == ["cs", "u2", "a2"]


@needs_oracle
def test_calls_share_one_worker(oracle) -> None:
    pid = oracle.pid
    for _ in range(20):
        oracle.session_messages(user("u1", None), session_id=SID)
    assert oracle.pid == pid


@needs_oracle
def test_a_killed_worker_is_replaced() -> None:
    with PySdkOracle() as fresh:
        first = fresh.pid
        assert first is not None
        subprocess.run(["kill", "-9", str(first)], check=True)
        # the death is seen either before the next request (silent restart) or during it
        try:
            fresh.session_messages(user("u1", None), session_id=SID)
        except OracleError as error:
            assert re.search(r"exited|could not send", str(error))
        assert uuids(fresh.session_messages(user("u1", None), session_id=SID)) == ["u1"]
        assert fresh.pid != first


def test_worker_script_is_standalone() -> None:
    """The worker runs in a venv without rechain: it must import nothing from it."""
    text = Path(worker_script()).read_text(encoding="utf-8")
    assert "rechain" not in "".join(
        row for row in text.splitlines() if row.startswith(("import", "from")))


@needs_oracle
def test_a_batch_answers_like_single_calls(oracle) -> None:
    other = "0b4f6f1e-3c2a-4d5e-9f00-cba987654321"
    data = user("m0", None)
    for i in range(1, 6):
        data += (assistant if i % 2 else user)(f"m{i}", f"m{i - 1}")
    calls = [
        MessagesCall(data, SID), MessagesCall(user("u1", None), SID),  # the same id twice
        MessagesCall(data, other, limit=2, offset=1),
        MessagesCall(user("u1", None) + b"bad \xff\n", other),  # the reader raises
        MessagesCall(data, "../escape"), MessagesCall(data, "not-a-uuid"),
    ]
    batched = oracle.session_messages_many(calls)
    single = []
    for call in calls:
        try:
            single.append(oracle.session_messages(call.data, session_id=call.session_id,
                                                  limit=call.limit, offset=call.offset))
        except OracleError as error:
            single.append(error)
    assert [uuids(a) if isinstance(a, list) else type(a).__name__ for a in batched] == [
        [f"m{i}" for i in range(6)], ["u1"], ["m1", "m2"], "OracleReaderError", "OracleError", []]
    for got, alone in zip(batched, single, strict=True):
        assert (type(got), str(got)) == (type(alone), str(alone)) if isinstance(
            alone, OracleError) else got == alone
