"""The expectation engine: which conversation a transcript's lines encode.

The rule (TS Agent SDK 0.3.332, ``current-2.1.332.md`` Oracle 1 steps 1-7, restated for
files the writer model produces):

* the conversation ends at the **last-written eligible entry that nothing continues**
  (main chain, not progress; "continues" = is the parent of another eligible entry)
  and that has a user or assistant message above it (else the next such entry);
* it runs back through parents (the relinked parent where a compaction relink is in
  force) to the first missing or repeated link;
* a streamed response keeps its blocks together: blocks with the same ``message.id`` that
  are off that path, then tool results parented to any of its blocks, each sorted by
  timestamp, go right after the response's last block on the path.

Everything is computed from readable lines, so a corruption only *declares* what it did
to lines (unreadable, reparented, moved, inserted) and this module turns that into the
expected conversation, or says why the lines leave it to a reader's tie-breaking
(:class:`Undetermined`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from rechain.strategies.records import Record

Json = dict[str, Any]
ENTRY_TYPES = frozenset({"user", "assistant", "system", "attachment", "progress"})


@dataclass(frozen=True, slots=True)
class Undetermined:
    """Why the expected conversation is left to a reader's rules; only robustness is checked."""

    reason: str


@dataclass(slots=True)
class _Entry:
    obj: Json
    position: int  # of the last copy: a reader's leaf order
    record: Record | None
    first: int  # of the first copy: a reader's map order, in which boundaries relink


def is_entry(obj: object) -> bool:
    """A line a chain reader keeps: an object with a chain ``type`` and a string ``uuid``."""
    return (isinstance(obj, dict) and obj.get("type") in ENTRY_TYPES
            and isinstance(obj.get("uuid"), str))


def group_of(obj: Json) -> str | None:
    """The API ``message.id`` shared by the lines of one streamed response."""
    if obj.get("type") != "assistant":
        return None
    message = obj.get("message")
    mid = message.get("id") if isinstance(message, dict) else None
    return mid if isinstance(mid, str) else None


def is_result(obj: Json) -> bool:
    """A user entry carrying at least one ``tool_result`` block."""
    if obj.get("type") != "user":
        return False
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content)


def _answers(obj: Json) -> set[str]:
    content = obj["message"]["content"]
    return {b.get("tool_use_id") for b in content
            if isinstance(b, dict) and b.get("type") == "tool_result"} - {None}


def _calls(obj: Json) -> set[str]:
    message = obj.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if not isinstance(content, list):
        return set()
    return {b.get("id") for b in content if isinstance(b, dict) and b.get("type") == "tool_use"}


def eligible(obj: Json) -> bool:
    """Can end the conversation: a main-chain transcript message that is not progress."""
    return obj.get("type") != "progress" and not obj.get("isSidechain") and not obj.get("teamName")


def _index(lines: Iterable[tuple[object, Record | None]]) -> dict[str, _Entry]:
    """uuid → entry; a later readable copy replaces an earlier one, and its position."""
    entries: dict[str, _Entry] = {}
    for position, (obj, record) in enumerate(lines):
        if is_entry(obj):
            assert isinstance(obj, dict)
            earlier = entries.get(obj["uuid"])
            first = position if earlier is None else earlier.first
            entries[obj["uuid"]] = _Entry(obj, position, record, first)
    return entries


def _parents(entries: dict[str, _Entry]) -> dict[str, str | None]:
    """Effective parent of every entry, after the relinks of preserving boundaries.

    Boundaries apply in the order their uuids were first written (a reader's map keeps a
    duplicated boundary where it first met it); each relinks its heads, then moves every
    other entry hanging on its anchor to its tail.
    """
    out: dict[str, str | None] = {}
    for uuid, entry in entries.items():
        written = entry.obj.get("parentUuid")
        out[uuid] = written if isinstance(written, str) else None
    boundaries = sorted((e for e in entries.values() if e.record and e.record.compaction),
                        key=lambda e: e.first)
    for boundary in boundaries:
        plan = boundary.record.compaction  # type: ignore[union-attr]
        assert plan is not None
        if not all(r in entries for r in plan.requires):
            continue
        heads = dict(plan.heads)
        for uuid, parent in heads.items():
            if uuid in entries:
                out[uuid] = parent
        for uuid, parent in out.items():
            if parent == plan.anchor and uuid not in heads:
                out[uuid] = plan.tail
    return out


