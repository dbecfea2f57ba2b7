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


# corpus cases whose every line the readers read as no row: the empty file, and one line
# that a lone CR makes two JSON values (invalid JSON to the readers)
ROWLESS = {"empty-file", "diff-py-vs-ts-lone-cr-8015818f"}


def test_every_corpus_transcript_passes_but_the_one_the_reader_throws_on() -> None:
    failing = {case_id for case_id, case in CASES.items() if lint(case.input_bytes())}
    assert failing == {THROWS} | ROWLESS
    [problem] = lint(CASES[THROWS].input_bytes())
    assert (problem.line, problem.kind) == (None, "reader-error")
    for case_id in ROWLESS:
        assert [(p.line, p.kind) for p in lint(CASES[case_id].input_bytes())] == [
            (None, "no-rows")]


@pytest.mark.parametrize("data", [
    b"hello\nworld\n", b"", b"\n\n", b'{"a": 1}\n[1]\n"type"\n', b'{"type": 1}\n',
    b'{"type": "user", "x": NaN}\n', bytes(range(256)) * 40,
], ids=["prose", "empty", "blank", "objects-without-type", "type-not-a-string", "nan",
        "binary"])
def test_a_file_with_no_transcript_row_fails_even_without_strict(
    data: bytes, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert [(p.line, p.kind) for p in lint(data)] == [(None, "no-rows")]
    path = tmp_path / "notes.jsonl"
    path.write_bytes(data)
    assert main(["lint-transcript", str(path)]) == 1
    out = capsys.readouterr()
    assert out.out.splitlines() == [f"{path}: no-rows: {lint_module.NO_ROWS}"]
    assert "0 of 1 transcripts pass" in out.err


def test_one_row_among_damage_keeps_the_rule_for_files_with_rows() -> None:
    row = CASES[CLEAN].input_bytes().split(b"\n")[0]
    assert lint(b"hello\n" + row + b"\n\xff\n") == []  # damage diagnosed, so accounted
    assert lint(b'{"type":"summary","summary":"s","leafUuid":"x"}\n') == []


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
