"""Process groups, stopped whole: nothing a target started outlives the run that started it.

Every process rechain starts that runs a target (a fuzzing worker, a replay, a shrinking
step, the hang check, the import probe) is started in a session (and process group) of
its own, dying with rechain, so a signal to the group reaches every process the target
started, and none of rechain's. A process the target started that left the group (a
``setsid`` child, a daemon) is found by the run's ``marked.Mark`` in its environment and
killed with the group.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import IO

from rechain.conformance.lifetime import dies_with_parent
from rechain.conformance.marked import SHELL_SWEEP, Mark, unmarked

#: the most a run of a target may write to its stdout or stderr (or any file): past it the
#: kernel stops it with SIGXFSZ. A target that prints on every input, run for a minute,
#: wrote 1.5 GB a second to the run's files, each then read whole into rechain's memory
OUTPUT_LIMIT = 256 << 20
#: what is read back of each stream: its head and its tail (the worker's first row is at
#: the head, its outcome and the watchdog's words at the tail)
KEPT_BYTES = 1 << 20
#: the words that stand for what was left out between the head and the tail
LEFT_OUT = b"\n[rechain: %d bytes left out]\n"


def _started(limit: int) -> Callable[[], None]:
    """A ``preexec_fn``: the child dies with rechain, and writes no file past ``limit``."""
    tie = dies_with_parent()

    def start() -> None:
        if tie is not None:
            tie()
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    return start


def ended(code: int) -> str:
    """How a run ended, in words: ``exit code 3``, ``killed by SIGSEGV``, and for the
    output limit what it means."""
    if code >= 0:
        return f"exit code {code}"
    try:
        name = signal.Signals(-code).name
    except ValueError:
        return f"killed by signal {-code}"
    if name == "SIGXFSZ":
        return f"stopped: it wrote more than {OUTPUT_LIMIT >> 20} MiB of output (SIGXFSZ)"
    return f"killed by {name}"


def kept(stream: IO[bytes], keep: int = KEPT_BYTES) -> bytes:
    """A run's output file, its head and tail ``keep`` bytes each when it is longer."""
    size = stream.seek(0, os.SEEK_END)
    stream.seek(0)
    if size <= 2 * keep:
        return stream.read()
    head = stream.read(keep)
    stream.seek(size - keep)
    return head + LEFT_OUT % (size - 2 * keep) + stream.read()


def sweep(group: int, mark: Mark | None = None) -> None:
    """SIGKILL what is left of a worker's process group, right after the worker ended
    (its id cannot be handed out again while a process of the group lives), and what
    carries its ``mark``: what the target started that left the group."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signal.SIGKILL)
    if mark is not None:
        mark.sweep()


def guard(group: int, mark: Mark | None = None) -> subprocess.Popen[bytes]:
    """A shell that SIGKILLs process group ``group``, then what carries ``mark``, once
    rechain has ended, however it ended: ``PR_SET_PDEATHSIG`` (``conformance/lifetime.py``)
    ends only the process rechain started, not what the target started beside it. The
    shell (in a session of its own, without the mark) reads a pipe only rechain holds
    (Python's pipes close on exec), which the kernel closes when rechain ends, even killed
    outright. ``release`` it once the group is swept."""
    script = 'read -r _; kill -s KILL -- -"$0"'
    entry: list[str] = []
    if mark is not None:
        script, entry = f'{script}; {SHELL_SWEEP}', [mark.entry]
    return subprocess.Popen(["/bin/sh", "-c", script, str(group), *entry],
                            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True,
                            env=unmarked())


def release(watcher: subprocess.Popen[bytes]) -> None:
    """End a ``guard`` whose group was swept (its id may be handed out again)."""
    watcher.kill()
    watcher.wait()
    if watcher.stdin is not None:
        watcher.stdin.close()


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

    Its group and its mark are swept once it ends or ``seconds`` pass (then
    ``TimeoutExpired`` is raised with what it wrote, as ``subprocess.run`` does), or once
    rechain ends (``guard``): a child the target left running ends with it, also one that
    left the group. What it writes goes to files, not pipes, so such a child holding them
    open cannot keep the caller waiting past the run's end; none grows past
    ``OUTPUT_LIMIT`` (SIGXFSZ ends the writer) and only their ends are read back
    (``kept``).
    """
    mark = Mark()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        process = subprocess.Popen(command, stdout=out, stderr=err, env=mark.on(env), cwd=cwd,
                                   start_new_session=True, preexec_fn=_started(OUTPUT_LIMIT))
        stopped = False
        try:
            watcher = guard(process.pid, mark)
        except BaseException:
            sweep(process.pid, mark)
            process.wait()
            raise
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            stopped = True
        finally:  # an interrupted wait too: the group is in a session the Ctrl-C misses
            sweep(process.pid, mark)
            process.wait()
            release(watcher)
        said, complained = kept(out), kept(err)
    if stopped:
        raise subprocess.TimeoutExpired(list(command), seconds, said, complained)
    return subprocess.CompletedProcess(list(command), process.returncode, said, complained)
