"""What a regression case says about the findings it holds.

Several findings can end in one case: records of one finding under two keys (an
old one, or one filed before its trigger was known), or two findings whose inputs
shrink to the same minimal input. The case's notes then describe them all: what
they share, how many there are, and each distinct message once, with how often it
was met, within the schema's bound.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

#: the case schema's bound on ``provenance.notes``
NOTES_MAX = 500
MESSAGE_MAX = 160


def _shared(findings: Sequence[dict[str, Any]], field: str) -> str:
    """The one value of ``field`` all findings have ("" if they differ or lack it)."""
    values = {str(finding.get(field) or "") for finding in findings}
    return values.pop() if len(values) == 1 else ""


def _messages(findings: Sequence[dict[str, Any]]) -> list[tuple[str, int]]:
    """Each distinct message, in the order first met, with the hits of its findings."""
    hits: dict[str, int] = {}
    for finding in findings:
        message = " ".join(str(finding.get("message", "")).split())
        hits[message] = hits.get(message, 0) + int(finding.get("count", 1) or 1)
    return list(hits.items())


def notes(findings: Sequence[dict[str, Any]]) -> str:
    """``EXC: message`` for one finding; for several, what they share, their number and
    each distinct message (``… and N more`` past the bound)."""
    first = findings[0]
    if len(findings) == 1:
        return f"{first['exception']}: {first['message']}"[:NOTES_MAX]
    shared = [_shared(findings, "exception") or "several exceptions"]
    where = _shared(findings, "where")
    if where:
        shared.append(f"at {where}")
    trigger = _shared(findings, "trigger")
    if trigger:
        shared.append(f"trigger {trigger}")
    messages = _messages(findings)
    head = f"{len(findings)} findings, all {' '.join(shared)}; {len(messages)} distinct " \
           f"message{'s' if len(messages) > 1 else ''}: "
    parts: list[str] = []
    for number, (message, count) in enumerate(messages):
        part = f"{message[:MESSAGE_MAX]!r} x{count}"
        rest = len(messages) - number - 1
        more = f"; … and {rest} more" if rest else ""
        if len(head) + len("; ".join([*parts, part])) + len(more) > NOTES_MAX:
            return head + "; ".join(parts) + f"; … and {len(messages) - number} more"
        parts.append(part)
    return head + "; ".join(parts)


def counted(findings: Sequence[dict[str, Any]]) -> str:
    """`` (N findings)`` for a description, when a case holds more than one."""
    return f" ({len(findings)} findings)" if len(findings) > 1 else ""
