"""What the load and oracle benchmarks aim at, and how far a run's figures are from it.

The targets are data (``LOAD`` by kind of file, ``ORACLES``); each is read off the
summary a bench prints, so the last lines of a run say, figure by figure, how it
stands: the measured value, the target and their ratio. A figure a run does not have
(an SDK not installed, or stopped at its limit) is said to be missing, never guessed.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from rechain.reference.profiles import get_profile

Reading = Callable[[dict[str, Any]], float | None]  # summary -> the figure, None: not measured


@dataclass(frozen=True)
class Target:
    """One aim: ``what`` it asks (printed), ``bound``, and whether the figure must stay at
    or under it (``at_most``) or reach it; ``unit`` follows each figure printed."""

    what: str
    read: Reading
    bound: float
    at_most: bool
    unit: str = ""

    def check(self, summary: dict[str, Any]) -> dict[str, Any]:
        """The verdict as data: the figure, the bound, figure / bound, and met or not."""
        figure = self.read(summary)
        if figure is None:
            return {"target": self.what, "bound": self.bound, "measured": None, "met": None}
        met = figure <= self.bound if self.at_most else figure >= self.bound
        return {"target": self.what, "bound": self.bound, "measured": round(figure, 3),
                "of_target": round(figure / self.bound, 3), "met": met}

    def line(self, verdict: dict[str, Any], why_missing: str = "not measured") -> str:
        if verdict["measured"] is None:
            return f"target {self.what}: {why_missing}"
        return (f"target {self.what}: {verdict['measured']:g}{self.unit}, "
                f"{verdict['of_target']:.2f} of the target, "
                + ("met" if verdict["met"] else "not met"))


def _sdk_ratio(key: str) -> Reading:
    return lambda s: s.get(f"{key}_vs_reference")


def _worst_peak_per_file(summary: dict[str, Any]) -> float | None:
    peaks = [summary["peak_rss_mb"].get(name) for name in summary["profiles"]]
    known = [p for p in peaks if p is not None]
    return max(known) / summary["size_mb"] if known and summary["size_mb"] else None


def _worst_peak_over_file(summary: dict[str, Any]) -> float | None:
    peaks = [summary["peak_rss_mb"].get(name) for name in summary["profiles"]]
    known = [p for p in peaks if p is not None]
    return max(known) - summary["size_mb"] if known else None


def _sdk_profile_ratio(summary: dict[str, Any]) -> float:
    return float(summary["profiles"][get_profile("sdk").name]["ratio"])


def _worst_ratio(summary: dict[str, Any]) -> float:
    return max(float(p["ratio"]) for p in summary["profiles"].values())


def _worst_seconds(summary: dict[str, Any]) -> float:
    return max(float(p["s"]) for p in summary["profiles"].values())


FASTER = [Target("at least 2x faster than the TS SDK", _sdk_ratio("ts_sdk"), 2, False, "x"),
          Target("at least 2x faster than the Python SDK", _sdk_ratio("py_sdk"), 2, False, "x")]

#: the load benchmark's targets for each kind of file (ratios: the load / the floor)
LOAD: dict[str, Sequence[Target]] = {
    "linear": [Target("SDK profile <= 1.5x the floor", _sdk_profile_ratio, 1.5, True, "x"),
               Target("every profile <= 2x the floor", _worst_ratio, 2, True, "x"),
               *FASTER],
    "mostly-dead": [Target("SDK profile below the floor", _sdk_profile_ratio, 1, True, "x"),
                    Target("every profile <= 2x the floor", _worst_ratio, 2, True, "x"),
                    *FASTER],
    "compacted": [Target("SDK profile below the floor", _sdk_profile_ratio, 1, True, "x"),
                  Target("every profile <= 2x the floor", _worst_ratio, 2, True, "x"),
                  *FASTER],
    "chain": [Target("every profile's peak <= 3x the file", _worst_peak_per_file, 3, True,
                     "x")],
    "nul": [Target("every profile's peak <= the file + 200 MB", _worst_peak_over_file, 200,
                   True, " MB over the file"),
            Target("every profile's load <= 5 s", _worst_seconds, 5, True, " s CPU")],
}


def _best_batched(reader: str, field: str) -> Reading:
    def read(summary: dict[str, Any]) -> float | None:
        found = [row[field] for row in summary["rows"] if row["reader"].startswith(reader)
                 and row["mode"] == "batched" and row.get(field) is not None]
        return max(found) if found else None
    return read


def _cli_share(summary: dict[str, Any]) -> float | None:
    rows = [row for row in summary["rows"] if row["reader"].startswith("claude-code")]
    if not rows:
        return None
    return max(rows, key=lambda row: row["jobs"])["of_cores_bound"] * 100


#: the oracle benchmark's targets: cases/s the cores allow (cores / CPU a case, so a
#: shared machine's load does not count against the reader), and the CLI's share of it
ORACLES: Sequence[Target] = [
    Target("TS SDK batched >= 1000 cases/s (what the cores allow)",
           _best_batched("agent-sdk-ts", "cores_bound"), 1000, False, "/s"),
    Target("Python SDK batched >= 1000 cases/s (what the cores allow)",
           _best_batched("agent-sdk-py", "cores_bound"), 1000, False, "/s"),
    Target("CLI >= 80 % of what the cores allow (most jobs)", _cli_share, 80, False, " %"),
]


def verdicts(targets: Sequence[Target], summary: dict[str, Any],
             progress: Callable[[str], None], missing: dict[str, str] | None = None
             ) -> list[dict[str, Any]]:
    """Each target's verdict, printed through ``progress``; ``missing`` maps a phrase of a
    target (e.g. "TS SDK") to why its figure is not there ("over 120 s (stopped)")."""
    found = []
    for target in targets:
        verdict = target.check(summary)
        why = next((reason for phrase, reason in (missing or {}).items()
                    if phrase in target.what), "not measured")
        progress(target.line(verdict, why))
        found.append(verdict)
    return found
