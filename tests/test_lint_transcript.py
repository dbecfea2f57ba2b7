"""``rechain lint-transcript`` and the pre-commit hook that runs it on staged transcripts."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from rechain.cache import cache_dir
from rechain.cli import main
from rechain.corpus import load_cases
from rechain.reference import Rebuild
from rechain.reference import lint as lint_module
from rechain.reference.lint import DAMAGE, lint
from rechain.schema_files import load_schema

REPO = Path(__file__).resolve().parents[1]
CASES = {case.id: case for case in load_cases()}
THROWS = "compaction-preserved-messages-not-a-list"  # the TS SDK throws on it (recorded)
CLEAN = "assistant-without-message-id"


def test_every_corpus_transcript_passes_but_the_one_the_reader_throws_on() -> None:
    failing = {case_id for case_id, case in CASES.items() if lint(case.input_bytes())}
    assert failing == {THROWS}
    [problem] = lint(CASES[THROWS].input_bytes())
    assert (problem.line, problem.kind) == (None, "reader-error")


def test_strict_refuses_torn_lines_and_damage_kinds_are_real_kinds() -> None:
    schema = load_schema("rebuild")["$defs"]
    assert set(schema["lineKind"]["enum"]) | set(schema["noteKind"]["enum"]) >= DAMAGE
    torn = CASES[CLEAN].input_bytes() + b'{"type":"user","uuid":\n\xff\xfe\n'
    assert lint(torn) == []  # diagnosed, so accounted for
    kinds = {(p.line, p.kind) for p in lint(torn, strict=True)}
    assert {kind for _, kind in kinds} >= {"invalid-json"}
    assert all(line is not None and line > 1 for line, _ in kinds)


def test_a_line_nothing_accounts_for_is_reported(monkeypatch) -> None:
    """The check can fail: a rebuild that lost a line's message and its diagnostic."""
    data = CASES[CLEAN].input_bytes()
    real = lint_module.rebuild(data, "sdk")
    dropped = real.messages[0]["line"]
    lossy = Rebuild(real.profile, real.session_id, real.leaf, real.messages[1:],
                    real.diagnostics, None)
    monkeypatch.setattr(lint_module, "rebuild", lambda *_args, **_kw: lossy)
    assert [(p.line, p.kind) for p in lint(data)] == [(dropped, "unaccounted")]


def test_the_command_reports_each_problem_and_exits_by_the_rules(tmp_path, capsys) -> None:
    good, bad = tmp_path / "good.jsonl", tmp_path / "bad.jsonl"
    good.write_bytes(CASES[CLEAN].input_bytes())
    bad.write_bytes(CASES[THROWS].input_bytes())
    assert main(["lint-transcript", str(good)]) == 0
    assert main(["lint-transcript", str(good), str(bad)]) == 1
    captured = capsys.readouterr()
    assert f"{bad}: reader-error:" in captured.out and "1 of 2 transcripts pass" in captured.err
    assert main(["lint-transcript", str(tmp_path / "missing.jsonl")]) == 2
    assert main(["lint-transcript", "--profile", "nope", str(good)]) == 2


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("pre_commit") is None or shutil.which("git") is None
                    or not (REPO / ".git").exists(),
                    reason="needs pre-commit (the test extra), git and a git checkout")
def test_pre_commit_try_repo_runs_the_hook_on_staged_transcripts(tmp_path) -> None:
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "good.jsonl").write_bytes(CASES[CLEAN].input_bytes())
    (scratch / "bad.jsonl").write_bytes(CASES[THROWS].input_bytes())
    (scratch / "notes.txt").write_text("not a transcript\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=scratch, check=True)
    subprocess.run([*git, "add", "."], cwd=scratch, check=True)
    # built hook environments are kept between runs (pip installs rechain into each)
    env = {**os.environ, "PRE_COMMIT_HOME": str(cache_dir() / "pre-commit")}

    def try_repo(*files: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO),
                   "rechain-lint-transcript", "--files", *files]
        return subprocess.run(command, cwd=scratch, env=env, capture_output=True, text=True,
                              timeout=1800, check=False)

    failed = try_repo("good.jsonl", "bad.jsonl", "notes.txt")
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "bad.jsonl: reader-error:" in failed.stdout
    assert "1 of 2 transcripts pass" in failed.stdout  # notes.txt is not a .jsonl: not given
    passed = try_repo("good.jsonl")
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
