"""A stopped or killed ``rechain check`` keeps what finished, and ``--resume`` finishes it."""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from processes import running

from rechain.conformance.runner import corpus_items
from rechain.corpus.cases_io import load_cases

CASES = ["cycle-*", "assistant-*", "compaction-*"]
HANG_AT = 4  # the reader's 4th call never returns: the run is stopped there
SAFETY_S = 300  # a safety limit for a stuck run, never a speed claim

GATED = textwrap.dedent(f'''
    """Answers every transcript with nothing; the HANG_AT-th call hangs."""
    import os
    import time
    from pathlib import Path

    def read(data):
        calls = Path(os.environ["RECHAIN_TEST_CALLS"])
        calls.with_name("pid").write_text(str(os.getpid()))  # before the call is counted
        with calls.open("a") as log:
            log.write("x")
        if len(calls.read_text()) == {HANG_AT}:
            time.sleep(3600)
        return []
''')


def _rechain(args: list[str], cwd: Path, calls: Path) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["RECHAIN_TEST_CALLS"] = str(calls)
    env["PYTHONFAULTHANDLER"] = "1"  # a stuck run, sent SIGABRT, prints every thread's stack
    return subprocess.Popen([sys.executable, "-m", "rechain", *args], cwd=cwd, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=_interruptible)


def _interruptible() -> None:
    """Ctrl-C at its default in the run, as in a terminal. A test run started in the
    background (``cmd &`` in a script) ignores SIGINT, its children inherit SIG_IGN and Python
    keeps it, so the run would never see the SIGINT this test sends (seen: the run's main
    thread still waiting on the hung reader 300 s later)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SAFETY_S
    while not condition():
        if time.monotonic() > deadline:  # a stuck run, not a slow one
            pytest.fail(f"never saw {what}")
        time.sleep(0.05)


def _kill_worker(pid_file: Path) -> None:
    """The reader's worker process, if a failed run left it hanging."""
    with contextlib.suppress(OSError, ValueError):
        pid = int(pid_file.read_text())
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def _lines(report: Path) -> list[dict]:
    return [json.loads(line) for line in report.read_bytes().splitlines()]


def _ids(lines: list[dict]) -> list[str]:
    return [line["id"] for line in lines if line["kind"] == "case"]


@pytest.mark.parametrize(("sent", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 1),
                                            (signal.SIGKILL, -signal.SIGKILL)],
                         ids=["SIGINT", "SIGTERM", "SIGKILL"])
def test_a_stopped_run_keeps_what_finished_and_resume_finishes_it(
        tmp_path: Path, private_tmpdir: Path, sent: signal.Signals, code: int) -> None:
    """Also: the reader's scratch does not stay in the temp dir (``private_tmpdir``): removed
    when its worker closed, or, when rechain was killed outright, by the next (resumed) run."""
    start, elsewhere = tmp_path / "start", tmp_path / "elsewhere"
    start.mkdir()
    elsewhere.mkdir()
    (start / "gated.py").write_text(GATED)
    calls, report = tmp_path / "calls", start / "run.jsonl"
    selection = [arg for glob in CASES for arg in ("--case", glob)]
    everything = [item.case.id for item in corpus_items(load_cases(), "agent-sdk@0.3.332",
                                                        selected=CASES)]
    first = _rechain(["check", "--impl", "python:gated:read", *selection, "--no-shrink",
                      "--timeout", "3600", "--report", "run.jsonl"], start, calls)
    try:
        _wait_for(lambda: calls.exists() and len(calls.read_text()) == HANG_AT,
                  "the reader hang")
        _wait_for(lambda: len(_ids(_lines(report))) == HANG_AT - 1, "three cases on file")
        first.send_signal(sent)
        try:
            out, err = first.communicate(timeout=SAFETY_S)
        except subprocess.TimeoutExpired:
            first.send_signal(signal.SIGABRT)
            _, stacks = first.communicate()
            pytest.fail(f"the run did not stop on {sent.name}; its threads:\n{stacks[-8000:]}")
    finally:  # a stuck run leaves nothing behind for the tests that follow on this worker
        first.kill()
        first.communicate()
        _kill_worker(tmp_path / "pid")
    assert first.returncode == code, err
    lines = _lines(report)  # every line is whole JSON: a killed run's too
    assert lines[0]["kind"] == "header"
    assert _ids(lines) == everything[:HANG_AT - 1]
    worker = int((tmp_path / "pid").read_text())
    _wait_for(lambda: not running(worker), "the hung worker end with rechain")
    if sent != signal.SIGKILL:
        assert lines[-1]["kind"] == "footer" and lines[-1]["interrupted"] is True
        counted = [n for by in lines[-1]["counts"].values() for c in by.values()
                   for n in c.values()]
        assert sum(counted) == HANG_AT - 1
        assert "IMPLEMENTATION" in out  # the summary of what finished
        assert lines[-1]["exit"] == code and f"result: interrupted (exit {code})" in out
        assert re.search(rf"resume with: .+ check --resume {re.escape(str(report))}$", err,
                         re.MULTILINE)

    resumed = _rechain(["check", "--resume", str(report)], elsewhere, calls)
    out, err = resumed.communicate(timeout=SAFETY_S)
    assert resumed.returncode in (0, 1), err
    lines = _lines(report)
    assert [line["kind"] for line in lines].count("header") == 1
    assert [line["kind"] for line in lines].count("footer") == 1
    assert lines[-1]["kind"] == "footer" and lines[-1]["interrupted"] is False
    assert sorted(_ids(lines)) == sorted(everything)  # each case once: none lost, none twice
    # the resumed run called the reader only for what was not on file
    assert len(calls.read_text()) == HANG_AT + len(everything) - (HANG_AT - 1)
    assert lines[-1]["exit"] == resumed.returncode
