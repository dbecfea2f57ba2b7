"""The fields Claude Code stamps on every user and assistant row it writes.

A reader may rely on them (``cwd`` for the project, ``version`` for the format,
``userType`` and ``isSidechain`` to pick the rows it shows), so a case whose rows
lack them tests an input no release writes. ``format.md`` §2.1 and §3.3: every
transcript message carries ``isSidechain``, ``userType``, ``cwd``, ``sessionId`` and
``version``; ``gitBranch`` is left out outside a git repository and ``entrypoint``
by releases before it existed, so neither is required here. A case whose subject
is rows without these fields says so with the tag ``missing-fields``.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

STAMPS: tuple[str, ...] = ("parentUuid", "isSidechain", "userType", "cwd", "sessionId", "version")
STAMPED_TYPES = frozenset({"user", "assistant"})
MISSING_FIELDS = "missing-fields"


@dataclass(frozen=True, slots=True)
class Unstamped:
    """One user or assistant row (1-based ``line``) and the stamps it lacks."""

    line: int
    kind: str
    missing: tuple[str, ...]

    def __str__(self) -> str:
        return f"line {self.line}: {self.kind} row without {', '.join(self.missing)}"


def unstamped_rows(data: bytes) -> list[Unstamped]:
    """Every user or assistant row of ``data`` that lacks a stamp.

    Only lines that are a JSON object by strict parsing are looked at: a line that is
    broken on purpose (the subject of a parse case) is not a row Claude Code wrote.
    """
    found = []
    for number, line in enumerate(data.split(b"\n"), start=1):
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        kind = row.get("type") if isinstance(row, dict) else None
        if not isinstance(kind, str) or kind not in STAMPED_TYPES:
            continue
        missing = tuple(name for name in STAMPS if name not in row)
        if missing:
            found.append(Unstamped(number, kind, missing))
    return found
