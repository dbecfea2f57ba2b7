"""What the CLI driver needs for releases before 2.1.39: the real request among "Warmup"
calls, warm-up sidechain files apart from a fork, and a hang as an answer of its own."""

from __future__ import annotations

import json
from pathlib import Path

from rechain.conformance.claude_code_2_1_88.answers import HANG, from_resume
from rechain.conformance.claude_code_2_1_88.record import HUNG, hung
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.claude_cli import (
    HANG_MARK,
    PROMPT,
    ClaudeCliOracle,
    _new_sessions,
    hangs_on_cycles,
)
from rechain.conformance.oracles.fake_api import Recorded
from rechain.conformance.protocol import Crashed, Raised, TimedOut


def _call(*messages: dict[str, object]) -> Recorded:
    return Recorded("POST", "/v1/messages", "", {}, {"messages": list(messages)})


WARMUP = {"role": "user", "content": [{"type": "text", "text": "Warmup"}]}
REAL = [{"role": "user", "content": "u1"}, {"role": "assistant", "content": "a1"},
        {"role": "user", "content": [{"type": "text", "text": PROMPT}]}]


def test_the_first_request_after_the_warmups_is_taken() -> None:
    oracle = ClaudeCliOracle()
    result = oracle._result(b"", b"", [_call(WARMUP), _call(WARMUP), _call(*REAL)], 0, "", 0.0)
    assert result.messages == REAL[:-1] and result.prompt_turn == REAL[-1]
    assert result.requests == 3 and result.ok


def test_warmups_alone_are_no_request_at_all() -> None:
    """2.0.76 can exit 0 after its warm-up calls without asking anything: not an answer."""
    result = ClaudeCliOracle()._result(b"", b"", [_call(WARMUP), _call(WARMUP)], 0, "", 0.0)
    assert result.first_request is None and not result.ok


def test_without_warmups_the_first_request_is_taken() -> None:
    """2.1.332 resuming an interrupted turn asks once before the prompt's request: that first
    request is the one its views record."""
    first = [{"role": "user", "content": [{"type": "text", "text": "redo"}]}]
    result = ClaudeCliOracle()._result(b"", b"", [_call(*first), _call(*REAL)], 0, "", 0.0)
    assert result.prompt_turn == first[-1]


def test_warmup_sidechain_files_are_not_the_fork(tmp_path: Path) -> None:
    transcript = tmp_path / "s.jsonl"
    transcript.write_text("{}\n")
    (tmp_path / "agent-1234.jsonl").write_text(json.dumps({"type": "user", "uuid": "w"}) + "\n")
    (tmp_path / "fork.jsonl").write_text(json.dumps({"type": "user", "uuid": "f"}) + "\n")
    assert [row["uuid"] for row in _new_sessions(tmp_path, transcript)] == ["f"]


def test_a_run_killed_at_the_deadline_is_the_hang_answer_only_before_2_1_39() -> None:
    killed = OracleError(f"claude-code: {HANG_MARK} 30 s")
    assert hangs_on_cycles("2.0.76") and hangs_on_cycles("1.0.98")
    assert not hangs_on_cycles("2.1.39") and not hangs_on_cycles("2.1.332")
    hang = from_resume(b"", killed, hangs=True)
    assert isinstance(hang, Raised) and hang.type == HANG
    assert isinstance(from_resume(b"", killed), TimedOut)  # elsewhere only slow
    assert isinstance(from_resume(b"", OracleError("claude-code: exec failed")), Crashed)
    assert hung() == {"resumed-chain": ([], HUNG), "api": ([], HUNG)}
