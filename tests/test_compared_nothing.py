"""A run that compared or executed nothing is a failure, never a pass: check, smoke and the
pytest plugin (``rechain fuzz`` is covered in test_fuzz_run.py)."""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.report import exit_code, verdict

pytest_plugins = ["pytester"]

SKIPPER = textwrap.dedent('''
    """A tier-2 harness that declines every case."""
    import json, sys
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply = {"version": 1, "implementation": {"name": "skipper", "version": "1",
                                                      "language": "python"}}
        elif request["cmd"] == "run":
            reply = {"seq": request["seq"], "skipped": True, "message": "not mine"}
        else:
            break
        print(json.dumps(reply), flush=True)
''')


ANSWERS_SOME = textwrap.dedent('''
    """A tier-2 harness that answers the cases named in argv (with the reference's answer)
    and declines every other one."""
    import base64, json, sys
    from rechain.reference import Options, rebuild
    for line in sys.stdin:
        request = json.loads(line)
        if request["cmd"] == "start":
            reply = {"version": 1, "implementation": {"name": "picky", "version": "1",
                                                      "language": "python"}}
        elif request["cmd"] == "run" and request["case"]["id"] in sys.argv[1:]:
            case = request["case"]
            built = rebuild(base64.b64decode(case["transcript_b64"]), "sdk",
                            Options(**case["options"]), session_id=case["session_id"])
            reply = {"seq": request["seq"], "result": {"messages": [
                {k: v for k, v in m.items() if k != "line"} for m in built.messages]}}
        elif request["cmd"] == "run":
            reply = {"seq": request["seq"], "skipped": True, "message": "not mine"}
        else:
            break
        print(json.dumps(reply), flush=True)
''')


@pytest.fixture
def skipper(tmp_path: Path) -> str:
    script = tmp_path / "skipper.py"
    script.write_text(SKIPPER)
    return f"harness:{sys.executable} {script}"


def test_the_exit_code_needs_something_compared() -> None:
    assert exit_code({}) == 1
    assert exit_code({"r@1": {"t": {"skip": 3}}}) == 1
    assert exit_code({"r@1": {"t": {"skip": 3, "pass": 1}}}) == 0
    assert exit_code({"r@1": {"t": {"pass": 1, "fail": 1}}}) == 1
    assert exit_code({"r@1": {"t": {"pass": 1, "skip": 9}}}) == 0
    assert exit_code({"r@1": {"t": {"pass": 1, "skip": 10}}}) == 1  # nearly nothing
    assert exit_code({"r@1": {"t": {"pass": 5}}, "s@1": {"t": {"skip": 5}}}) == 1


def test_the_verdict_names_a_reader_that_tested_nearly_nothing_beside_disagreements() -> None:
    table = {"r@1": {"t": {"pass": 5, "fail": 1}}, "s@1": {"t": {"pass": 1, "skip": 40}}}
    foot = {"counts": table, "exit": exit_code(table)}
    assert verdict(foot) == ("disagreements found; nearly nothing was compared: s@1 compared "
                             "1 of its 41 cases, the rest skipped")


def test_a_reader_that_compared_nothing_fails_beside_one_that_passed(
        skipper: str, capsys: pytest.CaptureFixture[str]) -> None:
    """Two readers under test: the one that declined every case is not tested by the
    other's passes."""
    code = main(["check", "--impl", skipper, "--impl", "reference", "--case", "cycle-*",
                 "--examples", "0", "--no-shrink"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "nearly nothing was compared: skipper@1 compared 0 of its" in out


def test_a_reader_that_compared_nearly_nothing_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """One answered case of the whole corpus, the rest declined, is not a green run: the
    Markdown and HTML say why as the terminal does."""
    script = tmp_path / "picky.py"
    script.write_text(ANSWERS_SOME)
    markdown, page = tmp_path / "summary.md", tmp_path / "report.html"
    code = main(["check", "--impl", f"harness:{sys.executable} {script} cycle-full",
                 "--examples", "0", "--no-shrink", "--markdown", str(markdown),
                 "--html", str(page)])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "picky@1  " in out and " 1     0      0        0 " in out  # the one it answered
    assert "result: nearly nothing was compared: picky@1 compared 1 of its" in out
    assert markdown.read_text().startswith("### rechain check: ❌ nearly nothing was compared")
    assert "nearly nothing was compared: picky@1 compared 1 of its" in page.read_text()


def test_a_check_without_cases_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    report = tmp_path / "r.jsonl"
    code = main(["check", "--no-corpus", "--examples", "0", "--report", str(report)])
    assert code == 1
    assert "nothing was compared" in capsys.readouterr().out
    assert json.loads(report.read_text().splitlines()[-1])["exit"] == 1


def test_a_check_where_every_case_skipped_fails(
        tmp_path: Path, skipper: str, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["check", "--impl", skipper, "--case", "cycle-*", "--no-shrink"])
    out = capsys.readouterr().out
    assert code == 1, out
    assert "nothing was compared" in out


def test_smoke_where_every_case_skipped_fails(
        skipper: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["smoke", "--impl", skipper]) == 1
    assert "nothing was checked" in capsys.readouterr().out


PLUGIN = "rechain.conformance.pytest_plugin"


def _pytest(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    from importlib.metadata import entry_points

    autoloaded = any(ep.value == PLUGIN for ep in entry_points(group="pytest11"))
    load = [] if autoloaded else ["-p", PLUGIN]
    return pytester.runpytest_subprocess(*load, "-p", "no:cacheprovider", *args)


def test_the_plugin_fails_a_run_that_compared_nothing(pytester: pytest.Pytester,
                                                      skipper: str) -> None:
    pytester.makepyfile(test_own="def test_own():\n    assert True\n")
    none = _pytest(pytester, f"--rechain-impl={skipper}", "--rechain-case=no-such-case-*")
    assert none.ret == 1
    none.stdout.fnmatch_lines(["*compared nothing (no corpus case matches the selection)*"])
    skipped = _pytest(pytester, f"--rechain-impl={skipper}", "--rechain-case=cycle-full")
    assert skipped.ret == 1
    skipped.stdout.fnmatch_lines(["*compared nothing (every rechain case was skipped)*"])
    deselected = _pytest(pytester, f"--rechain-impl={skipper}", "--rechain-case=cycle-full",
                         "-k", "own")
    assert deselected.ret == 0  # the user left the cases out: their own tests decide


def test_the_plugin_fails_a_run_that_compared_nearly_nothing(pytester: pytest.Pytester,
                                                             tmp_path: Path) -> None:
    """One case answered of the whole corpus, as for rechain check; a selection the user
    made (-k, --rechain-case) that is all compared is fine."""
    script = tmp_path / "picky.py"
    script.write_text(ANSWERS_SOME)
    impl = f"--rechain-impl=harness:{sys.executable} {script} cycle-full"
    nearly = _pytest(pytester, impl)
    assert nearly.ret == 1
    nearly.stdout.fnmatch_lines(["*compared nearly nothing (1 of * rechain cases*"])
    chosen = _pytest(pytester, impl, "--rechain-case=cycle-full")
    assert chosen.ret == 0, chosen.stdout.str()[-2000:]
