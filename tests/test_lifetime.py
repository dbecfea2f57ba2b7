"""Runs rechain starts and waits for die with it, even when rechain is killed outright.

A CI step's timeout SIGKILLs rechain mid-sweep: a ``claude -p --resume`` or a ``cmd:``
reader it was waiting for must not run on, orphaned, holding the step's pipes.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from processes import outlived

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
