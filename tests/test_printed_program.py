"""A printed command starts with words that run this rechain, however it was started.

The real console script (and ``python -m rechain``) runs in a subprocess with a ``PATH``
that lacks rechain's venv, as for a user who never activated it; the command it prints
is then run as printed by a shell, from another directory, with nothing but a bare
``PATH`` and the cache. With this installation on the ``PATH`` the words are a bare
``rechain``; with another ``rechain`` ahead of it, they name this one.
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from printed import BACKQUOTED, console_script, path_without_rechain

from rechain.conformance import report

READERS = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    def right(data, session_id, options):
        result = rebuild(data, "sdk", Options(**options))
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]

    def drops_last(data, session_id, options):
        messages = right(data, session_id, options)
        return messages[:-1] if len(messages) >= 3 else messages
''')
SCRIPT = console_script()
needs_script = pytest.mark.skipif(not SCRIPT.is_file(),
                                  reason=f"no rechain console script at {SCRIPT}")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The directory a user runs rechain in, with a reader module in it."""
    where = tmp_path / "project"
    where.mkdir()
    (where / "readers.py").write_text(READERS)
    return where


def _env(tmp_path: Path, path: str) -> dict[str, str]:
    """Nothing of the test's environment but ``PATH`` (given) and a throwaway cache."""
    return {"PATH": path, "RECHAIN_CACHE": str(tmp_path / "cache"),
            "HOME": str(tmp_path / "home")}


def started(argv: list[str], cwd: Path, tmp_path: Path,
            path: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=cwd, env=_env(tmp_path, path), capture_output=True,
                          text=True, check=False, timeout=600)