def _walk(start: str, parents: dict[str, str | None], entries: dict[str, _Entry]) -> list[str]:
    """``start`` and its ancestors, up to the first missing or repeated parent (leaf first)."""
    path: list[str] = []
    seen: set[str] = set()
    node: str | None = start
    while node is not None and node in entries and node not in seen:
        seen.add(node)
        path.append(node)
        node = parents[node]
    return path


def expected(lines: Iterable[tuple[object, Record | None]]) -> list[str] | Undetermined:
    """The uuids of the conversation the readable ``lines`` encode, in order.

    ``lines`` pairs each line's parsed value (anything that is not an entry is skipped)
    with the writer's record for it, in file order.
    """
    entries = _index(lines)
    parents = _parents(entries)
    usable = [u for u, e in entries.items() if eligible(e.obj)]
    if not usable:
        return []
    continued = {parents[u] for u in usable}
    terminals = sorted((u for u in usable if u not in continued),
                       key=lambda u: entries[u].position, reverse=True)
    seen: set[str] = set()
    for last in terminals:
        node: str | None = last
        while node is not None and node in entries and node not in seen:
            seen.add(node)
            if entries[node].obj["type"] in ("user", "assistant"):
                path = _walk(last, parents, entries)
                path.reverse()
                return _recover(path, entries, parents)
            node = parents[node]
    return Undetermined("no terminal leads to a user or assistant message")


def _recover(path: list[str], entries: dict[str, _Entry],
             parents: dict[str, str | None]) -> list[str] | Undetermined:
    """Put each response's off-path blocks and results right after its last path block."""
    on_path = set(path)
    groups: dict[str, list[str]] = {}
    group_by: dict[str, str] = {}
    results: list[str] = []
    for uuid, entry in entries.items():
        kind = entry.obj["type"]
        if kind == "assistant":
            group = group_of(entry.obj)
            if group is not None:
                groups.setdefault(group, []).append(uuid)
                group_by[uuid] = group
        elif kind == "user" and is_result(entry.obj):
            results.append(uuid)
    order = list(path)
    off = [u for u in results if u not in on_path]  # results the walk missed
    if not off and all(u in on_path for members in groups.values() for u in members):
        return order  # nothing off the path to bring back (the common case)
    key = _sort_key(entries)
    answers = {u: _answers(entries[u].obj) for u in results}
    done: set[str] = set()
    for group in [group_by[u] for u in path if u in group_by]:
        if group in done:
            continue
        done.add(group)
        siblings = [u for u in groups[group] if u not in on_path]
        if not siblings and not off:
            continue  # every block on the path and no result to place or to judge
        members = set(groups[group])
        found = [u for u in off if parents[u] in members]
        stray = _strays(members, on_path | set(siblings) | set(found), off, answers, entries,
                        parents)
        if stray:
            return Undetermined(f"tool results linked to {group} only by id: {stray}")
        if siblings or found:
            anchor = max(i for i, u in enumerate(order) if u in members)
            order[anchor + 1: anchor + 1] = sorted(siblings, key=key) + sorted(found, key=key)
    return order


def _sort_key(entries: dict[str, _Entry]) -> Any:
    def key(uuid: str) -> tuple[str, int]:
        stamp = entries[uuid].obj.get("timestamp")
        return (stamp if isinstance(stamp, str) else "", entries[uuid].position)
    return key


def _strays(members: set[str], kept: set[str], off: list[str], answers: dict[str, set[str]],
            entries: dict[str, _Entry], parents: dict[str, str | None]) -> list[str]:
    """Results a reader would add only through ``sourceToolAssistantUUID`` or a tool id.

    ``off`` are the tool results off the walked path; ``answers`` maps every tool-result
    entry to the tool ids it answers.
    """
    candidates = [u for u in off if u not in kept and parents[u] not in members]
    if not candidates:
        return []
    calls: set[str] = set()
    for uuid in members:
        calls |= _calls(entries[uuid].obj)
    answered: set[str] = set()
    for uuid, ids in answers.items():
        if uuid in kept:
            answered |= ids
    strays = []
    for uuid in candidates:
        linked = entries[uuid].obj.get("sourceToolAssistantUUID") in members
        if (linked or answers[uuid] & calls) and answers[uuid] & (calls - answered):
            strays.append(uuid)
    return strays
