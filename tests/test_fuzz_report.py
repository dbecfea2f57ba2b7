"""What a fuzz campaign's report says about its findings (no fuzzing here)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from rechain.commands.fuzz import _print_report


def _report(*messages: str) -> dict:
    findings = [{"signature": f"E@r.py:read:{n}", "message": m, "count": 1,
                 "input_path": f"/w/findings/{n}.input"} for n, m in enumerate(messages)]
    return {"target": "r-read", "executions": 100, "wall_s": 1, "exec_per_s": 100,
            "cpu_s": 1, "coverage": {"cov": 1, "ft": 1}, "findings": findings,
            "new_findings": []}


@pytest.mark.parametrize(("messages", "hint"), [
    # a reader that opens a file, fed the bytes: every input is a "file name"
    (["[Errno 2] No such file or directory: b''", "embedded null byte"],
     "2 of these look like the function opening its input as a file name: "
     "if it takes a path, fuzz it with --input path"),
    (["[Errno 36] File name too long: b'{\"type\":1}'"], "1 of these look like the function "
     "opening its input as a file name"),
    # a reader of bytes, fed a path
    (["'PosixPath' object has no attribute 'splitlines'"],
     "1 of these look like the function handed a path it reads as data: "
     "if it takes the bytes, fuzz it with --input bytes"),
])
def test_findings_that_are_the_wrong_input_kind_say_so(capsys, messages, hint):
    _print_report(_report(*messages))
    assert any(line.strip().startswith(hint) for line in capsys.readouterr().out.splitlines())


def test_real_findings_get_no_input_hint(capsys):
    _print_report(_report("'int' object has no attribute 'get'", "'message'"))
    assert "--input" not in capsys.readouterr().out


def test_the_list_says_which_third_party_targets_can_run(capsys, monkeypatch, tmp_path):
    from rechain.commands.fuzz import list_targets
    from rechain.fuzz.registry import TARGETS, venv_name

    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path))
    python = tmp_path / "fuzz-venvs" / venv_name(TARGETS["ai-replay"]) / "bin" / "python"
    python.parent.mkdir(parents=True)
    python.write_text("")
    list_targets()
    lines = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert lines["ai-replay"].endswith("(installed)")
    assert lines["agent-history"].endswith("--install agent-history)")
    assert "not installed" in lines["agent-history"]
    assert lines["parse-line"].endswith("reference")


def test_a_shrinking_step_past_its_budget_is_stopped_with_what_it_started(tmp_path):
    """libFuzzer's minimiser starts a child per step; a step's budget ends them all, not
    only the worker (which alone was killed, and only after four times the budget)."""
    import os

    from rechain.fuzz.triage import _bounded

    pids = tmp_path / "pids"
    script = f"sleep 600 & echo $! > {pids}; wait"
    assert _bounded(["sh", "-c", script], dict(os.environ), tmp_path, 1) is None
    stat = Path(f"/proc/{int(pids.read_text())}/stat")

    def alive() -> bool:  # killed: gone, or a zombie waiting to be reaped
        try:
            return stat.read_text().split()[2] != "Z"
        except FileNotFoundError:
            return False

    for _ in range(200):  # a signal is delivered soon, not at once: wait for it, not on it
        if not alive():
            break
        time.sleep(0.05)
    assert not alive()
    done = _bounded(["sh", "-c", "echo ok"], dict(os.environ), tmp_path, 60)
    assert done is not None and done.stdout == b"ok\n"
