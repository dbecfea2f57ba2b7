"""Mutations of a transcript at the level of its JSON values.

Each operation parses one line, changes what a reader's logic depends on and
writes it back: parents (re-parent, self loop, cycle, dangling, wrong type),
uuids (duplicates, missing), entry types, fields nulled, deleted, retyped or
wrapped in arrays, the known reader crashers (``message: null``,
``content: 42``, no ``timestamp``), split-assistant groups, tool links,
compaction metadata, queued commands, flags, huge strings and lone
surrogates. Ids come from the file itself, so the graph changes shape instead
of falling apart. Standard library only.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from typing import Any

from rechain.fuzz.vocabulary import ENTRY_TYPES, FLAGS, ODD_VALUES, TIMESTAMPS

Lines = list[bytes]
Obj = dict[str, Any]

_UUID = re.compile(rb'"uuid":"([^"\\]{1,80})"')
_MESSAGE_ID = re.compile(rb'"id":"(msg_[^"\\]{0,60})"')
_TOOL_ID = re.compile(rb'"(?:id|tool_use_id)":"(toolu_[^"\\]{0,60})"')


def _ids(lines: Lines, pattern: re.Pattern[bytes], limit: int = 64) -> list[str]:
    found: list[str] = []
    for line in lines:
        for match in pattern.finditer(line):
            found.append(match.group(1).decode("utf-8", "replace"))
            if len(found) >= limit:
                return found
    return found


try:  # orjson is 3x faster when present; the stdlib covers what it refuses
    import orjson as _orjson
except ImportError:  # a third-party reader's venv
    _orjson = None


def encode(value: Any) -> bytes:
    """Compact JSON as Claude Code writes it; escapes lone surrogates that UTF-8 cannot hold."""
    if _orjson is not None:
        try:
            return _orjson.dumps(value)
        except (TypeError, _orjson.JSONEncodeError):
            pass
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    except UnicodeEncodeError:
        return json.dumps(value, separators=(",", ":")).encode("ascii")
    except (ValueError, RecursionError):
        return b"{}"


def decode(line: bytes) -> Any:
    if _orjson is not None:
        try:
            return _orjson.loads(line)
        except _orjson.JSONDecodeError:
            return None
    try:
        return json.loads(line.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


def _edit(lines: Lines, rng: random.Random, change: Callable[[Obj], None]) -> Lines:
    """Apply ``change`` to one line that holds a JSON object (a few tries)."""
    for _ in range(4):
        if not lines:
            return lines
        at = rng.randrange(len(lines))
        value = decode(lines[at])
        if type(value) is dict:
            change(value)
            lines[at] = encode(value)
            return lines
    return lines


def _paths(value: Any, limit: int = 48) -> list[tuple[Any, Any]]:
    """(container, key) pairs for values down to depth 4, breadth first."""
    out: list[tuple[Any, Any]] = []
    queue: list[tuple[Any, int]] = [(value, 0)]
    while queue and len(out) < limit:
        node, depth = queue.pop(0)
        items = (
            node.items() if type(node) is dict else enumerate(node) if type(node) is list else ()
        )
        for key, child in items:
            out.append((node, key))
            if depth < 4 and type(child) in (dict, list):
                queue.append((child, depth + 1))
    return out


def reparent(lines: Lines, rng: random.Random) -> Lines:
    """New parent: another entry, itself, nothing, a missing id or a non-string."""
    uuids = _ids(lines, _UUID)

    def change(entry: Obj) -> None:
        roll = rng.random()
        if roll < 0.5 and uuids:
            entry["parentUuid"] = rng.choice(uuids)
        elif roll < 0.65:
            entry["parentUuid"] = entry.get("uuid")
        elif roll < 0.75:
            entry["parentUuid"] = None
        elif roll < 0.85:
            entry["parentUuid"] = "00000000-0000-4000-8000-000000000000"
        elif roll < 0.92:
            entry.pop("parentUuid", None)
        else:
            entry["parentUuid"] = rng.choice(ODD_VALUES)

    return _edit(lines, rng, change)


def cycle(lines: Lines, rng: random.Random) -> Lines:
    """Point an entry's parent at one of its descendants (here: a later line's uuid)."""
    if len(lines) < 2:
        return lines
    at = rng.randrange(len(lines) - 1)
    later = _ids(lines[at + 1 :], _UUID, 8)
    first = decode(lines[at])
    if type(first) is dict and later:
        first["parentUuid"] = rng.choice(later)
        lines[at] = encode(first)
    return lines


def reuse_uuid(lines: Lines, rng: random.Random) -> Lines:
    """Give an entry another entry's uuid (rewrites and replays do), or take its uuid away."""
    uuids = _ids(lines, _UUID)

    def change(entry: Obj) -> None:
        if uuids and rng.random() < 0.7:
            entry["uuid"] = rng.choice(uuids)
        elif rng.random() < 0.5:
            entry.pop("uuid", None)
        else:
            entry["uuid"] = rng.choice(ODD_VALUES)

    return _edit(lines, rng, change)


