"""``rechain bench load``: the reference's full load against the cost of just parsing.

The floor is reading the file and ``orjson.loads`` of every line: no loader can
do less. The ratio reference / floor says what the rest of the pipeline costs.
``retain`` (informational, not the floor) is the floor keeping every parsed value
until the end, as any loader that returns messages must.
The real SDK readers are timed on the same file when they are installed (their
import is not timed; each laid out in a throwaway config dir).
"""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from rechain.conformance.bench.synthetic import write_transcript
from rechain.conformance.oracles import registry
from rechain.reference import PROFILES, rebuild
from rechain.reference.profiles import get_profile
from rechain.reference.sessions import project_dir_name

SDK_PROFILE = get_profile("sdk").name
SESSION_ID = "5e55a1d0-0b1e-4c0d-9e1a-6b2c3d4e5f60"


def _interleaved(runs: int, *works: Callable[[], Any]) -> list[tuple[float, Any]]:
    """Best CPU time of each work over ``runs`` rounds, the works alternating.

    CPU time of this (single-threaded) process, not wall time, and alternating
    rounds: on a shared, noisy machine both sides of a ratio see the same weather.
    """
    best = [float("inf")] * len(works)
    results: list[Any] = [None] * len(works)
    for _ in range(runs):
        for index, work in enumerate(works):
            results[index] = None  # free the last round's result outside the timing
            started = time.process_time()
            results[index] = work()
            best[index] = min(best[index], time.process_time() - started)
    return list(zip(best, results, strict=True))


def _floor(path: Path) -> int:
    data = path.read_bytes()
    loads, refused = orjson.loads, orjson.JSONDecodeError
    count = 0
    for line in data.split(b"\n"):
        if line:
            try:  # noqa: SIM105 (a context manager per line would weigh on the floor)
                loads(line)
            except refused:
                pass
            count += 1
    return count


def _retain(path: Path) -> int:
    """The floor, but every parsed line kept until the end, then freed (not the floor).

    Any loader that returns messages keeps its entries alive. Keeping ~100 MB of
    fresh objects costs cache misses, page faults and a final free that the floor
    (each value dropped at once, its memory reused) never pays; this shows how
    much of the reference's time that alone is.
    """
    data = path.read_bytes()
    loads = orjson.loads
    kept = [_loads_or_none(loads, line) for line in data.split(b"\n") if line]
    count = len(kept)
    del kept
    return count


def _loads_or_none(loads: Callable[[bytes], Any], line: bytes) -> Any:
    try:
        return loads(line)
    except orjson.JSONDecodeError:
        return None


def _reference(path: Path, profile: str) -> int:
    """Messages a profile returns, each read once (a message may be built as it is read)."""
    return sum(1 for _ in rebuild(path.read_bytes(), profile=profile).messages)


def _timer_output(path: Path, command: list[str], runs: int) -> dict[str, Any] | None:
    """Run a timer in its own process on a laid-out copy; its JSON line, or None if it failed.

    The command gets the config dir, the project cwd, the session id and the run count
    as its last arguments; its environment is PATH and a throwaway HOME only. The JSON
    gets ``peak_rss_mb``, the process's peak resident memory.
    """
    with tempfile.TemporaryDirectory(prefix="rechain-bench-") as tmp:
        cwd = Path(tmp) / "project"
        cwd.mkdir()
        config = Path(tmp) / "config"
        target = config / "projects" / project_dir_name(str(cwd.resolve()))
        target.mkdir(parents=True)
        shutil.copyfile(path, target / f"{SESSION_ID}.jsonl")
        from rechain.conformance.bench.curve import measured_process

        found, _, peak = measured_process(
            [*command, str(config), str(cwd), SESSION_ID, str(runs)],
            {"PATH": "/usr/bin:/bin", "HOME": tmp}, timeout=1800)
    return None if found is None else {**found, "peak_rss_mb": peak}


def _time_ts_sdk(path: Path, runs: int) -> float | None:
    spec = registry.AGENT_SDK_TS
    node = shutil.which("node")
    if not registry.is_installed(spec) or node is None:
        return None
    script = Path(__file__).resolve().parent.parent / "node" / "time_session_messages.mjs"
    timed = _timer_output(path, [node, str(script), str(registry.entry_path(spec))], runs)
    return None if timed is None else min(timed["ms"]) / 1000


