"""Runs rechain starts and waits for die with it, even when rechain is killed outright.

A CI step's timeout SIGKILLs rechain mid-sweep: a ``claude -p --resume`` or a ``cmd:``
reader it was waiting for must not run on, orphaned, holding the step's pipes.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from processes import outlived, running

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="PR_SET_PDEATHSIG is Linux's")

CLI_RUN = """
    from pathlib import Path
    from types import SimpleNamespace
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
    ClaudeCliOracle._run(SimpleNamespace(timeout=600), ["sleep", "600"], {}, Path("."))
"""

CMD_RUN = """
    from types import SimpleNamespace
    from rechain.conformance.protocol_process import Limits, OneShot
    one_shot = SimpleNamespace(limits=Limits(timeout=600, memory_mb=None))
    OneShot._run(one_shot, ["sleep", "600"], {}, b"")
"""


def _is_sleep(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"sleep")
    except OSError:
        return False


def _child_outlives_a_killed_parent(script: str) -> bool:
    parent = subprocess.Popen([sys.executable, "-c", textwrap.dedent(script)])
    return outlived(parent, lambda kids: any(_is_sleep(pid) for pid in kids), seconds=60)


def test_a_cli_oracle_run_dies_with_rechain() -> None:
    assert not _child_outlives_a_killed_parent(CLI_RUN), "claude outlived rechain"


def test_a_cmd_reader_run_dies_with_rechain() -> None:
    assert not _child_outlives_a_killed_parent(CMD_RUN), "the cmd: reader outlived rechain"


def test_what_a_cli_run_leaves_running_ends_with_it(tmp_path: Path) -> None:
    """``claude`` leaves ``npm root --global`` running; it must not outlive the run (it
    would write into the run's removed scratch directory)."""
    from types import SimpleNamespace

    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle

    pidfile = tmp_path / "left.pid"
    argv = ["sh", "-c", f"sleep 600 >/dev/null 2>&1 & echo $! > {pidfile}"]
    code, _ = ClaudeCliOracle._run(SimpleNamespace(timeout=60), argv, {}, tmp_path)  # type: ignore[arg-type]
    left = int(pidfile.read_text())
    try:
        assert code == 0
        for _ in range(100):
            if not running(left):
                break
            time.sleep(0.1)
        assert not running(left), "a process the run left behind lives on"
    finally:
        if running(left):
            os.kill(left, signal.SIGKILL)
