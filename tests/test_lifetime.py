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

from tests.processes import children, running

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
    sleepers: set[int] = set()
    try:
        for _ in range(600):
            sleepers = {pid for pid in children(parent.pid) if _is_sleep(pid)}
            if sleepers:
                break
            assert parent.poll() is None, "the run ended before its child started"
            time.sleep(0.1)
        assert sleepers, "no child started within a minute"
        parent.kill()
        parent.wait()
        for _ in range(300):
            if not any(running(pid) for pid in sleepers):
                return False
            time.sleep(0.1)
        return True
    finally:
        parent.kill()
        parent.wait()
        for pid in sleepers:
            if running(pid):
                os.kill(pid, signal.SIGKILL)


def test_a_cli_oracle_run_dies_with_rechain() -> None:
    assert not _child_outlives_a_killed_parent(CLI_RUN), "claude outlived rechain"


def test_a_cmd_reader_run_dies_with_rechain() -> None:
    assert not _child_outlives_a_killed_parent(CMD_RUN), "the cmd: reader outlived rechain"
