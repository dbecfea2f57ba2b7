"""The trigger of a failing input: which known kind of odd entry makes it fail.

Two inputs can fail at the same site for different reasons (agent-history
compares a zone-less timestamp and a missing one, each against an aware one,
on the same line), and a reader's author needs both cases. A finding is
therefore kept per signature *and* trigger, and shrinking keeps the trigger,
so each reason ends as its own minimal case. A trigger must be the cause,
not a bystander: an input that fails on a non-object line and also holds a
``message: null`` entry is tried again with that entry repaired, and only
if the failure goes away is ``message-null`` its trigger (``causal``).
Only failing inputs are classified, so the cost is off the hot path.
Standard library only: this runs inside a third-party reader's venv.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

#: priority order: the first trigger an input holds is the one it is filed under
TRIGGERS = (
    "message-null",
    "message-not-object",
    "content-number",
    "timestamp-no-zone",
    "timestamp-missing",
    "non-object-line",
)
_MESSAGE_TYPES = frozenset(("user", "assistant"))
_ZONE = re.compile(r"(Z|[+-]\d\d:?\d\d)$")
_DATE = re.compile(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d")
_STAMP = "2026-01-01T00:00:00.000Z"


def _entry_traits(entry: dict[str, Any], found: set[str]) -> None:
    if "message" in entry:
        message = entry["message"]
        if message is None:
            found.add("message-null")
        elif type(message) is not dict:
            found.add("message-not-object")
        elif type(message.get("content")) in (int, float):
            found.add("content-number")
    kind = entry.get("type")
    if type(kind) is not str or kind not in _MESSAGE_TYPES:
        return
    stamp = entry.get("timestamp")
    if "timestamp" not in entry:
        found.add("timestamp-missing")
    elif type(stamp) is str and _DATE.match(stamp) and not _ZONE.search(stamp):
        found.add("timestamp-no-zone")


def traits(data: bytes) -> set[str]:
    """Every trigger the input holds (lines that are not JSON hold none)."""
    found: set[str] = set()
    for line in data.split(b"\n"):
        if not line.strip():
            continue
        try:  # strict UTF-8: json.loads(bytes) would let encoded surrogates through
            value = json.loads(line.decode("utf-8"))
        except (ValueError, RecursionError):
            continue
        if type(value) is dict:
            _entry_traits(value, found)
        else:
            found.add("non-object-line")
    return found


def _repair_entry(entry: dict[str, Any], name: str) -> None:
    """Undo one trigger in an entry (what a well-formed writer would have written)."""
    message = entry.get("message")
    # the repaired value keeps the entry a message with text, so a later stage still runs
    if name in ("message-null", "message-not-object") and "message" in entry:
        if type(message) is not dict:
            entry["message"] = {"role": entry.get("type"), "content": "x"}
    elif name == "content-number" and type(message) is dict:
        if type(message.get("content")) in (int, float):
            message["content"] = "x"
    elif name == "timestamp-no-zone" and type(entry.get("timestamp")) is str:
        if not _ZONE.search(entry["timestamp"]):
            entry["timestamp"] += "Z"
    elif name == "timestamp-missing" and type(entry.get("type")) is str:
        entry.setdefault("timestamp", _STAMP)


def repair(data: bytes, name: str) -> bytes:
    """The input with every instance of one trigger undone; other lines stay byte for byte."""
    out: list[bytes] = []
    for line in data.split(b"\n"):
        try:
            value = json.loads(line.decode("utf-8")) if line.strip() else None
        except (ValueError, RecursionError):
            out.append(line)
            continue
        if type(value) is dict:
            found: set[str] = set()
            _entry_traits(value, found)
            if name in found:
                _repair_entry(value, name)
                line = json.dumps(value, separators=(",", ":")).encode("ascii")
        elif name == "non-object-line" and line.strip():
            continue
        out.append(line)
    return b"\n".join(out)


def trigger(data: bytes) -> str:
    """The first of :data:`TRIGGERS` the input holds, or ``""`` (cause or bystander)."""
    found = traits(data)
    for name in TRIGGERS:
        if name in found:
            return name
    return ""


def causal(data: bytes, fails: Callable[[bytes], bool]) -> str:
    """The first trigger the input holds whose repair makes ``fails`` false, or ``""``."""
    found = traits(data)
    for name in TRIGGERS:
        if name in found and not fails(repair(data, name)):
            return name
    return ""


def key(signature: str, trigger_name: str) -> str:
    """The key a finding is kept and shrunk under: ``signature`` or ``signature|trigger``."""
    return f"{signature}|{trigger_name}" if trigger_name else signature


def variant(signature: str, data: bytes) -> str:
    """The key by the first trigger held, without running the target (a cheap guess)."""
    return key(signature, trigger(data))
