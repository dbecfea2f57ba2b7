"""One measured child process under a time and a memory limit, so a benchmark ends.

A real reader can take far longer than the file deserves (an SDK on 1 GB of NUL bytes:
over 10 minutes and 4 GB). A benchmark a user runs must end in a stated time, so each
child runs as the oracles run theirs: it leads its own process group, killed whole
(what it started goes with it) past the wall-clock limit or once the group's resident
memory passes the memory limit (``protocol_process.rss_mb``, what the tier-1 and tier-2
watchdogs read), and it dies with rechain if rechain is killed outright
(``lifetime.dies_with_parent``). What it started that left the group (a ``setsid``
child) carries the run's ``marked.Mark`` and is killed once the run ends. A stopped
child says which limit stopped it and gives no figures: a cut-off run measured nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from rechain.conformance.lifetime import dies_with_parent
from rechain.conformance.marked import Mark
from rechain.conformance.protocol_process import rss_mb

POLL_S = 0.02
MEMORY_EVERY = 5  # read the process tree's memory every 5th poll (it walks /proc)
DEFAULT_TIMEOUT_S = 120.0
MEMORY_CAP_MB = 8192


def default_memory_mb() -> int:
    """8 GiB, or half this machine's memory when it has less than 16 GiB: a reader past it
    would push a shared machine into swap or the OOM killer."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // (1 << 20)
    except (ValueError, OSError):
        return MEMORY_CAP_MB
    return int(min(MEMORY_CAP_MB, total // 2))


@dataclass(frozen=True, slots=True)
class Bounds:
    """The limits of one measured child: wall-clock seconds and resident MiB (None: none)."""

    seconds: float = DEFAULT_TIMEOUT_S
    memory_mb: float | None = None

    def to_json(self) -> dict[str, Any]:
        return {"timeout_s": self.seconds, "memory_mb": self.memory_mb}


@dataclass(frozen=True, slots=True)
class Measured:
    """What one child gave: its last stdout line as JSON (None unless it exited 0 with a
    JSON object), CPU seconds, peak resident MiB, and ``stopped`` when a limit ended it
    (then its figures are not the reader's: report the limit instead)."""

    found: dict[str, Any] | None
    cpu: float
    peak_mb: float
    returncode: int
    stopped: str | None = None
    stderr: str = ""

    def failure(self) -> str | None:
        """Why it gave no figures ("over 60 s", "exit 1: ..."), None when it did."""
        if self.stopped is not None:
            return self.stopped
        if self.found is not None:
            return None
        last = self.stderr.strip().splitlines()[-1:] or [""]
        return f"exit {self.returncode}" + (f": {last[0][:200]}" if last[0] else "")


def run(argv: Sequence[str], env: dict[str, str], bounds: Bounds,
        cwd: str | None = None) -> Measured:
    """Start ``argv``, wait for it within ``bounds``; kill its group at a limit."""
    mark = Mark()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(list(argv), stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                                env=mark.on(env), cwd=cwd, start_new_session=True,
                                preexec_fn=dies_with_parent())
        try:
            status, usage, stopped = _wait(proc.pid, bounds, mark)
        finally:  # what it left running ends with it, in its group or out of it
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            mark.sweep()
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace").strip().splitlines()
        stderr = err.read()[-4000:].decode("utf-8", "replace")
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss / 1024  # KiB on Linux
    found = _json_line(text) if proc.returncode == 0 and stopped is None else None
    if found is not None and isinstance(found.get("peak_mb"), int | float):
        peak = float(found["peak_mb"])  # its own VmHWM: ru_maxrss carries the parent's over
    return Measured(found, cpu, peak, proc.returncode, stopped, stderr)


def _wait(pid: int, bounds: Bounds, mark: Mark) -> tuple[int, Any, str | None]:
    """(wait status, rusage, the limit it hit or None), polling with ``wait4`` (never
    ``Popen.poll``, which would reap the child and lose its usage); the memory read is
    the group's tree and what carries ``mark``."""
    deadline = time.monotonic() + bounds.seconds
    polls = 0
    while True:
        done, status, usage = os.wait4(pid, os.WNOHANG)
        if done:
            return status, usage, None
        polls += 1
        stopped = None
        if time.monotonic() > deadline:
            stopped = f"over {bounds.seconds:g} s"
        elif (bounds.memory_mb is not None and polls % MEMORY_EVERY == 0
              and rss_mb(pid, mark) > bounds.memory_mb):
            stopped = f"over {bounds.memory_mb:g} MB"
        if stopped is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)
            _, status, usage = os.wait4(pid, 0)
            return status, usage, stopped
        time.sleep(POLL_S)


def _json_line(lines: list[str]) -> dict[str, Any] | None:
    try:
        found = json.loads(lines[-1]) if lines else None
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
