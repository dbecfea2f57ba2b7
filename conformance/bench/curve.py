"""``rechain bench load --sizes 1,10,100,300``: time and peak memory against file size.

Each (reader, size) runs in a process of its own, so its peak resident memory
(``wait4``'s ``ru_maxrss``) is that reader's on that file alone: the floor (read +
``orjson.loads`` per line), the reference in each profile, and the SDK readers when
installed. The time is the reader's own measurement of the load (CPU for the floor and
the reference, wall for the SDKs; imports never counted). The exponent of each curve
is the least-squares slope of log(value) against log(size): 1 is linear. Every process
runs under limits (``limited``): the SDKs under the bench's ``--sdk-timeout`` and
``--sdk-memory-mb``, rechain's own loads under ``OWN_BOUNDS``; a stopped reader's point
says so and has no figures.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.conformance.bench import limited, sdks
from rechain.conformance.bench.limited import Bounds
from rechain.conformance.bench.synthetic import write_transcript
from rechain.conformance.owned_dirs import owned
from rechain.reference import PROFILES

#: rechain's own loads (floor, reference) end too, if far later than the SDKs: the bench is
#: about them, but a run must not outlive its user's patience or the machine's memory
OWN_BOUNDS = Bounds(3600, limited.default_memory_mb())

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


@dataclass(frozen=True)
class Sample:
    """One reader on one file: seconds, peak resident MiB and the MiB before the load (the
    SDKs' is unknown), or ``stopped`` (the limit it passed) / ``failed`` with no figures."""

    seconds: float | None = None
    peak_mb: float | None = None
    base_mb: float | None = None
    stopped: str | None = None
    failed: str | None = None

    def verdict(self) -> str | None:
        """Why there are no figures, None when there are."""
        if self.stopped is not None:
            return f"{self.stopped} (stopped)"
        return None if self.failed is None else f"failed ({self.failed})"


def _python_reader(kind: str, bounds: Bounds) -> Callable[[Path], Sample | None]:
    def run(path: Path) -> Sample | None:
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(path.parent)}
        done = limited.run([sys.executable, "-c", _CHILD, kind, str(path)], env, bounds)
        if done.found is None:
            return Sample(stopped=done.stopped,
                          failed=None if done.stopped else done.failure())
        return Sample(float(done.found["s"]), done.peak_mb, float(done.found["base_mb"]))
    return run


def _sdk_reader(name: str, bounds: Bounds) -> Callable[[Path], Sample | None]:
    """A real SDK loading the file once (None when it is not installed)."""
    def run(path: Path) -> Sample | None:
        found = sdks.measure(name, path, 1, bounds)
        if found is None:
            return None
        return Sample(found.seconds, found.peak_mb, None, found.stopped, found.failed)
    return run


def readers(bounds: Bounds) -> dict[str, Callable[[Path], Sample | None]]:
    """The floor and each profile: name -> (file -> its ``Sample``), each in a process of
    its own within ``bounds``."""
    found = {"floor": _python_reader("floor", bounds)}
    found.update({name: _python_reader(name, bounds) for name in PROFILES})
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
        kind: str = "linear", bounds: Bounds | None = None) -> dict[str, Any]:
    """Each reader at each size on a synthetic file of ``kind``, then each curve's exponents.

    The SDKs run within ``bounds``; one stopped at a size is not run at the larger sizes
    (it would pass the same limit later), which are recorded as skipped."""
    bounds = bounds or Bounds(memory_mb=limited.default_memory_mb())
    curves = {**readers(OWN_BOUNDS), **{name: _sdk_reader(name, bounds) for name in sdks.SDKS}}
    table: dict[str, list[dict[str, Any]]] = {name: [] for name in curves}
    stopped_at: dict[str, float] = {}
    with owned("rechain-bench-") as tmp:
        for size in sizes_mb:
            path = Path(tmp) / "bench.jsonl"
            write_transcript(path, int(size * 1024 * 1024), seed, kind)
            actual = path.stat().st_size / 1024 / 1024
            for name, reader in curves.items():
                if name in stopped_at and size >= stopped_at[name]:
                    why = f"skipped: stopped at {stopped_at[name]:g} MB"
                    table[name].append({"size_mb": round(actual, 2), "skipped": why})
                    progress(f"{actual:8.1f} MB  {name:22s} {why}")
                    continue
                point = reader(path)
                if point is None:
                    continue
                table[name].append(_row(actual, point))
                progress(f"{actual:8.1f} MB  {name:22s} {_line(actual, point)}")
                if point.stopped is not None:
                    stopped_at[name] = size
    summary: dict[str, Any] = {"sizes_mb": list(sizes_mb), "seed": seed, "kind": kind,
                               "limits": {"sdk": bounds.to_json(),
                                          "floor_and_reference": OWN_BOUNDS.to_json()},
                               "curves": {}}
    for name, points in table.items():
        measured = [p for p in points if "seconds" in p]
        if not points:
            continue
        sizes = [p["size_mb"] for p in measured]
        time_exp = exponent(sizes, [p["seconds"] for p in measured])
        rss_exp = exponent(sizes, [p["peak_rss_mb"] for p in measured])
        summary["curves"][name] = {
            "points": points,
            "time_exponent": None if time_exp is None else round(time_exp, 3),
            "rss_exponent": None if rss_exp is None else round(rss_exp, 3),
        }
        progress(f"{name:22s} time ~ size^{_shown(time_exp)}, peak RSS ~ size^{_shown(rss_exp)}"
                 + ("" if len(measured) == len(points)
                    else f" (from the {len(measured)} sizes it finished)"))
    summary["timing"] = ("each reader and size in its own process; floor/reference: CPU time, "
                         "SDKs: wall time of the call; peak RSS of the whole process")
    return summary


def _row(actual: float, point: Sample) -> dict[str, Any]:
    """A point of the JSON: the figures, or the verdict that replaces them."""
    if point.seconds is None or point.peak_mb is None:
        return {"size_mb": round(actual, 2), "stopped": point.stopped, "failed": point.failed}
    return {"size_mb": round(actual, 2), "seconds": round(point.seconds, 4),
            "peak_rss_mb": round(point.peak_mb, 1),
            "rss_per_file": round(point.peak_mb / actual, 2),
            "base_rss_mb": None if point.base_mb is None else round(point.base_mb, 1)}


def _line(actual: float, point: Sample) -> str:
    verdict = point.verdict()
    if verdict is not None or point.seconds is None or point.peak_mb is None:
        return verdict or "no figures"
    before = "" if point.base_mb is None else f", {point.base_mb:.0f} MB before the load"
    return (f"{point.seconds:9.3f} s  {point.peak_mb:8.1f} MB peak "
            f"({point.peak_mb / actual:.1f}x the file{before})")


def _shown(value: float | None) -> str:
    return "?" if value is None else f"{value:.2f}"
