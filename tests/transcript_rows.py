"""Terse builders of transcript rows for unit tests (uuids are short names)."""

from __future__ import annotations

import json
from typing import Any

Row = dict[str, Any]
_clock = iter(range(10**6))


def _stamp(ts: str | None) -> str:
    return ts if ts is not None else f"2026-01-01T00:{next(_clock) % 60:02d}:00.000Z"


def user(
    uuid: str, parent: str | None, text: Any = "hi", ts: str | None = None, **extra: Any
) -> Row:
    row = {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "user",
        "uuid": uuid,
        "message": {"role": "user", "content": text},
        "timestamp": _stamp(ts),
        "sessionId": "s1",
    }
    row.update(extra)
    return row


def assistant(
    uuid: str,
    parent: str | None,
    *,
    mid: str | None = None,
    blocks: list[Any] | None = None,
    ts: str | None = None,
    **extra: Any,
) -> Row:
    message: dict[str, Any] = {
        "role": "assistant",
        "content": blocks or [{"type": "text", "text": "ok"}],
    }
    if mid is not None:
        message["id"] = mid
    row = {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "assistant",
        "uuid": uuid,
        "message": message,
        "timestamp": _stamp(ts),
        "sessionId": "s1",
    }
    row.update(extra)
    return row


def tool_use(call: str) -> dict[str, Any]:
    return {"type": "tool_use", "id": call, "name": "Read", "input": {}}


def result(uuid: str, parent: str | None, call: str, ts: str | None = None, **extra: Any) -> Row:
    return user(
        uuid, parent, [{"type": "tool_result", "tool_use_id": call, "content": "x"}], ts=ts, **extra
    )


def system(uuid: str, parent: str | None, subtype: str = "informational", **extra: Any) -> Row:
    row = {
        "parentUuid": parent,
        "isSidechain": False,
        "type": "system",
        "subtype": subtype,
        "uuid": uuid,
        "timestamp": _stamp(None),
        "sessionId": "s1",
    }
    row.update(extra)
    return row


def jsonl(*rows: Row | str | bytes) -> bytes:
    """Rows as JSONL bytes; str/bytes items are written verbatim (for broken lines)."""
    out = []
    for row in rows:
        if isinstance(row, bytes):
            out.append(row)
        elif isinstance(row, str):
            out.append(row.encode())
        else:
            out.append(json.dumps(row).encode())
    return b"\n".join(out) + b"\n"