def as_printed(line: str, tmp_path: Path, path: str) -> subprocess.CompletedProcess[str]:
    """``line`` run by a shell, as a user pastes it, in a directory of its own."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    return subprocess.run(["/bin/sh", "-c", line], cwd=elsewhere, env=_env(tmp_path, path),
                          capture_output=True, text=True, check=False, timeout=600)


def smoke_next(argv: list[str], project: Path, tmp_path: Path, path: str) -> str:
    """The ``check`` command ``smoke`` suggests next."""
    done = started([*argv, "smoke", "--impl", "python:readers.py:right"], project, tmp_path,
                   path)
    assert done.returncode == 0, done.stdout + done.stderr
    (printed,) = BACKQUOTED.findall(done.stdout)
    return printed


def agrees(line: str, tmp_path: Path, path: str) -> None:
    """The suggested check, kept small, runs where it is pasted and passes."""
    done = as_printed(f"{line} --examples 2 --no-corpus --against reference --no-progress",
                      tmp_path, path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 generated" in done.stdout and "all agree" in done.stdout


@needs_script
def test_a_console_script_off_the_path_prints_its_own_path(project: Path,
                                                           tmp_path: Path) -> None:
    bare = path_without_rechain()
    relative = os.path.relpath(SCRIPT, project)  # as typed: .venv/bin/rechain
    printed = smoke_next([relative], project, tmp_path, bare)
    assert shlex.split(printed)[:2] == [str(SCRIPT), "check"]
    agrees(printed, tmp_path, bare)


def test_python_m_rechain_off_the_path_prints_that_interpreter(project: Path,
                                                                tmp_path: Path) -> None:
    bare = path_without_rechain()
    printed = smoke_next([sys.executable, "-m", "rechain"], project, tmp_path, bare)
    assert shlex.split(printed)[:4] == [sys.executable, "-m", "rechain", "check"]
    agrees(printed, tmp_path, bare)


@needs_script
@pytest.mark.parametrize("how", ["console script", "python -m"])
def test_with_this_rechain_on_the_path_the_command_is_bare(how: str, project: Path,
                                                           tmp_path: Path) -> None:
    on_path = os.pathsep.join([str(SCRIPT.parent), path_without_rechain()])
    argv = [str(SCRIPT)] if how == "console script" else [sys.executable, "-m", "rechain"]
    printed = smoke_next(argv, project, tmp_path, on_path)
    assert shlex.split(printed)[:2] == ["rechain", "check"]
    agrees(printed, tmp_path, on_path)


@needs_script
def test_another_rechain_first_on_the_path_is_not_the_one_printed(project: Path,
                                                                  tmp_path: Path) -> None:
    other = tmp_path / "other-bin"
    other.mkdir()
    (other / "rechain").write_text("#!/bin/sh\necho 'another rechain'\nexit 3\n")
    (other / "rechain").chmod(0o755)
    shadowed = os.pathsep.join([str(other), str(SCRIPT.parent), path_without_rechain()])
    printed = smoke_next([str(SCRIPT)], project, tmp_path, shadowed)
    assert shlex.split(printed)[0] == str(SCRIPT)
    agrees(printed, tmp_path, shadowed)


@needs_script
def test_a_replay_runs_as_printed_and_the_case_file_keeps_the_portable_form(
        project: Path, tmp_path: Path) -> None:
    bare = path_without_rechain()
    done = started([str(SCRIPT), "check", "--impl", "python:readers.py:drops_last",
                    "--against", "reference", "--no-corpus", "--examples", "30", "--seed", "2",
                    "--max-shrink", "1", "--no-progress", "--report", "run.jsonl"],
                   project, tmp_path, bare)
    assert done.returncode == 1, done.stdout + done.stderr
    findings = [line for line in report.read(project / "run.jsonl")
                if line["kind"] == "finding"]
    assert findings
    finding = findings[0]
    assert f"replay: {finding['replay']}" in done.stdout
    replayed = as_printed(finding["replay"] + " --no-progress", tmp_path, bare)
    assert replayed.returncode == 1, replayed.stdout + replayed.stderr
    assert finding["case_id"] in replayed.stdout and "FAIL" in replayed.stdout
    case = json.loads((Path(finding["path"]) / "case.json").read_text())
    stored = shlex.split(case["provenance"]["differential"]["replay"])
    assert stored[:2] == ["rechain", "check"]  # committed or shared: the rechain on PATH
    assert stored[1:] == shlex.split(finding["replay"])[1:]


def test_a_usage_error_names_a_command_that_runs_as_printed(project: Path,
                                                            tmp_path: Path) -> None:
    bare = path_without_rechain()
    done = started([sys.executable, "-m", "rechain", "fuzz", "no-such-target"], project,
                   tmp_path, bare)
    assert done.returncode == 2
    printed = done.stderr.strip().rsplit("; see ", 1)[1]
    listed = as_printed(printed, tmp_path, bare)
    assert listed.returncode == 0, listed.stderr
    assert "parse-line" in listed.stdout


def test_drift_shows_the_check_it_runs_as_a_command_that_runs(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             ) -> None:
    from rechain.conformance import drift

    bare = path_without_rechain()
    monkeypatch.setenv("PATH", bare)
    said: list[str] = []
    assert drift.run_check([sys.executable, "-m", "rechain", "check", "--help"],
                           said.append) == 0
    (line,) = said
    shown = as_printed(line.removeprefix("$ "), tmp_path, bare)
    assert shown.returncode == 0, shown.stderr
    assert "--against" in shown.stdout


def test_a_fuzz_campaigns_next_step_reads_the_findings_where_it_left_them(
        project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    from argparse import Namespace

    from rechain.commands.fuzz import _print_next_steps
    from rechain.fuzz.registry import TARGETS

    bare = path_without_rechain()
    monkeypatch.setenv("PATH", bare)
    monkeypatch.chdir(project)
    _print_next_steps(TARGETS["parse-line"], project / "work" / "parse-line" / "findings",
                      Namespace(work=Path("work"), venv=None, timeout=None, rss_mb=None,
                                allow=[]))
    line = next(s for s in capsys.readouterr().out.splitlines() if "replayable cases:" in s)
    printed = line.split("replayable cases: ", 1)[1]
    assert shlex.split(printed)[-2:] == ["--work", str(project / "work")]
    done = as_printed(printed, tmp_path, bare)  # no findings there yet: nothing to file
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("parse-line: ")
    assert (project / "work" / "parse-line" / "worker.log").is_file()  # the work it named
