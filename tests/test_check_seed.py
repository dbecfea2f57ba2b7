"""``rechain check --profile seed``: the 2.1.88 profile judged in the check loop by the two views
2.1.88 is recorded in per entry point (``resumed-chain`` and ``api``), against the corpus's
recorded answers or the real 2.1.88 (``--against claude-code@2.1.88``)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.claude_code_2_1_88.answers import answer
from rechain.conformance.compare import judge
from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
from rechain.conformance.oracles.registry import CLAUDE_CODE_2_1_88
from rechain.conformance.protocol import Answered, Raised

CASES = Path(__file__).resolve().parent.parent / "corpus" / "cases"
CASE = "assistant-without-message-id"
IDS = {CASE, f"{CASE}[continue]", f"{CASE}[resume-file]"}
UNAVAILABLE = ClaudeCliOracle.available(CLAUDE_CODE_2_1_88)


def case_lines(report: Path) -> list[dict[str, object]]:
    lines = [json.loads(line) for line in report.read_text("utf-8").splitlines()]
    return [line for line in lines if line["kind"] == "case"]


def test_each_entry_point_is_one_case_judged_by_both_recorded_views(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    assert main(["check", "--profile", "seed", "--case", CASE, "--no-progress",
                 "--report", str(report)]) == 0
    cases = case_lines(report)
    assert {c["id"] for c in cases} == IDS
    assert {c["status"] for c in cases} == {"pass"}
    assert all(c["expected"]["count"] > 0 for c in cases)  # something was compared


def test_a_recorded_chain_that_differs_fails_that_entry_point_only(tmp_path: Path) -> None:
    corpus = tmp_path / "cases"
    shutil.copytree(CASES / CASE, corpus / CASE)
    path = corpus / CASE / "case.json"
    document = json.loads(path.read_text("utf-8"))
    changed = next(e for e in document["expectations"] if e["profile"] == "claude-code@2.1.88"
                   and e["view"] == "resumed-chain" and e["options"]["entry"] == "continue")
    changed["messages"] = changed["messages"][:-1]
    path.write_text(json.dumps(document), "utf-8")
    report = tmp_path / "r.jsonl"
    assert main(["check", "--profile", "seed", "--corpus", str(corpus), "--no-progress",
                 "--report", str(report)]) == 1
    statuses = {c["id"]: c["status"] for c in case_lines(report)}
    assert statuses == {CASE: "pass", f"{CASE}[continue]": "fail",
                        f"{CASE}[resume-file]": "pass"}


def test_one_answer_holds_both_views_and_says_which_failed() -> None:
    rows = [{"type": "user", "uuid": "u1", "content": "hi"}]
    sent = [{"role": "user", "content": "hi"}]
    both = answer(rows, sent, "")
    assert isinstance(both, Answered)
    assert [m["view"] for m in both.messages] == ["resumed-chain", "api"]
    # a string is one text block, and the client's cache_control is not content
    blocks = [{"role": "user", "content": [{"type": "text", "text": "hi",
                                            "cache_control": {"type": "ephemeral"}}]}]
    assert judge(answer(rows, blocks, ""), both).status == "pass"
    request_failed = answer(rows, None, "boom")
    assert isinstance(request_failed, Answered)
    assert request_failed.messages[-1] == {"view": "api", "failed": True}
    assert judge(request_failed, both).status == "fail"
    assert isinstance(answer(None, None, "No conversation found"), Raised)


@pytest.mark.oracle
@pytest.mark.skipif(UNAVAILABLE is not None, reason=f"claude-code@2.1.88: {UNAVAILABLE}")
def test_the_profile_agrees_with_the_real_2_1_88_in_the_same_loop(tmp_path: Path) -> None:
    report = tmp_path / "r.jsonl"
    assert main(["check", "--profile", "seed", "--against", "claude-code@2.1.88", "--case", CASE,
                 "--examples", "0", "--no-progress", "--report", str(report)]) == 0
    cases = case_lines(report)
    assert {c["id"] for c in cases} == IDS
    assert {(c["against"], c["status"]) for c in cases} == {("claude-code@2.1.88", "pass")}
    assert all(c["outcome"]["count"] > 0 for c in cases)
