"""Terse builders of transcript rows for unit tests (uuids are short names).

Thin wrappers over :mod:`rechain.strategies.rows`, the rows every other writer uses:
chain fields, own fields, then the one stamp these tests need (``sessionId``).
"""

from __future__ import annotations

from typing import Any

from rechain.strategies import rows

Row = dict[str, Any]
SESSION = "s1"
_clock = iter(range(10**6))


def _stamp(ts: str | None) -> str:
    return ts if ts is not None else f"2026-01-01T00:{next(_clock) % 60:02d}:00.000Z"


def entry(kind: str, uuid: str, parent: str | None, ts: str | None = None,
          **fields: Any) -> Row:
    """Any chain row: ``fields`` are its own fields and override the defaults."""
    own = {"type": kind, "uuid": uuid, **fields}
    own.setdefault("timestamp", _stamp(ts))
    return rows.row(rows.chain(parent), own, {"sessionId": SESSION})


def user(
    uuid: str, parent: str | None, text: Any = "hi", ts: str | None = None, **extra: Any
) -> Row:
    return entry("user", uuid, parent, ts, message=rows.user_message(text), **extra)


def assistant(
    uuid: str,
    parent: str | None,
    *,
    mid: str | None = None,
    blocks: list[Any] | None = None,
    ts: str | None = None,
    **extra: Any,
) -> Row:
    message = rows.assistant_message(blocks or [rows.text("ok")], mid)
    return entry("assistant", uuid, parent, ts, message=message, **extra)


def tool_use(call: str) -> dict[str, Any]:
    return rows.tool_use(call, "Read", {})


def result(uuid: str, parent: str | None, call: str, ts: str | None = None, **extra: Any) -> Row:
    return user(uuid, parent, [rows.tool_result(call, "x")], ts=ts, **extra)


def system(uuid: str, parent: str | None, subtype: str = "informational", **extra: Any) -> Row:
    return entry("system", uuid, parent, None, subtype=subtype, **extra)


def jsonl(*lines: Row | str | bytes) -> bytes:
    """Rows as JSONL bytes; str/bytes items are written verbatim (for broken lines)."""
    return rows.jsonl(lines)
