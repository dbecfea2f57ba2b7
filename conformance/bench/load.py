"""``rechain bench load``: the reference's full load against the cost of just parsing.

The floor is reading the file and ``orjson.loads`` of every line: no loader can
do less. The ratio reference / floor says what the rest of the pipeline costs.
``retain`` (informational, not the floor) is the floor keeping every parsed value
until the end, as any loader that returns messages must.
The real SDK readers are timed on the same file when they are installed (``sdks``:
their import is not timed; each laid out in a throwaway config dir), each stopped at a
time and a memory limit (``limited``) and then reported as stopped, without a figure.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

from rechain.conformance.bench import sdks, stages, targets
from rechain.conformance.bench.limited import Bounds, default_memory_mb
from rechain.conformance.bench.synthetic import write_transcript
from rechain.conformance.owned_dirs import owned
from rechain.reference import PROFILES, parse, rebuild
from rechain.reference.profiles import get_profile

SDK_PROFILE = get_profile("sdk").name


def glance_in_use() -> str:
    """Which glance the SDK parser runs: its figures differ by a fifth of the floor."""
    if parse.native_glance is not None:
        return "in C (reference/_glance.c)"
    return ("in Python: the C module is not built (installing rechain where a C compiler "
            "and Python's headers are builds it)")


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
    """Messages a profile returns, each read once (a message may be built as it is read), as
    a reader returns them; the diagnostics are worked out when read, not here (``--stages``
    prints what reading them adds)."""
    return sum(1 for _ in rebuild(path.read_bytes(), profile=profile).messages)


def _peaks(path: Path) -> tuple[dict[str, float], dict[str, str]]:
    """Peak resident memory (MB) of the floor and each profile on the file, each loading it
    once in a process of its own; and why any gave none."""
    from rechain.conformance.bench.curve import OWN_BOUNDS, readers

    peaks: dict[str, float] = {}
    missing: dict[str, str] = {}
    for name, reader in readers(OWN_BOUNDS).items():
        point = reader(path)
        if point is None:
            continue
        if point.peak_mb is None:
            missing[name] = point.verdict() or "no figures"
        else:
            peaks[name] = round(point.peak_mb, 1)
    return peaks, missing


def _sdks(path: Path, runs: int, bounds: Bounds, reference_s: float,
          summary: dict[str, Any]) -> None:
    """Each installed SDK's best load and peak memory (its own process, within ``bounds``)
    into ``summary``, with its ratio to the reference; a stopped one gets its limit in
    ``stopped`` and no figure."""
    for name, sdk in sdks.SDKS.items():
        found = sdks.measure(name, path, runs, bounds)
        if found is None:
            continue
        key = "ts_sdk" if name == "agent-sdk-ts" else "py_sdk"
        line = found.shown(sdk.label)
        if found.seconds is not None and found.peak_mb is not None:
            summary[f"{key}_s"] = round(found.seconds, 4)
            summary[f"{key}_vs_reference"] = round(found.seconds / reference_s, 2)
            summary["peak_rss_mb"][name] = round(found.peak_mb, 1)
            line += f", {found.seconds / reference_s:.2f}x the reference ({reference_s:.3f}s CPU)"
        else:
            summary.setdefault("stopped" if found.stopped else "failed", {})[name] = (
                found.stopped or found.failed)
            line += f"; the reference: {reference_s:.3f}s CPU"
        print(line, file=sys.stderr, flush=True)


def run(size_mb: float, runs: int, seed: int, keep: Path | None,
        kind: str = "linear", bounds: Bounds | None = None,
        by_stage: bool = False) -> dict[str, Any]:
    """Generate, measure, print lines as it goes; returns the summary object. Each SDK
    process runs within ``bounds`` (default: ``DEFAULT_TIMEOUT_S``, half the memory).
    ``by_stage``: also each profile's load stage by stage (``stages``), as x the floor."""
    bounds = bounds or Bounds(memory_mb=default_memory_mb())
    started = time.perf_counter()
    with owned("rechain-bench-") as tmp:
        path = Path(keep) if keep else Path(tmp) / "bench.jsonl"
        write_transcript(path, int(size_mb * 1024 * 1024), seed, kind)
        print(f"generated {kind}: {path.stat().st_size / 1e6:.1f} MB "
              f"in {time.perf_counter() - started:.1f}s", file=sys.stderr)
        print(f"the SDK parser's glance: {glance_in_use()}", file=sys.stderr)
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
            "glance": "c" if parse.native_glance is not None else "python",
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
        if by_stage:
            parts = {name: stages.breakdown(path, name, runs) for name in names}
            for line in stages.table(parts, floor_s):
                print(line, file=sys.stderr)
            summary["stages"] = {name: {row: round(s, 4) for row, s in found.items()}
                                 for name, found in parts.items()}
        summary["peak_rss_mb"], missing = _peaks(path)
        if missing:
            summary["failed"] = missing
        print(f"peak RSS, each in its own process: {summary['peak_rss_mb']} MB "
              f"({summary['size_mb']} MB file)"
              + "".join(f"; {name}: {why}" for name, why in missing.items()), file=sys.stderr)
        print(f"SDKs: each stopped past {bounds.seconds:g} s"
              + ("" if bounds.memory_mb is None else f" or {bounds.memory_mb:g} MB resident"),
              file=sys.stderr, flush=True)
        _sdks(path, runs, bounds, reference_s, summary)
        why = {sdks.SDKS[name].label: f"{reason} ({outcome})"
               for outcome in ("stopped", "failed")
               for name, reason in summary.get(outcome, {}).items() if name in sdks.SDKS}
        summary["targets"] = targets.verdicts(
            targets.LOAD[kind], summary, lambda text: print(text, file=sys.stderr, flush=True),
            why)
    summary["runs"] = runs
    summary["limits"] = {"sdk": bounds.to_json()}
    summary["timing"] = (
        "best of runs; floor/reference: CPU time, alternating; SDKs: wall time and peak RSS of "
        "their own process (one per SDK, stopped at the limits)"
    )
    return summary


def main_json(summary: dict[str, Any]) -> str:
    return json.dumps(summary, sort_keys=True)