def retype(lines: Lines, rng: random.Random) -> Lines:
    return _edit(lines, rng, lambda e: e.__setitem__("type", rng.choice(ENTRY_TYPES)))


def null_out(lines: Lines, rng: random.Random) -> Lines:
    def change(entry: Obj) -> None:
        paths = _paths(entry)
        if paths:
            node, key = rng.choice(paths)
            node[key] = None

    return _edit(lines, rng, change)


def delete(lines: Lines, rng: random.Random) -> Lines:
    def change(entry: Obj) -> None:
        paths = [(n, k) for n, k in _paths(entry) if type(n) is dict]
        if paths:
            node, key = rng.choice(paths)
            del node[key]

    return _edit(lines, rng, change)


def change_type(lines: Lines, rng: random.Random) -> Lines:
    """A field of another JSON type, or the same value wrapped in an array."""

    def change(entry: Obj) -> None:
        paths = _paths(entry)
        if paths:
            node, key = rng.choice(paths)
            node[key] = [node[key]] if rng.random() < 0.3 else rng.choice(ODD_VALUES)

    return _edit(lines, rng, change)


def known_crashers(lines: Lines, rng: random.Random) -> Lines:
    """What crashed readers before: ``message: null``, ``content: 42``, no timestamp, ..."""

    def change(entry: Obj) -> None:
        roll = rng.randrange(6)
        message = entry.get("message")
        if roll == 0:
            entry["message"] = None
        elif roll == 1 and type(message) is dict:
            message["content"] = rng.choice((42, None, {"type": "text"}, "", [42], [None]))
        elif roll == 2:
            entry.pop("timestamp", None)
        elif roll == 3:
            entry["timestamp"] = rng.choice((*TIMESTAMPS, 0, None, []))
        elif roll == 4 and type(message) is dict:
            message.pop("content", None)
        else:
            entry["message"] = rng.choice(("text", 42, [], {}))

    return _edit(lines, rng, change)


def split_group(lines: Lines, rng: random.Random) -> Lines:
    """Make an assistant entry part of another response (shared ``message.id``)."""
    ids = _ids(lines, _MESSAGE_ID)

    def change(entry: Obj) -> None:
        message = entry.get("message")
        if type(message) is dict:
            entry["type"] = "assistant"
            message["id"] = rng.choice(ids) if ids else "msg_fuzz"

    return _edit(lines, rng, change)


def tool_link(lines: Lines, rng: random.Random) -> Lines:
    """Turn an entry into a tool result for some call, linked the ways Claude Code links them."""
    tools = _ids(lines, _TOOL_ID)
    uuids = _ids(lines, _UUID)

    def change(entry: Obj) -> None:
        call = rng.choice(tools) if tools else "toolu_fuzz"
        entry["type"] = "user"
        block = {"type": "tool_result", "tool_use_id": call, "content": "ok"}
        entry["message"] = {"role": "user", "content": [block]}
        if uuids and rng.random() < 0.6:
            entry["sourceToolAssistantUUID"] = rng.choice(uuids)
        if uuids and rng.random() < 0.5:
            entry["parentUuid"] = rng.choice(uuids)

    return _edit(lines, rng, change)


def tool_call(lines: Lines, rng: random.Random) -> Lines:
    """Give an assistant entry a tool_use block (new id, or one already in the file)."""
    tools = _ids(lines, _TOOL_ID)

    def change(entry: Obj) -> None:
        call = rng.choice(tools) if tools and rng.random() < 0.5 else f"toolu_{rng.randrange(99)}"
        message = entry.get("message")
        content = message.get("content") if type(message) is dict else None
        block = {"type": "tool_use", "id": call, "name": "Bash", "input": {}}
        if type(content) is list:
            content.append(block)
        else:
            entry["type"] = "assistant"
            entry["message"] = {
                "id": f"msg_{rng.randrange(9)}",
                "role": "assistant",
                "content": [block],
            }

    return _edit(lines, rng, change)