_PY_TIMER = """
import os, sys, time, json
os.environ["CLAUDE_CONFIG_DIR"] = sys.argv[1]
from claude_agent_sdk import get_session_messages
best = float("inf")
for _ in range(int(sys.argv[4])):
    t = time.perf_counter()
    m = get_session_messages(sys.argv[3], directory=sys.argv[2])
    best = min(best, time.perf_counter() - t)
peak = next(int(r.split()[1]) / 1024 for r in open("/proc/self/status") if r.startswith("VmHWM:"))
print(json.dumps({"s": best, "messages": len(m), "peak_mb": peak}))
"""


def _time_py_sdk(path: Path, runs: int) -> float | None:
    spec = registry.AGENT_SDK_PY
    if not registry.is_installed(spec):
        return None
    timed = _timer_output(path, [str(registry.entry_path(spec)), "-c", _PY_TIMER], runs)
    return None if timed is None else float(timed["s"])


def _peaks(path: Path) -> dict[str, float]:
    """Peak resident memory (MB) of the floor, each profile and the SDKs on the file, each
    loading it once in a process of its own."""
    from rechain.conformance.bench.curve import readers

    peaks = {}
    for name, reader in readers().items():
        point = reader(path)
        if point is not None:
            peaks[name] = round(point[1], 1)
    return peaks


def run(size_mb: float, runs: int, seed: int, keep: Path | None,
        kind: str = "linear") -> dict[str, Any]:
    """Generate, measure, print lines as it goes; returns the summary object."""
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="rechain-bench-") as tmp:
        path = Path(keep) if keep else Path(tmp) / "bench.jsonl"
        write_transcript(path, int(size_mb * 1024 * 1024), seed, kind)
        print(f"generated {kind}: {path.stat().st_size / 1e6:.1f} MB "
              f"in {time.perf_counter() - started:.1f}s", file=sys.stderr)
        names = sorted(PROFILES, key=lambda name: name != SDK_PROFILE)  # the SDK's first
        timed = _interleaved(
            runs, lambda: _floor(path), lambda: _retain(path),
            *(lambda name=name: _reference(path, name) for name in names),
        )
        (floor_s, lines), (retain_s, _), *profiles = timed
        reference_s, messages = profiles[0]
        print(
            f"floor (read + orjson.loads per line): {floor_s:.3f}s CPU, {lines} lines",
            file=sys.stderr,
        )
        print(
            f"retain (the floor keeping every value until the end): {retain_s:.3f}s CPU",
            file=sys.stderr,
        )
        for name, (seconds, count) in zip(names, profiles, strict=True):
            print(f"reference ({name}): {seconds:.3f}s CPU, {seconds / floor_s:.2f}x the floor, "
                  f"{count} messages", file=sys.stderr)
        summary: dict[str, Any] = {
            "kind": kind,
            "size_mb": round(path.stat().st_size / 1024 / 1024, 1),
            "lines": lines,
            "messages": messages,
            "floor_s": round(floor_s, 4),
            "reference_s": round(reference_s, 4),
            "ratio": round(reference_s / floor_s, 3),
            "retain_s": round(retain_s, 4),
            "retain_ratio": round(retain_s / floor_s, 3),
            "profiles": {
                name: {"s": round(seconds, 4), "ratio": round(seconds / floor_s, 3),
                       "messages": count}
                for name, (seconds, count) in zip(names, profiles, strict=True)
            },
        }
        summary["peak_rss_mb"] = _peaks(path)
        print(f"peak RSS, each in its own process: {summary['peak_rss_mb']} MB "
              f"({summary['size_mb']} MB file)", file=sys.stderr)
        for name, timer in (("ts_sdk_s", _time_ts_sdk), ("py_sdk_s", _time_py_sdk)):
            seconds = timer(path, runs)
            if seconds is not None:
                summary[name] = round(seconds, 4)
                summary[name.removesuffix("_s") + "_vs_reference"] = round(seconds / reference_s, 2)
                print(f"{name}: {seconds:.3f}s", file=sys.stderr)
    summary["runs"] = runs
    summary["timing"] = (
        "best of runs; floor/reference: CPU time, alternating; SDKs: wall time in their own process"
    )
    return summary


def main_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, sort_keys=True)
