"""Where a profile's load goes: a timer around each of its stage slots (``--stages``).

A ratio to the floor says how far a profile is from a target, not why. This times the
same load as ``rechain bench load`` (the file read, ``rebuild``, each message read once)
with each stage slot of the profile wrapped in a CPU timer, and the driver's own work
(indexing, accounting for every line) as what the slots leave of the ``rebuild``. The
driver is not changed: the profile record is, one wrapped callable per slot.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

from rechain.reference import rebuild
from rechain.reference.profiles import get_profile
from rechain.reference.stages import Profile

SLOTS = ("read", "parse", "relink", "choose_leaf", "walk", "recover", "present")
FILE_READ, DRIVER, MESSAGES, TOTAL = "file read", "driver", "messages read", "total"
DIAGNOSTICS = "diagnostics read"
#: what each row holds, for the printed table and the JSON summary
MEANING = {
    FILE_READ: "the file's bytes read (the floor reads them too)",
    "read": "the read slot: which lines the reader looks at (a whole loader for some)",
    "parse": "the parse slot: lines to rows and their facts",
    DRIVER: "the driver between the slots: the graph index, every line accounted for",
    MESSAGES: "each returned message built and read once",
    DIAGNOSTICS: "every line's finding, worked out when first read (after the total: a "
                 "caller that reads only the messages never pays it)",
}


def _timed(name: str, stage: Callable[..., Any], spent: dict[str, float]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        started = time.process_time()
        try:
            return stage(*args, **kwargs)
        finally:
            spent[name] += time.process_time() - started

    return timed


def timed_profile(profile: Profile, spent: dict[str, float]) -> Profile:
    """``profile`` with each stage slot's CPU seconds added to ``spent`` under its name."""
    for name in SLOTS:
        spent.setdefault(name, 0.0)
    return replace(profile, **{name: _timed(name, getattr(profile, name), spent)
                               for name in SLOTS})


def one_load(path: Path, profile: Profile) -> dict[str, float]:
    """CPU seconds of each part of one load of ``path``, their ``total``, and then the
    diagnostics read."""
    spent: dict[str, float] = {}
    timed = timed_profile(profile, spent)
    started = time.process_time()
    data = path.read_bytes()
    read_at = time.process_time()
    result = rebuild(data, timed)
    built_at = time.process_time()
    for _ in result.messages:
        pass
    done = time.process_time()
    len(result.diagnostics)
    explained = time.process_time()
    return {FILE_READ: read_at - started, **spent,
            DRIVER: max(0.0, built_at - read_at - sum(spent.values())),
            MESSAGES: done - built_at, TOTAL: done - started, DIAGNOSTICS: explained - done}


def breakdown(path: Path, profile_name: str, runs: int) -> dict[str, float]:
    """The parts of the fastest of ``runs`` loads (one round's parts, so they sum to its
    total rather than mixing rounds)."""
    profile = get_profile(profile_name)
    return min((one_load(path, profile) for _ in range(max(1, runs))), key=lambda r: r[TOTAL])


def table(parts: dict[str, dict[str, float]], floor_s: float) -> list[str]:
    """One line per part: each profile's CPU seconds and x the floor, side by side."""
    names = list(parts)
    rows = [FILE_READ, *SLOTS, DRIVER, MESSAGES, TOTAL, DIAGNOSTICS]
    width = max(map(len, rows)) + 2
    lines = ["where the time goes (CPU s and x the floor, the fastest of the rounds):",
             " " * width + "  ".join(f"{name:>24}" for name in names)]
    for row in rows:
        cells = (f"{parts[n][row]:.3f} s {parts[n][row] / floor_s:5.2f}x" for n in names)
        lines.append(f"{row:<{width}}" + "  ".join(f"{cell:>24}" for cell in cells))
    lines += [f"  {row}: {meaning}" for row, meaning in MEANING.items()]
    return lines
