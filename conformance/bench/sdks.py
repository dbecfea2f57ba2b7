"""The real SDK readers timed on a benchmark's file, each in a process of its own.

Each SDK loads the file laid out as a session in a throwaway config dir (its import is
not timed) and prints its best time and its own peak resident memory after the first
load (one load's peak, as the floor and the reference are measured).
Every such process runs under the bench's ``Bounds``: an SDK that passes the time or
memory limit is stopped and reported as stopped, with no figure.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.conformance.bench.limited import Bounds, run
from rechain.conformance.oracles import registry
from rechain.conformance.owned_dirs import owned
from rechain.reference.sessions import project_dir_name

SESSION_ID = "5e55a1d0-0b1e-4c0d-9e1a-6b2c3d4e5f60"

#: the Python SDK's timer; like the TS one it reads its own peak after the first load
PY_TIMER = """
import os, sys, time, json
os.environ["CLAUDE_CONFIG_DIR"] = sys.argv[1]
from claude_agent_sdk import get_session_messages
def hwm():
    return next(int(r.split()[1]) / 1024 for r in open("/proc/self/status")
                if r.startswith("VmHWM:"))
best, peak = float("inf"), None
for run in range(int(sys.argv[4])):
    t = time.perf_counter()
    m = get_session_messages(sys.argv[3], directory=sys.argv[2])
    best = min(best, time.perf_counter() - t)
    peak = hwm() if run == 0 else peak
print(json.dumps({"s": best, "messages": len(m), "peak_mb": peak}))
"""


def _ts_argv() -> list[str] | None:
    node = shutil.which("node")
    if node is None or not registry.is_installed(registry.AGENT_SDK_TS):
        return None
    script = Path(__file__).resolve().parent.parent / "node" / "time_session_messages.mjs"
    return [node, str(script), str(registry.entry_path(registry.AGENT_SDK_TS))]


def _py_argv() -> list[str] | None:
    if not registry.is_installed(registry.AGENT_SDK_PY):
        return None
    return [str(registry.entry_path(registry.AGENT_SDK_PY)), "-c", PY_TIMER]


@dataclass(frozen=True)
class Sdk:
    """How to time one SDK: its printed name, its timer command (None: not installed;
    the laid-out config dir, project cwd, session id and run count follow it), and its
    best time in seconds from the timer's JSON line."""

    label: str
    argv: Callable[[], list[str] | None]
    seconds: Callable[[dict[str, Any]], float]


SDKS: dict[str, Sdk] = {
    "agent-sdk-ts": Sdk("TS SDK", _ts_argv, lambda found: min(found["ms"]) / 1000),
    "agent-sdk-py": Sdk("Python SDK", _py_argv, lambda found: float(found["s"])),
}


@dataclass(frozen=True)
class SdkRun:
    """One SDK's load of the file: best seconds and peak MiB, or why there are none
    (``stopped``: the limit it passed; ``failed``: how it ended otherwise)."""

    seconds: float | None = None
    peak_mb: float | None = None
    stopped: str | None = None
    failed: str | None = None

    def shown(self, label: str) -> str:
        """The printed verdict: "TS SDK: over 60 s (stopped)" when it gave no figure."""
        if self.stopped is not None:
            return f"{label}: {self.stopped} (stopped)"
        if self.failed is not None:
            return f"{label}: failed ({self.failed})"
        return f"{label}: {self.seconds:.3f}s, {self.peak_mb:.1f} MB peak"


def _place(path: Path, where: Path) -> None:
    """The file at ``where``: a hard link when it can be (the SDKs only read it, and a
    sparse file of NUL bytes stays sparse), else a copy."""
    try:
        where.hardlink_to(path)
    except OSError:
        shutil.copyfile(path, where)


def measure(name: str, path: Path, runs: int, bounds: Bounds) -> SdkRun | None:
    """``name``'s best of ``runs`` loads of ``path`` within ``bounds`` (None: not installed).

    The timer's environment is PATH and a throwaway HOME only."""
    sdk = SDKS[name]
    command = sdk.argv()
    if command is None:
        return None
    with owned("rechain-bench-") as tmp:
        cwd = Path(tmp) / "project"
        cwd.mkdir()
        config = Path(tmp) / "config"
        target = config / "projects" / project_dir_name(str(cwd.resolve()))
        target.mkdir(parents=True)
        _place(path, target / f"{SESSION_ID}.jsonl")
        done = run([*command, str(config), str(cwd), SESSION_ID, str(runs)],
                   {"PATH": "/usr/bin:/bin", "HOME": str(tmp)}, bounds)
    if done.stopped is not None:
        return SdkRun(stopped=done.stopped)
    if done.found is None:
        return SdkRun(failed=done.failure())
    try:
        seconds = sdk.seconds(done.found)
    except (KeyError, TypeError, ValueError):
        return SdkRun(failed=f"no time in its output: {str(done.found)[:200]}")
    return SdkRun(seconds=seconds, peak_mb=done.peak_mb)
