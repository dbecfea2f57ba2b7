"""Process groups, stopped whole: nothing a target started outlives the run that started it.

Every process rechain starts that runs a target (a fuzzing worker, a replay, a shrinking
step, the hang check, the import probe) is started in a session (and process group) of
its own, dying with rechain, so a signal to the group reaches every process the target
started, and none of rechain's.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from rechain.conformance.lifetime import dies_with_parent


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


def run(
    command: Sequence[str], seconds: float, env: Mapping[str, str] | None = None,
    cwd: Path | str | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """``subprocess.run(command, capture_output=True, timeout=seconds)`` for a run of a target.

    Its group is swept once it ends or ``seconds`` pass (then ``TimeoutExpired`` is raised
    with what it wrote, as ``subprocess.run`` does): a child the target left running ends
    with it. What it writes goes to files, not pipes, so such a child holding them open
    cannot keep the caller waiting past the run's own end.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=env, cwd=cwd,
                                   start_new_session=True, preexec_fn=dies_with_parent())
        stopped = False
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            stopped = True
        finally:  # an interrupted wait too: the group is in a session the Ctrl-C misses
            sweep(process.pid)
            process.wait()
        out.seek(0)
        err.seek(0)
        said, complained = out.read(), err.read()
    if stopped:
        raise subprocess.TimeoutExpired(list(command), seconds, said, complained)
    return subprocess.CompletedProcess(list(command), process.returncode, said, complained)