def compaction(lines: Lines, rng: random.Random) -> Lines:
    """Insert a compact_boundary whose metadata names entries of the file (or names them badly)."""
    uuids = _ids(lines, _UUID) or ["u"]
    meta: Obj = {"trigger": "auto", "preTokens": 1000}
    roll = rng.random()
    if roll < 0.35:
        meta["preservedSegment"] = {
            "headUuid": rng.choice(uuids),
            "anchorUuid": rng.choice(uuids),
            "tailUuid": rng.choice(uuids),
        }
    elif roll < 0.7:
        listed: Any = rng.sample(uuids, min(len(uuids), rng.randint(1, 4)))
        if rng.random() < 0.15:
            listed = rng.choice(ODD_VALUES)
        meta["preservedMessages"] = {"uuids": listed, "anchorUuid": rng.choice(uuids)}
    elif roll < 0.8:
        meta = rng.choice(ODD_VALUES)
    boundary = {
        "parentUuid": None,
        "logicalParentUuid": rng.choice(uuids),
        "type": "system",
        "subtype": "compact_boundary",
        "content": "Conversation compacted",
        "compactMetadata": meta,
        "uuid": f"cb{rng.randrange(1000):04d}-0000-4000-8000-000000000000",
        "timestamp": rng.choice(TIMESTAMPS),
    }
    summary = {
        "parentUuid": boundary["uuid"],
        "type": "user",
        "isCompactSummary": True,
        "message": {"role": "user", "content": "summary"},
        "uuid": f"cs{rng.randrange(1000):04d}-0000-4000-8000-000000000000",
        "timestamp": rng.choice(TIMESTAMPS),
    }
    at = rng.randrange(len(lines) + 1)
    lines[at:at] = [encode(boundary), encode(summary)]
    return lines


def queued(lines: Lines, rng: random.Random) -> Lines:
    """A queued-command attachment, a queue-operation or a voice-call row below some entry."""
    uuids = _ids(lines, _UUID) or [None]
    parent = rng.choice(uuids)
    roll = rng.random()
    if roll < 0.4:
        row: Obj = {
            "parentUuid": parent,
            "type": "attachment",
            "attachment": {"type": "queued_command", "prompt": "next", "commandMode": "prompt"},
            "uuid": f"qa{rng.randrange(1000):04d}-0000-4000-8000-000000000000",
            "timestamp": rng.choice(TIMESTAMPS),
        }
    elif roll < 0.7:
        row = {
            "type": "queue-operation",
            "operation": rng.choice(("enqueue", "dequeue", "remove")),
            "content": "next",
            "timestamp": rng.choice(TIMESTAMPS),
        }
    else:
        row = {
            "parentUuid": parent,
            "type": "system",
            "subtype": "voice_call_talk",
            "content": "hi",
            "origin": {"kind": "voice-call"},
            "uuid": f"vc{rng.randrange(1000):04d}-0000-4000-8000-000000000000",
        }
        if rng.random() < 0.5:
            row["fold"] = {"command": {"mode": "prompt"}}
    lines.insert(rng.randrange(len(lines) + 1), encode(row))
    return lines


def flag(lines: Lines, rng: random.Random) -> Lines:
    def change(entry: Obj) -> None:
        entry[rng.choice(FLAGS)] = rng.choice((True, False, None, 1, 0, "", "team", []))
        if rng.random() < 0.2:
            entry["origin"] = {"kind": rng.choice(("human", "task-notification", "channel", "x"))}

    return _edit(lines, rng, change)


def huge_string(lines: Lines, rng: random.Random) -> Lines:
    def change(entry: Obj) -> None:
        size = rng.choice((1 << 10, 1 << 14, 1 << 16))
        entry[rng.choice(("content", "text", "timestamp", "uuid", "x"))] = "x" * size

    return _edit(lines, rng, change)


def lone_surrogate(lines: Lines, rng: random.Random) -> Lines:
    """A string holding an unpaired surrogate escape (valid for JSON.parse, not for UTF-8)."""

    def change(entry: Obj) -> None:
        key = rng.choice(("uuid", "parentUuid", "timestamp", "sessionId"))
        value = entry.get(key)
        entry[key] = (value if type(value) is str else "") + rng.choice(("\ud800", "\udfff"))

    return _edit(lines, rng, change)


VALUE_OPS: tuple[Callable[[Lines, random.Random], Lines], ...] = (
    reparent,
    reparent,
    cycle,
    reuse_uuid,
    retype,
    null_out,
    delete,
    change_type,
    change_type,
    known_crashers,
    split_group,
    tool_link,
    tool_call,
    compaction,
    queued,
    flag,
    huge_string,
    lone_surrogate,
)
