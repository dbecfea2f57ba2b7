"""What Linux ``/proc`` says of a process, for tests that check nothing is left running."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def running(pid: int) -> bool:
    """Whether ``pid`` exists and is not a zombie (an orphan init has not reaped yet)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def children(pid: int) -> set[int]:
    """The pids every thread of ``pid`` started."""
    found: set[int] = set()
    for task in Path(f"/proc/{pid}/task").iterdir():
        found |= {int(p) for p in (task / "children").read_text().split()}
    return found


def outlived(parent: subprocess.Popen[bytes], ready: Callable[[set[int]], bool],
             seconds: float = 120) -> bool:
    """Kill ``parent`` outright once ``ready(its children)`` holds; whether a child lives on.

    The children are killed afterwards either way, so a failing test leaves no orphan.
    """
    kids: set[int] = set()
    try:
        for _ in range(int(seconds * 10)):
            kids = children(parent.pid)
            if kids and ready(kids):
                break
            assert parent.poll() is None, "the parent ended before its child started"
            time.sleep(0.1)
        assert kids, f"no child started within {seconds:g} s"
        parent.kill()
        parent.wait()
        for _ in range(300):
            if not any(running(pid) for pid in kids):
                return False
            time.sleep(0.1)
        return True
    finally:
        parent.kill()
        parent.wait()
        for pid in kids:
            if running(pid):
                os.kill(pid, signal.SIGKILL)
