"""Claude Code 2.1.88 as an oracle: registry entry, and one real resume per entry point.

The resume tests skip until `rechain oracle install claude-code@2.1.88`.
"""

from __future__ import annotations

import json

import pytest

from rechain.conformance.claude_code_2_1_88.compare import (
    expected,
    first_difference,
    observed,
    state_difference,
)
from rechain.conformance.claude_code_2_1_88.forked import known_uuids
from rechain.conformance.oracles.claude_cli import PROMPT, ClaudeCliOracle
from rechain.conformance.oracles.registry import CLAUDE_CODE, CLAUDE_CODE_2_1_88, get
from rechain.reference import Options, rebuild
from rechain.reference.profiles.claude_code_2_1_88.views import RESTORED_BY_ENTRY

UNAVAILABLE = ClaudeCliOracle.available(CLAUDE_CODE_2_1_88)
SID = "5eed0000-2188-4000-8000-00000000bbbb"


def test_registry_knows_both_releases() -> None:
    assert get("claude-code") is CLAUDE_CODE
    assert get("claude-code@2.1.332") is CLAUDE_CODE
    assert get("claude-code@2.1.88") is CLAUDE_CODE_2_1_88
    assert CLAUDE_CODE_2_1_88.installer == "npm-pack"


def test_unavailable_names_the_install_command(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    assert "rechain oracle install claude-code@2.1.88" in str(
        ClaudeCliOracle.available(CLAUDE_CODE_2_1_88))
    with pytest.raises(ValueError, match="entry"):
        ClaudeCliOracle(entry="picker")


def _line(kind: str, n: int, parent: int | None, second: int) -> dict[str, object]:
    uuid = f"5eed{n:04d}-0000-4000-8000-00000000bbbb"
    body: object = "hello" if kind == "user" else [{"type": "text", "text": "hi"}]
    message = {"role": kind, "content": body}
    if kind == "assistant":
        message["id"] = f"msg_{n}"
    return {"parentUuid": f"5eed{parent:04d}-0000-4000-8000-00000000bbbb" if parent else None,
            "isSidechain": False, "type": kind, "message": message, "uuid": uuid,
            "timestamp": f"2026-01-01T00:00:{second:02d}.000Z", "sessionId": SID}


# timestamps decrease: the three entry points disagree (resume-id takes the first row)
DATA = b"".join(json.dumps(r, separators=(",", ":")).encode() + b"\n" for r in (
    _line("user", 1, None, 30), _line("assistant", 2, 1, 20),
    _line("user", 3, 2, 10), _line("assistant", 4, 3, 5)))


@pytest.mark.oracle
@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code@2.1.88: {UNAVAILABLE}")
@pytest.mark.parametrize("entry", ["continue", "resume-id", "resume-file"])
def test_2_1_88_agrees_with_the_seed_profile(entry: str) -> None:
    with ClaudeCliOracle(spec=CLAUDE_CODE_2_1_88, entry=entry, fork=True) as oracle:
        result = oracle.resume(DATA, session_id=SID)
        assert oracle.version().startswith("2.1.88 ")
    assert result.ok, result.stderr
    mine = expected(rebuild(DATA, "seed", Options(entry=entry),
                            session_id=SID).view("chain")["messages"])
    theirs = observed(result.forked, known_uuids(DATA), PROMPT)
    assert first_difference(mine, theirs) is None


def _state_rows() -> bytes:
    """Every session-keyed metadata row, a summary, a snapshot, a TodoWrite and a skill."""
    todo = {"type": "tool_use", "id": "toolu_t", "name": "TodoWrite",
            "input": {"todos": [{"content": "docs", "status": "pending", "activeForm": "Docs"}]}}
    rows: list[dict[str, object]] = [
        _line("user", 1, None, 1), {**_line("assistant", 2, 1, 2),
                                    "message": {"id": "m2", "role": "assistant",
                                                "content": [todo]}},
        {**_line("user", 3, 2, 3), "message": {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_t", "content": "ok"}]}},
        _line("assistant", 4, 3, 4),
        {"type": "custom-title", "customTitle": "T", "sessionId": SID},
        {"type": "tag", "tag": "g", "sessionId": SID},
        {"type": "agent-name", "agentName": "N", "sessionId": SID},
        {"type": "agent-color", "agentColor": "blue", "sessionId": SID},
        {"type": "agent-setting", "agentSetting": "S", "sessionId": SID},
        {"type": "mode", "mode": "coordinator", "sessionId": SID},
        {"type": "worktree-state", "worktreeSession": None, "sessionId": SID},
        {"type": "pr-link", "prNumber": 3, "prUrl": "https://example.invalid/3",
         "prRepository": "a/b", "sessionId": SID},
        {"type": "summary", "summary": "S", "leafUuid": "5eed0004-0000-4000-8000-00000000bbbb"}]
    return b"".join(json.dumps(r).encode() + b"\n" for r in rows)


@pytest.mark.oracle
@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code@2.1.88: {UNAVAILABLE}")
@pytest.mark.parametrize("entry", ["continue", "resume-id", "resume-file"])
def test_2_1_88_writes_back_what_the_state_view_restores(entry: str) -> None:

    data = _state_rows()
    with ClaudeCliOracle(spec=CLAUDE_CODE_2_1_88, entry=entry) as oracle:
        result = oracle.resume(data, session_id=SID)
    assert result.ok, result.stderr
    state = rebuild(data, "seed", Options(entry=entry), session_id=SID).view("state")["state"]
    assert state_difference(state, result.appended) is None
    # without a fork the worktree is adopted and written back too (null included)
    written = any(r.get("type") == "worktree-state" for r in result.appended)
    assert written == ("worktreeSession" in RESTORED_BY_ENTRY[entry])
