"""``rechain drift``: changes between two releases, found and bisected to their release."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from rechain.conformance import drift
from rechain.conformance.oracles.registry import get
from rechain.conformance.oracles.ts_sdk import TsSdkOracle

RELEASES = [f"2.1.{n}" for n in range(89, 113)]


@pytest.mark.parametrize("first", RELEASES)
def test_bisection_finds_the_first_changed_release(first: str) -> None:
    asked: list[str] = []

    def changed(version: str) -> bool:
        asked.append(version)
        return RELEASES.index(version) >= RELEASES.index(first)

    found, probed = drift.first_changed(RELEASES, changed)
    assert found == first
    assert probed == asked
    assert len(asked) <= 5  # log2(24) rounded up


def test_a_single_candidate_is_the_answer_without_probing() -> None:
    assert drift.first_changed(["2.1.101"], lambda v: pytest.fail("probed")) == ("2.1.101", [])
    assert drift.first_changed([], lambda v: True) == (None, [])


def test_changes_are_corpus_failures_and_shrunk_findings_not_their_originals() -> None:
    lines = [
        {"kind": "case", "id": "leaf-x", "group": "leaf", "status": "fail"},
        {"kind": "case", "id": "leaf-y", "group": "leaf", "status": "pass"},
        {"kind": "case", "id": "gen-00003", "group": "generated", "status": "fail"},
        {"kind": "finding", "case_id": "diff-1", "path": "/cases/diff-1"},
    ]
    assert [source for _, source in drift.changed_inputs(lines)] == ["leaf-x", "/cases/diff-1"]


def test_unshrunk_generated_failures_are_kept_when_nothing_was_shrunk() -> None:
    lines = [{"kind": "case", "id": "gen-00003", "group": "generated", "status": "crash"}]
    assert [source for _, source in drift.changed_inputs(lines)] == ["gen-00003"]


def test_sides_put_the_older_answer_first() -> None:
    line = {"difference": {"path": "/messages/1/uuid", "left": "new", "right": "old"}}
    assert drift.sides(line) == ("/messages/1/uuid: old", "/messages/1/uuid: new")
    missing = {"difference": {"path": "/messages/2", "left": {"$missing": True}, "right": "x"}}
    assert drift.sides(missing)[1] == "/messages/2: (nothing)"


def test_long_texts_are_shown_where_they_part() -> None:
    old = "<system-reminder>\nThe record is in the next call. The software runs"
    new = "<system-reminder>\nThe record is in the next call, as blocks. The software runs"
    before, after = drift.sides({"difference": {"path": "/m/1", "left": new, "right": old}})
    assert before.startswith("/m/1: …") and ". The software" in before
    assert ", as blocks" in after and ", as blocks" not in before


def test_the_table_escapes_pipes_and_names_unbisected_changes() -> None:
    change = drift.Change("c|1", "resume-id", "a|b", "c", None, "c|1")
    text = drift.table([change], "claude-code", "2.1.88", "2.1.101", "1 change.")
    assert "| c\\|1 | resume-id | a\\|b | c | ? |" in text
    assert "| case |" not in drift.table([], "x", "1", "2", "none.")


def test_the_check_compares_the_newer_release_against_the_older() -> None:
    """Two JS bundles of the 2.1.88 line are compared by their forked resumes."""
    argv = drift.check_argv("claude-code", "2.1.88", "2.1.101", examples=10, seed=3, jobs=2,
                            report=Path("/r.jsonl"), cases=Path("/c"))
    assert argv[argv.index("--impl") + 1] == "claude-code@2.1.101"
    assert argv[argv.index("--against") + 1] == "claude-code@2.1.88"
    assert argv[argv.index("--profile") + 1] == "claude-code@2.1.88"
    native = drift.check_argv("claude-code", "2.1.285", "2.1.332", examples=1, seed=3, jobs=1,
                              report=Path("/r.jsonl"), cases=Path("/c"))
    assert native[native.index("--profile") + 1] == "cli"
    assert drift.view_for("claude-code@2.1.88") == "resumed-chain"
    assert drift.view_for("cli") == "api" and drift.view_for("sdk") == "session-messages"


NEXT_TS = get("agent-sdk-ts@0.3.333")


@pytest.mark.oracle
@pytest.mark.skipif(TsSdkOracle.available() is not None
                    or TsSdkOracle.available(NEXT_TS) is not None,
                    reason="needs agent-sdk-ts and agent-sdk-ts@0.3.333 installed")
def test_drift_between_two_installed_ts_releases_runs_and_compares(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rechain", "drift", "agent-sdk-ts", "--to", "0.3.333",
         "--examples", "6", "--seed", "5", "--no-bisect", "--out", str(tmp_path)],
        capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr
    table = (tmp_path / "changes.md").read_text()
    assert table.startswith("# agent-sdk-ts 0.3.332 → 0.3.333")
    compared = int(table.split("\n")[2].split(" ")[0])
    assert compared >= 6 + 100  # the generated ones and the corpus's option sets
