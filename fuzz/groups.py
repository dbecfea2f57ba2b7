"""Worker process groups, stopped whole: nothing a target started outlives its worker.

Each fuzzing worker is started in a session (and process group) of its own, so a signal
to the group reaches every process the target started, and none of rechain's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from collections.abc import Sequence


def sweep(group: int) -> None:
    """SIGKILL what is left of a worker's process group, right after the worker ended
    (its id cannot be handed out again while a process of the group lives)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)


def halt(processes: Sequence[subprocess.Popen[bytes]], grace_s: float) -> None:
    """SIGTERM each worker's group, then SIGKILL every group past ``grace_s``: a group
    whose worker ended on SIGTERM may still hold a child of the target's."""
    for process in processes:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(process.pid, signal.SIGTERM)
    until = time.monotonic() + grace_s
    for process in processes:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=max(until - time.monotonic(), 0.0))
    for process in processes:
        sweep(process.pid)
    for process in processes:
        process.wait()
