"""A harness run on its own (``python -m rechain.fuzz.fuzz_<name> -fork=N ...``, as the docs
show) leaves no launcher in the temp dir, whether libFuzzer ends it or it is killed outright.

libFuzzer re-executes argv[0] for ``-fork``, ``-jobs`` and ``-minimize_crash``, so the worker
writes a launcher script under ``TMPDIR``; libFuzzer ends the worker with C ``exit()``, so no
Python clean-up removes it. ``private_tmpdir`` fails a test that leaves it.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

SAFETY_S = 300  # a stuck run, not a slow one

pytestmark = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                reason="atheris not installed")


def _wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + SAFETY_S
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"never saw {what}")
        time.sleep(0.05)


def _left(where: Path) -> list[str]:
    return sorted(path.name for path in where.glob("rechain-*"))


def test_a_harness_minimising_on_its_own_leaves_no_launcher(
        tmp_path: Path, private_tmpdir: Path) -> None:
    (tmp_path / "input").write_text('{"type":"user"}\n')
    done = subprocess.run(
        [sys.executable, "-m", "rechain.fuzz.fuzz_parse_line", "-minimize_crash=1", "-runs=10",
         "input"], cwd=tmp_path, capture_output=True, text=True, timeout=SAFETY_S, check=False)
    assert "CRASH_MIN: executing: " + str(private_tmpdir) in done.stderr, done.stderr[-2000:]
    _wait_for(lambda: _left(private_tmpdir) == [], "the launcher removed")


def test_a_forking_harness_killed_outright_leaves_no_launcher(
        tmp_path: Path, private_tmpdir: Path) -> None:
    (tmp_path / "corpus").mkdir()
    run = subprocess.Popen(
        [sys.executable, "-m", "rechain.fuzz.fuzz_parse_line", "-fork=1", "corpus"],
        cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    try:
        _wait_for(lambda: any(private_tmpdir.glob("rechain-fuzz-*/worker")), "the launcher")
    finally:
        os.killpg(run.pid, signal.SIGKILL)  # the worker and the children libFuzzer started
        run.wait(timeout=SAFETY_S)
    _wait_for(lambda: _left(private_tmpdir) == [], "the launcher removed")
