"""What a transcript must pass before it is committed (``rechain lint-transcript``, the
pre-commit hook): at least one line is a transcript row, the profile's reader rebuilds it
without throwing, and every line is accounted for once, by a message or by a diagnostic
saying what became of it. A file with no row at all (random bytes, prose, an empty file)
has every line diagnosed, so it would pass while it tests nothing: it fails instead.

``strict`` also refuses damage: lines that are not entries (not JSON, not an object, no
uuid), bytes that are not UTF-8, and a chain that stops at a cycle or a missing parent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from rechain.reference.explain import accounted_lines
from rechain.reference.pipeline import rebuild

#: diagnostic kinds ``strict`` refuses (a committed fixture is seldom meant to be torn)
DAMAGE = frozenset({"invalid-json", "not-an-object", "missing-uuid", "invalid-utf8", "cycle",
                    "dangling-parent"})


@dataclass(frozen=True, slots=True)
class Problem:
    """One reason a transcript does not pass; ``line`` is None for the whole file."""

    line: int | None
    kind: str
    detail: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line is not None else "file"
        return f"{where}: {self.kind}: {self.detail}"


def line_total(data: bytes) -> int:
    """Lines as the readers number them: LF-separated, no line after a final LF."""
    return data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)


def _refuse(name: str) -> object:
    raise ValueError(name)  # NaN, Infinity: not JSON to the readers (JavaScript's JSON.parse)


def is_row(line: bytes) -> bool:
    """Whether a line is a transcript row: a JSON object with a string ``type`` (any type,
    loaded or not: a ``summary`` or ``file-history-snapshot`` row is one too)."""
    try:
        value = json.loads(line.decode("utf-8", "replace").lstrip("\ufeff"),
                           parse_constant=_refuse)
    except ValueError:
        return False
    return isinstance(value, dict) and isinstance(value.get("type"), str)


def has_rows(data: bytes) -> bool:
    """Whether any LF-separated line is a transcript row (stops at the first)."""
    return any(is_row(line) for line in data.split(b"\n"))


#: the one-line reason a file without rows fails
NO_ROWS = ("no line is a transcript row (a JSON object with a string \"type\"): the file "
           "tests nothing")


def lint(data: bytes, profile: str = "sdk", *, strict: bool = False) -> list[Problem]:
    """Every problem, in line order; empty when the transcript passes."""
    result = rebuild(data, profile)
    found: list[Problem] = [] if has_rows(data) else [Problem(None, "no-rows", NO_ROWS)]
    if result.error is not None:
        found.append(Problem(None, "reader-error", f"the real reader throws: {result.error}"))
    shown = [message["line"] for message in result.messages]
    diagnosed = accounted_lines(list(result.diagnostics))
    for line in range(1, line_total(data) + 1):
        times = shown.count(line) + (line in diagnosed)
        if times != 1:
            found.append(Problem(line, "unaccounted" if times == 0 else "accounted-twice",
                                 "neither a message nor diagnosed" if times == 0
                                 else f"accounted for {times} times"))
    if strict:
        found += [Problem(d.line, d.kind, d.detail) for d in result.diagnostics
                  if d.kind in DAMAGE]
    return sorted(found, key=lambda p: (p.line or 0, p.kind))
