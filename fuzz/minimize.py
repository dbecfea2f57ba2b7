"""Shrinking a failing input while it keeps failing the same way.

After libFuzzer's byte-level minimiser (which does not check that the failure
stays the same), three passes that know the format, each run only while the
predicate ("raises with this signature") still holds: delta debugging over
lines, then over the keys and values of each JSON line, then over the bytes of
lines that are not JSON. The result is the small, readable case a regression
file should hold. Standard library only.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import Any

Predicate = Callable[[bytes], bool]


class Budget:
    """Stops shrinking after ``calls`` predicate runs or ``seconds``, whichever comes first."""

    def __init__(self, predicate: Predicate, calls: int = 20000, seconds: float = 60.0) -> None:
        self.predicate = predicate
        self.calls = calls
        self.deadline = time.monotonic() + seconds

    def left(self) -> bool:
        return self.calls > 0 and time.monotonic() < self.deadline

    def __call__(self, data: bytes) -> bool:
        if not self.left():
            return False
        self.calls -= 1
        return self.predicate(data)


def _join(lines: list[bytes], newline: bool) -> bytes:
    data = b"\n".join(lines)
    return data + b"\n" if newline and lines else data


def ddmin(items: list[Any], holds: Callable[[list[Any]], bool]) -> list[Any]:
    """Zeller's delta debugging: a 1-minimal sublist for which ``holds`` is still true."""
    granularity = 2
    while len(items) >= 2:
        size = max(1, len(items) // granularity)
        chunks = [items[i : i + size] for i in range(0, len(items), size)]
        reduced = False
        for index in range(len(chunks)):
            rest = [x for j, chunk in enumerate(chunks) if j != index for x in chunk]
            if holds(rest):
                items, granularity, reduced = rest, max(granularity - 1, 2), True
                break
        if not reduced:
            if granularity >= len(items):
                break
            granularity = min(len(items), granularity * 2)
    if len(items) == 1 and holds([]):
        return []
    return items


def _encode(value: Any) -> bytes | None:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except (UnicodeEncodeError, ValueError, RecursionError):
        try:
            return json.dumps(value, separators=(",", ":")).encode("ascii")
        except (ValueError, RecursionError):
            return None


def _simpler_values(value: Any) -> list[Any]:
    """Smaller stand-ins for a JSON value, most drastic first."""
    if type(value) is str:
        return [""] if value else []
    if type(value) is list:
        return [[], *([value[:1]] if len(value) > 1 else [])]
    if type(value) is dict:
        return [{}] if value else []
    if type(value) in (int, float) and value not in (0, 1):
        return [0, 1]
    return []


def _shrink_json(lines: list[bytes], at: int, newline: bool, fails: Budget) -> None:
    """Delete keys and simplify values of line ``at`` (top level, then one level down)."""
    try:
        value = json.loads(lines[at].decode("utf-8"))
    except (ValueError, RecursionError):
        return
    if type(value) is not dict:
        return

    def attempt() -> bool:
        encoded = _encode(value)
        if encoded is None or encoded == lines[at]:
            return False
        candidate = [*lines[:at], encoded, *lines[at + 1 :]]
        if fails(_join(candidate, newline)):
            lines[at] = encoded
            return True
        return False

    containers: list[dict[str, Any]] = [value]
    while containers and fails.left():
        node = containers.pop(0)
        for key in list(node):
            held = node.pop(key)
            if attempt():
                continue
            node[key] = held
            for smaller in _simpler_values(held):
                node[key] = smaller
                if attempt():
                    held = smaller
                    break
                node[key] = held
            if type(node[key]) is dict:
                containers.append(node[key])
            elif type(node[key]) is list:
                containers.extend(x for x in node[key] if type(x) is dict)


def _is_object(line: bytes) -> bool:
    try:
        return type(json.loads(line.decode("utf-8"))) is dict
    except (ValueError, RecursionError):
        return False


def _shrink_bytes(lines: list[bytes], at: int, newline: bool, fails: Budget) -> None:
    """Byte-level delta debugging on one line that is not a JSON object."""
    if len(lines[at]) > 4096:
        return

    def holds(kept: list[int]) -> bool:
        candidate = [*lines[:at], bytes(kept), *lines[at + 1 :]]
        return fails(_join(candidate, newline))

    lines[at] = bytes(ddmin(list(lines[at]), holds))


def shrink(data: bytes, predicate: Predicate, calls: int = 20000, seconds: float = 60.0) -> bytes:
    """The smallest input found that still satisfies ``predicate`` (``data`` itself if none)."""
    fails = Budget(predicate, calls, seconds)
    if not fails(data):
        return data
    newline = data.endswith(b"\n")
    lines = data.split(b"\n")
    if newline:
        lines.pop()
    lines = ddmin(lines, lambda kept: fails(_join(kept, newline)))
    for at in range(len(lines)):
        _shrink_json(lines, at, newline, fails)
    lines = ddmin(lines, lambda kept: fails(_join(kept, newline)))
    for at in range(len(lines)):
        if not _is_object(lines[at]):
            _shrink_bytes(lines, at, newline, fails)
    result = _join(lines, newline)
    return result if len(result) <= len(data) else data
