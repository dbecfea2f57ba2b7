"""``rechain bench load --sizes 1,10,100,300``: time and peak memory against file size.

Each (reader, size) runs in a process of its own, so its peak resident memory
(``wait4``'s ``ru_maxrss``) is that reader's on that file alone: the floor (read +
``orjson.loads`` per line), the reference in each profile, and the SDK readers when
installed. The time is the reader's own measurement of the load (CPU for the floor and
the reference, wall for the SDKs; imports never counted). The exponent of each curve
is the least-squares slope of log(value) against log(size): 1 is linear.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rechain.conformance.bench.synthetic import write_transcript
from rechain.conformance.oracles import registry
from rechain.reference import PROFILES

#: the in-process loads, run by ``python -m rechain.conformance.bench.curve KIND PATH``
_CHILD = """
import json, sys, time
kind, path = sys.argv[1], sys.argv[2]
import orjson
from rechain.reference import rebuild
def hwm():  # this process's own peak (ru_maxrss would include its parent's at fork)
    for row in open("/proc/self/status"):
        if row.startswith("VmHWM:"):
            return int(row.split()[1]) / 1024
base = hwm()
started = time.process_time()
if kind == "floor":
    data = open(path, "rb").read()
    count = 0
    for line in data.split(b"\\n"):
        if line:
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:
                pass
            count += 1
else:
    # each message read once, as ``rechain rebuild`` writes them (a message may be built
    # only as it is read)
    count = sum(1 for _ in rebuild(open(path, "rb").read(), profile=kind).messages)
print(json.dumps({"s": time.process_time() - started, "count": count, "base_mb": base,
                  "peak_mb": hwm()}))
"""


def measured_process(argv: Sequence[str], env: dict[str, str], cwd: str | None = None,
                     timeout: float = 3600) -> tuple[dict[str, Any] | None, float, float]:
    """(its JSON line or None, CPU seconds, peak RSS in MB) of one child process.

    The peak is the ``peak_mb`` the child reports (its ``VmHWM``) when it does: Linux
    carries the parent's ``ru_maxrss`` at fork over into the child's, so ``wait4``'s
    figure is only an upper bound."""
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(list(argv), stdout=out, stderr=subprocess.DEVNULL, env=env,
                                cwd=cwd)
        deadline = time.monotonic() + timeout
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                _, status, usage = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        text = out.read().decode("utf-8", "replace").strip().splitlines()
    cpu = usage.ru_utime + usage.ru_stime
    peak = usage.ru_maxrss / 1024  # KB on Linux
    try:
        found = json.loads(text[-1]) if proc.returncode == 0 and text else None
    except ValueError:
        found = None
    if isinstance(found, dict) and isinstance(found.get("peak_mb"), int | float):
        peak = float(found["peak_mb"])
    return found, cpu, peak


Point = tuple[float, float, float | None]  # seconds, peak RSS MB, RSS MB before the load


def _python_reader(kind: str) -> Callable[[Path], Point | None]:
    def run(path: Path) -> Point | None:
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(path.parent)}
        found, _, peak = measured_process([sys.executable, "-c", _CHILD, kind, str(path)], env)
        return None if found is None else (float(found["s"]), peak, float(found["base_mb"]))
    return run


def _laid_out_reader(argv: Callable[[], list[str] | None], seconds: Callable[[dict[str, Any]],
                     float]) -> Callable[[Path], Point | None]:
    """A real SDK timed on a copy of the file laid out in a throwaway config dir."""
    from rechain.conformance.bench.load import _timer_output

    def run(path: Path) -> Point | None:
        command = argv()
        found = None if command is None else _timer_output(path, command, 1)
        return None if found is None else (seconds(found), float(found["peak_rss_mb"]), None)
    return run


def _ts_argv() -> list[str] | None:
    node = shutil.which("node")
    if node is None or not registry.is_installed(registry.AGENT_SDK_TS):
        return None
    script = Path(__file__).resolve().parent.parent / "node" / "time_session_messages.mjs"
    return [node, str(script), str(registry.entry_path(registry.AGENT_SDK_TS))]


def _py_argv() -> list[str] | None:
    from rechain.conformance.bench.load import _PY_TIMER

    if not registry.is_installed(registry.AGENT_SDK_PY):
        return None
    return [str(registry.entry_path(registry.AGENT_SDK_PY)), "-c", _PY_TIMER]


def readers() -> dict[str, Callable[[Path], Point | None]]:
    """Every curve: name -> (file -> its ``Point``, or None when unavailable)."""
    found: dict[str, Callable[[Path], Point | None]] = {"floor": _python_reader("floor")}
    found.update({name: _python_reader(name) for name in PROFILES})
    found["agent-sdk-ts"] = _laid_out_reader(_ts_argv, lambda r: min(r["ms"]) / 1000)
    found["agent-sdk-py"] = _laid_out_reader(_py_argv, lambda r: float(r["s"]))
    return found


def exponent(sizes: Sequence[float], values: Sequence[float]) -> float | None:
    """Least-squares slope of log(value) on log(size); None with fewer than two points."""
    points = [(math.log(s), math.log(v)) for s, v in zip(sizes, values, strict=True) if v > 0]
    if len(points) < 2:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    spread = sum((x - mean_x) ** 2 for x, _ in points)
    if spread == 0:
        return None
    return sum((x - mean_x) * (y - mean_y) for x, y in points) / spread


def run(sizes_mb: Sequence[float], seed: int, progress: Callable[[str], None],
        kind: str = "linear") -> dict[str, Any]:
    """Each reader at each size on a synthetic file of ``kind``, then each curve's exponents."""
    curves = readers()
    table: dict[str, list[dict[str, Any]]] = {name: [] for name in curves}
    with tempfile.TemporaryDirectory(prefix="rechain-bench-") as tmp:
        for size in sizes_mb:
            path = Path(tmp) / "bench.jsonl"
            write_transcript(path, int(size * 1024 * 1024), seed, kind)
            actual = path.stat().st_size / 1024 / 1024
            for name, reader in curves.items():
                point = reader(path)
                if point is None:
                    continue
                seconds, peak, base = point
                table[name].append({"size_mb": round(actual, 2), "seconds": round(seconds, 4),
                                    "peak_rss_mb": round(peak, 1),
                                    "rss_per_file": round(peak / actual, 2),
                                    "base_rss_mb": None if base is None else round(base, 1)})
                before = "" if base is None else f", {base:.0f} MB before the load"
                progress(f"{actual:8.1f} MB  {name:22s} {seconds:9.3f} s  {peak:8.1f} MB peak "
                         f"({peak / actual:.1f}x the file{before})")
    summary: dict[str, Any] = {"sizes_mb": list(sizes_mb), "seed": seed, "kind": kind,
                               "curves": {}}
    for name, points in table.items():
        if not points:
            continue
        sizes = [p["size_mb"] for p in points]
        time_exp = exponent(sizes, [p["seconds"] for p in points])
        rss_exp = exponent(sizes, [p["peak_rss_mb"] for p in points])
        summary["curves"][name] = {
            "points": points,
            "time_exponent": None if time_exp is None else round(time_exp, 3),
            "rss_exponent": None if rss_exp is None else round(rss_exp, 3),
        }
        progress(f"{name:22s} time ~ size^{_shown(time_exp)}, peak RSS ~ size^{_shown(rss_exp)}")
    summary["timing"] = ("each reader and size in its own process; floor/reference: CPU time, "
                         "SDKs: wall time of the call; peak RSS of the whole process")
    return summary


def _shown(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"
