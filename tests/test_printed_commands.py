"""Every command rechain prints works as printed from another directory.

A run starts in a project directory with relative paths (a reader file, a cases
dir); each command it prints (``check``'s replay lines, ``corpus anonymise``'s
record step, ``corpus new --check``'s fix, ``smoke``'s next step) is then run by
a shell from an unrelated directory and must do its job, not fail to find a file.
The ``PATH`` is a user's who never activated rechain's venv: its ``bin`` left out,
so a bare ``rechain`` would not be found (``tests/test_printed_program.py`` runs
the console script itself, with and without it on the ``PATH``).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import textwrap
from pathlib import Path

import pytest
from cli_run import run
from printed import BACKQUOTED, path_without_rechain
from transcript_rows import assistant, jsonl, user

from rechain.conformance import report
from rechain.conformance.oracles.ts_sdk import TsSdkOracle

READERS = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    def right(data, session_id, options):
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:
            raise TypeError(result.error)
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]

    def drops_last(data, session_id, options):
        messages = right(data, session_id, options)
        return messages[:-1] if len(messages) >= 3 else messages
''')
SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"
CLEAN_CASE = "assistant-without-message-id"  # one option set
# the user's own cache (the installed oracles); a test's run writes to a throwaway one
USER_CACHE = os.environ.get("RECHAIN_CACHE")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The directory the user runs rechain in; the cache is a throwaway one."""
    where = tmp_path / "project"
    where.mkdir()
    (where / "readers.py").write_text(READERS)
    monkeypatch.chdir(where)
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PATH", path_without_rechain())
    return where


