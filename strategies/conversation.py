"""The expectation engine: which conversation a transcript's lines encode.

The rule (TS Agent SDK 0.3.332, ``current-2.1.332.md``, Oracle 1, steps 1–7, restated
for files the writer model produced):

* the conversation ends at the **last-written eligible entry** (main chain, not progress);
* it runs back through parents (the logical parent where a compaction relink is in
  force) to the first missing or repeated link;
* a streamed response keeps all its blocks together: blocks of the same ``message.id``
  that are off that path, then tool results parented to any of its blocks, each sorted by
  timestamp, go right after the response's last block on the path.

Everything is computed from the readable lines, so a corruption only has to *declare*
what it did to lines (unreadable, reparented, moved, inserted); this module turns that
into the expected conversation, or says why it cannot (:class:`Undetermined`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from rechain.strategies.records import Record

Json = dict[str, Any]
ENTRY_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})


@dataclass(frozen=True, slots=True)
class Undetermined:
    """The lines leave the conversation to a reader's tie-breaking rules; only robustness holds."""

    reason: str


@dataclass(slots=True)
class _Entry:
    obj: Json
    position: int
    record: Record | None


def is_entry(obj: object) -> bool:
    """A line a chain reader keeps: an object with a chain ``type`` and a string ``uuid``."""
    return (isinstance(obj, dict) and obj.get("type") in ENTRY_TYPES
            and isinstance(obj.get("uuid"), str))


def _group(obj: Json) -> str | None:
    if obj.get("type") != "assistant":
        return None
    message = obj.get("message")
    mid = message.get("id") if isinstance(message, dict) else None
    return mid if isinstance(mid, str) else None


def _is_result(obj: Json) -> bool:
    if obj.get("type") != "user":
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _eligible(obj: Json) -> bool:
    return obj.get("type") != "progress" and not obj.get("isSidechain") and not obj.get("teamName")


def _index(lines: Iterable[tuple[Json, Record | None]]) -> dict[str, _Entry]:
    """uuid → entry; a later readable copy replaces an earlier one (and its position)."""
    entries: dict[str, _Entry] = {}
    for position, (obj, record) in enumerate(lines):
        if is_entry(obj):
            entries[obj["uuid"]] = _Entry(obj, position, record)
    return entries


def _parents(entries: Mapping[str, _Entry]) -> dict[str, str | None]:
    """Effective parent of every entry: the relinked one where the relink is in force."""
    boundaries = {u for u, e in entries.items()
                  if e.obj.get("type") == "system" and e.obj.get("subtype") == "compact_boundary"}
    out: dict[str, str | None] = {}
    for uuid, entry in entries.items():
        written = entry.obj.get("parentUuid")
        parent = written if isinstance(written, str) else None
        record = entry.record
        relink = record.relink if record else None
        if relink and relink.boundary in boundaries and all(r in entries for r in relink.requires):
            original_written = _written_parent(record)
            if relink.kind == "identity" or parent == original_written:
                parent = record.chain_parent if record else parent
        out[uuid] = parent
    return out


def _written_parent(record: Record | None) -> str | None:
    """The parent the writer put on the line (kept on the relink for by-parent matching)."""
    if record is None or record.relink is None:
        return None
    requires = record.relink.requires
    return requires[-1] if record.relink.kind == "by-parent" and requires else _ANCHORS.get(
        record.relink.boundary)


_ANCHORS: dict[str, str] = {}
