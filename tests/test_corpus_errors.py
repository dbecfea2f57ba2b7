"""Error outcomes in recorded expectations: stored, linted, recorded and read back.

A real reader that fails on an input (2.1.88's "No conversation found", a
TypeError thrown inside the SDK) is an outcome to check like any other.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path
from typing import Any

from rechain.corpus import PROFILE, lint_cases
from rechain.corpus.cases_io import Expectation, default_root, load_case
from rechain.corpus.materialise import UNRECORDED
from rechain.corpus.record import ReaderFailedError, record_case

ROOT = Path(str(default_root()))
FAILED = {"profile": "claude-code@2.1.88", "view": "resumed-chain",
          "options": {"include_system_messages": False, "limit": None, "offset": 0,
                      "entry": "resume-id"},
          "messages": [], "error": {"message": "No conversation found", "exit_code": 1},
          "provenance": {"oracle": "claude-code", "version": "2.1.88 (Claude Code)",
                         "recorded_by": "test", "recorded_at": "2026-11-29"}}


def copy_with(tmp_path: Path, expectation: dict[str, Any]) -> Path:
    target = tmp_path / "cases" / "linear-two-turns"
    shutil.copytree(ROOT / "linear-two-turns", target)
    document = json.loads((target / "case.json").read_text("utf-8"))
    document["expectations"].append(expectation)
    (target / "case.json").write_text(json.dumps(document, indent=2), "utf-8")
    return target


def test_an_error_outcome_round_trips() -> None:
    expectation = Expectation.from_json(FAILED)
    assert expectation.failed and expectation.error == FAILED["error"]
    assert expectation.to_json() == FAILED
    ok = Expectation.from_json({k: v for k, v in FAILED.items() if k != "error"})
    assert not ok.failed and "error" not in ok.to_json()


def test_lint_accepts_an_error_with_no_messages(tmp_path: Path) -> None:
    copy_with(tmp_path, FAILED)
    assert lint_cases(tmp_path / "cases") == []


def test_lint_rejects_an_error_with_messages_or_without_a_message(tmp_path: Path) -> None:
    copy_with(tmp_path, {**FAILED, "messages": [{"type": "user", "uuid": "u1"}]})
    problems = [str(p) for p in lint_cases(tmp_path / "cases")]
    assert len(problems) == 1 and "messages" in problems[0]
    shutil.rmtree(tmp_path / "cases")
    copy_with(tmp_path, {**FAILED, "error": {"exit_code": 1}})
    problems = [str(p) for p in lint_cases(tmp_path / "cases")]
    assert len(problems) == 1 and "message" in problems[0]


def test_record_case_stores_a_reader_failure_as_an_error_outcome() -> None:
    case = load_case(ROOT / "linear-two-turns")
    bare = replace(case, expectations=(), tags=(*case.tags, UNRECORDED))

    def failing(data: bytes, session_id: str, options: Any, env: Any) -> list[Any]:
        raise ReaderFailedError("TypeError: x is not iterable")

    recorded = record_case(bare, b"x", failing, profile=PROFILE, oracle="fake",
                           version="1", today="2026-01-02")
    assert recorded.expectations and all(
        e.messages == () and e.error == {"message": "TypeError: x is not iterable"}
        for e in recorded.expectations)
    again = record_case(recorded, b"x", failing, profile=PROFILE, oracle="fake",
                        version="1", today="2030-01-01")
    assert again == recorded  # the same failure keeps its provenance

    def answering(data: bytes, session_id: str, options: Any, env: Any) -> list[Any]:
        return [{"type": "user", "uuid": "u1"}]

    fixed = record_case(recorded, b"x", answering, profile=PROFILE, oracle="fake",
                        version="1", today="2030-01-01")
    assert all(not e.failed and e.provenance["recorded_at"] == "2030-01-01"
               for e in fixed.expectations)


def test_the_2_1_88_recorder_replaces_only_its_own_expectations() -> None:
    from rechain.conformance.claude_code_2_1_88.record import API_VIEW, VIEW, merge

    other = {**FAILED, "profile": "agent-sdk@0.3.332", "view": "session-messages"}
    document = {"expectations": [other, FAILED]}
    error = FAILED["error"]
    same = merge(document, "resume-id", {VIEW: ([], error), API_VIEW: ([], error)},
                 "2.1.88 (Claude Code)", "2030-01-01")
    mine = [e for e in same["expectations"] if e["profile"] == "claude-code@2.1.88"]
    assert same["expectations"][0] == other
    assert [e["view"] for e in mine] == [VIEW, API_VIEW]
    assert mine[0]["provenance"]["recorded_at"] == "2026-11-29"  # unchanged: kept
    assert mine[1]["provenance"]["recorded_at"] == "2030-01-01"  # new
    answered = merge(same, "resume-id", {VIEW: ([{"type": "user", "uuid": "u"}], None)},
                     "2.1.88 (Claude Code)", "2030-01-01")
    chain = next(e for e in answered["expectations"] if e["view"] == VIEW
                 and e["profile"] == "claude-code@2.1.88")
    assert "error" not in chain and chain["messages"] == [{"type": "user", "uuid": "u"}]