def from_elsewhere(command: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """Run a printed line with a shell in a fresh directory, rechain's venv off the PATH."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir(exist_ok=True)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RECHAIN_CACHE")}
    if USER_CACHE is not None:
        env["RECHAIN_CACHE"] = USER_CACHE
    env["PATH"] = path_without_rechain()
    return subprocess.run(command, shell=True, cwd=elsewhere, env=env, capture_output=True,
                          text=True, check=False, timeout=600)


def test_check_replays_run_elsewhere_and_leave_nothing_behind(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "check", "--impl", "python:readers.py:drops_last", "--against",
                       "reference", "--no-corpus", "--examples", "30", "--seed", "2",
                       "--max-shrink", "1", "--report", "run.jsonl", "--no-progress",
                       "--fields", "uuids", "--validate")
    assert code == 1
    assert sorted(p.name for p in project.iterdir()) == ["readers.py", "run.jsonl"]
    findings = [line for line in report.read(project / "run.jsonl") if line["kind"] == "finding"]
    assert findings
    for finding in findings:
        assert Path(finding["path"]).is_relative_to(tmp_path / "cache" / "cases")
        assert f"replay: {finding['replay']}" in out
        assert " --fields uuids --validate " in finding["replay"]  # judged as the run judged
        done = from_elsewhere(finding["replay"] + " --no-progress", tmp_path)
        assert done.returncode == 1, done.stderr
        assert finding["case_id"] in done.stdout and "FAIL" in done.stdout


def test_anonymise_suggests_a_record_command_that_runs_elsewhere(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    (project / "cases").mkdir()
    (project / "real.jsonl").write_bytes(jsonl(
        user("u1", None, "hello", sessionId=SID), assistant("a1", "u1", sessionId=SID)))
    code, out, _ = run(capsys, "corpus", "anonymise", "real.jsonl", "cases", "--id", "real-one",
                       "--repo", "me/proj", "--path", "real.jsonl", "--commit", "abcdef1",
                       "--licence", "MIT")
    assert code == 0
    (printed,) = BACKQUOTED.findall(out)
    assert str(project / "cases") in printed
    with pytest.MonkeyPatch.context() as patch:
        if USER_CACHE is None:
            patch.delenv("RECHAIN_CACHE")
        else:
            patch.setenv("RECHAIN_CACHE", USER_CACHE)
        missing = TsSdkOracle.available()
    if missing is not None:
        pytest.skip("the TS SDK oracle is not installed: the record step cannot run")
    done = from_elsewhere(printed, tmp_path)
    assert done.returncode == 0, done.stderr
    case = json.loads((project / "cases" / "real-one" / "case.json").read_text())
    assert case["expectations"], "the printed record command recorded nothing"


def test_corpus_new_check_prints_a_fix_that_runs_elsewhere(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    (project / "cases").mkdir()
    code, out, _ = run(capsys, "corpus", "new", "--check", "--root", "cases")
    assert code == 1
    printed = BACKQUOTED.findall(out)[0]
    done = from_elsewhere(printed, tmp_path)
    assert done.returncode == 0, done.stderr
    case_id = printed.split("--case ")[1].split()[0]
    assert (project / "cases" / case_id / "case.json").is_file()


def test_smoke_suggests_a_check_that_runs_elsewhere(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "smoke", "--impl", "python:readers.py:right")
    assert code == 0
    (printed,) = BACKQUOTED.findall(out)
    assert str(project / "readers.py") in printed
    # as printed, kept small: two generated transcripts against the reference, no corpus
    done = from_elsewhere(printed + " --examples 2 --no-corpus --against reference", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_module_found_in_the_run_directory_is_reached_through_pythonpath(
    tmp_path: Path,
) -> None:
    from rechain import portable

    (tmp_path / "mine").mkdir()
    (tmp_path / "tool.py").write_text("")
    assert portable.spec("python:mine.read:fn", tmp_path) == portable.Portable(
        "python:mine.read:fn", {"PYTHONPATH": str(tmp_path)})
    assert portable.spec("python:json:loads", tmp_path) == portable.Portable("python:json:loads")
    assert portable.spec("cmd:python3 tool.py --x", tmp_path).text == \
        f"cmd:python3 {tmp_path / 'tool.py'} --x"
    assert portable.spec("harness:python3 -m mine", tmp_path).env == {"PYTHONPATH": str(tmp_path)}
    assert portable.spec("cmd[api,chain]:./tool.py", tmp_path).text == \
        f"cmd[api,chain]:{tmp_path / 'tool.py'}"
    assert portable.spec("reference:cli", tmp_path).text == "reference:cli"


def test_the_pytest_plugins_replay_runs_elsewhere(project: Path, tmp_path: Path) -> None:
    from types import SimpleNamespace

    from rechain.conformance.pytest_plugin import _replay

    options = {"rechain_impl": "python:readers.py:right", "rechain_against": None,
               "rechain_corpus": None, "rechain_profile": "sdk"}
    config = SimpleNamespace(getoption=options.get,
                             invocation_params=SimpleNamespace(dir=project))
    printed = _replay(config, "linear-two-turns[system]")  # type: ignore[arg-type]
    assert str(project / "readers.py") in printed
    done = from_elsewhere(printed + " --no-progress", tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert re.search(r"\b1 corpus case\b", done.stdout)  # that option set alone
    alone = _replay(config, "linear-two-turns", alone=True)  # type: ignore[arg-type]
    done = from_elsewhere(alone + " --no-progress", tmp_path)
    assert done.returncode == 0 and re.search(r"\b1 corpus case\b", done.stdout), done.stderr


def test_fuzz_names_a_replay_for_each_filed_case_that_runs_elsewhere(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rechain.commands.fuzz import _print_report
    from rechain.fuzz.regressions import fuzz_cases

    monkeypatch.setenv("PATH", path_without_rechain())
    case = next(c for c in fuzz_cases() if c.name.startswith("fuzz-parse-line-"))
    _print_report({"target": "parse-line", "executions": 10, "wall_s": 1, "exec_per_s": 10,
                   "cpu_s": 1, "coverage": {"cov": 1, "ft": 1}, "findings": [],
                   "new_findings": [], "cases": [str(case)]})
    (printed,) = BACKQUOTED.findall(capsys.readouterr().out)
    done = from_elsewhere(printed, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith(f"ok         {case.name} (parse-line")


def test_a_failing_corpus_case_prints_a_replay_of_that_case_alone_that_runs_elsewhere(
    capsys: pytest.CaptureFixture[str], project: Path, tmp_path: Path
) -> None:
    import shutil

    from rechain.corpus.cases_io import default_root

    for name in ("cli-calls-after-other-blocks", "assistant-without-message-id",
                 "cli-bridge-within-5s", "options-paging"):
        shutil.copytree(Path(str(default_root() / name)), project / "cases" / name)
    code, out, _ = run(capsys, "check", "--impl", "python:readers.py:drops_last", "--corpus",
                       "cases", "--examples", "0", "--report", "run.jsonl", "--no-progress",
                       "--fields", "uuids", "--no-skips", "--junit", "run.xml", "--markdown",
                       "run.md", "--html", "run.html")
    assert code == 1
    lines = report.read(project / "run.jsonl")
    failing = [line for line in lines if line["kind"] == "case" and line["status"] == "fail"]
    assert failing and all(line["group"] not in ("generated", "corrupted") for line in failing)
    # the terminal and Markdown show each kind's example in full, its replay with it; the
    # JUnit and HTML reports every failing case's
    shown = [line["replay"] for line in failing if f"replay: {line['replay']}" in out]
    # the others of a kind: "each alone: the replay above with its id after --case"
    assert len(shown) < len(failing)
    assert "  each alone: the replay above with its id after --case\n" in out
    assert shown and all(replay in (project / "run.md").read_text() for replay in shown)
    import html
    import xml.etree.ElementTree as ET

    junit = " ".join(f.text or "" for f in ET.parse(project / "run.xml").iter("failure"))
    page = html.unescape(re.sub(r"<[^>]+>", "", (project / "run.html").read_text()))
    for line in failing:
        replay = line["replay"]
        assert f"replay: {replay}" in junit and f"replay: {replay}" in page
        assert " --fields uuids --no-skips " in replay  # judged as the run judged
        assert str(project / "cases") in replay and str(project / "readers.py") in replay
        done = from_elsewhere(f"{replay} --no-progress --report again.jsonl", tmp_path)
        assert done.returncode == 1, done.stdout + done.stderr
        again = [c for c in report.read(tmp_path / "elsewhere" / "again.jsonl")
                 if c["kind"] == "case"]
        assert [(c["id"], c["implementation"], c["status"], c["cause"]) for c in again] == [
            (line["id"], line["implementation"], line["status"], line["cause"])]
    assert any("[" in line["id"] for line in failing)  # one option set of a case, alone
    passing = [line for line in lines if line["kind"] == "case" and line["status"] == "pass"]
    assert passing and not any("replay" in line for line in passing)


def test_a_corpus_replay_names_its_case_literally_and_the_limits_that_decide_it() -> None:
    import datetime as dt
    from fnmatch import fnmatchcase

    from rechain.conformance.check.replays import decisive, pattern
    from rechain.conformance.check.settings import Settings

    for case_id in ("plain-case", "odd[continue]", "star*and?mark"):
        assert fnmatchcase(case_id, pattern(case_id))
        assert not fnmatchcase(case_id + "x", pattern(case_id))
    assert not fnmatchcase("oddc", pattern("odd[continue]"))
    started = dt.datetime.now(dt.UTC)
    assert decisive(Settings(seed=1, save_cases=Path(), started=started)) == []
    assert decisive(Settings(seed=1, save_cases=Path(), started=started, timeout=5,
                             memory_mb=512, invariant_every=0, no_skips=True)) == [
        "--no-skips", "--timeout", "5", "--memory-mb", "512", "--invariant-every", "0"]


def test_case_selects_one_option_set_of_a_case_by_its_id() -> None:
    from rechain.conformance.runner import corpus_items
    from rechain.corpus import load_cases

    cases = [case for case in load_cases() if case.id == "options-paging"]

    def chosen(*selected: str) -> list[str]:
        return [item.case.id for item in corpus_items(cases, "agent-sdk@0.3.332",
                                                      selected=selected)]

    every = chosen("options-paging")
    assert len(every) > 2 and every[0] == "options-paging" and chosen("options-*") == every
    assert chosen("options-paging[]") == ["options-paging"]
    assert chosen("options-paging[limit=2]") == ["options-paging[limit=2]"]
    assert chosen("options-paging[[]limit=2]") == ["options-paging[limit=2]"]
    assert chosen("options-paging[[]nothing]") == []


def test_the_pytest_plugin_replays_a_case_with_several_option_sets_by_its_default_one() -> None:
    from types import SimpleNamespace

    from rechain.conformance.pytest_plugin import _alone
    from rechain.conformance.runner import corpus_items
    from rechain.corpus import load_cases

    config = SimpleNamespace(getoption={"rechain_profile": "sdk"}.get)
    cases = [c for c in load_cases() if c.id in ("linear-two-turns", CLEAN_CASE)]
    chosen = {item.case.id: _alone(config, item)  # type: ignore[arg-type]
              for item in corpus_items(cases, "agent-sdk@0.3.332")}
    assert chosen == {"linear-two-turns": True, "linear-two-turns[system]": False,
                      CLEAN_CASE: False}
