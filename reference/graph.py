"""Stages 3-6: index the entries, apply compaction relinks, choose the leaf, walk.

Entries stay the parsed dicts; an entry whose parent a compaction relink
changes is replaced by a shallow copy in the uuid index, as the SDK does, so
later stages see relinked parents and the originals stay untouched.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rechain.reference.js import UNDEFINED, describe, key, prop, truthy
from rechain.reference.model import Diagnostic, Json


@dataclass(slots=True)
class Graph:
    """The uuid index: last occurrence wins, first occurrence keeps the slot."""

    nodes: dict[str, Json]
    position: dict[str, int]
    line: dict[str, int]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # ``Parsed.extras``, for later stages

    def parent_of(self, entry: Json) -> Json | None:
        parent = entry.get("parentUuid")
        return self.nodes.get(parent) if type(parent) is str and parent else None


def index(
    entries: list[Json], lines: list[int], extras: dict[str, Any] | None = None
) -> Graph:
    """Map uuid to entry (a later duplicate replaces the earlier one)."""
    nodes: dict[str, Json] = {}
    position: dict[str, int] = {}
    line: dict[str, int] = {}
    diagnostics: list[Diagnostic] = []
    for at, entry in enumerate(entries):
        uuid = entry["uuid"]
        if uuid in position:
            diagnostics.append(
                Diagnostic(
                    line[uuid],
                    "duplicate-uuid",
                    f"uuid {uuid} written again at line {lines[at]}; the later copy is read",
                )
            )
        nodes[uuid] = entry
        position[uuid] = at
        line[uuid] = lines[at]
    return Graph(nodes, position, line, diagnostics, extras if extras is not None else {})


def _children_index(nodes: dict[str, Json]) -> dict[tuple[str, Any], dict[str, None]]:
    children: dict[tuple[str, Any], dict[str, None]] = {}
    for uuid, entry in nodes.items():
        parent_key = key(entry.get("parentUuid", UNDEFINED))
        if parent_key is not None:
            children.setdefault(parent_key, {})[uuid] = None
    return children


def relink_compactions(graph: Graph) -> None:
    """Re-parent preserved messages and segments of every compact boundary (SDK rules).

    ``preservedMessages`` applies only when every listed uuid is present; else
    ``preservedSegment`` links head to anchor and moves the anchor's other
    children to the tail. ``logicalParentUuid`` is never followed.
    """
    nodes = graph.nodes
    boundaries = [
        e
        for e in nodes.values()
        if e.get("type") == "system" and e.get("subtype") == "compact_boundary"
    ]
    if not boundaries:
        return
    children = _children_index(nodes) if len(boundaries) > 2 else None

    def set_parent(uuid: str, parent: Any, boundary: Json) -> None:
        entry = nodes[uuid]
        old = entry.get("parentUuid", UNDEFINED)
        old_key, new_key = key(old), key(parent)
        if old_key is not None and old_key == new_key:
            return
        if children is not None:
            if old_key is not None:
                children.get(old_key, {}).pop(uuid, None)
            if new_key is not None:
                children.setdefault(new_key, {})[uuid] = None
        nodes[uuid] = {**entry, "parentUuid": parent}
        graph.diagnostics.append(
            Diagnostic(
                graph.line[uuid],
                "relinked",
                f"parent {describe(old)} replaced by {describe(parent)} (compact boundary "
                f"{boundary.get('uuid')} at line {graph.line.get(boundary.get('uuid'), '?')})",
            )
        )

    for boundary in boundaries:
        meta = boundary.get("compactMetadata")
        kept = prop(meta, "preservedMessages")
        segment = prop(meta, "preservedSegment")
        if truthy(kept):
            uuids = _preserved_uuids(kept)
            if not uuids or any(type(u) is not str or u not in nodes for u in uuids):
                continue
            anchor = prop(kept, "anchorUuid")
            cursor = anchor
            for uuid in uuids:
                set_parent(uuid, cursor, boundary)
                cursor = uuid
            head, tail = uuids[0], uuids[-1]
            _move_children(children, nodes, anchor, head, tail, set_parent, boundary)
        elif truthy(segment):
            head = prop(segment, "headUuid")
            anchor = prop(segment, "anchorUuid")
            if type(head) is str and head in nodes:
                set_parent(head, anchor, boundary)
            _move_children(
                children, nodes, anchor, head, prop(segment, "tailUuid"), set_parent, boundary
            )


class ReaderError(Exception):
    """The real reader throws on this input; the reference reports it as the outcome."""


def _preserved_uuids(kept: Any) -> list[Any]:
    """``preservedMessages.uuids``, failing where the SDK's code throws a TypeError."""
    uuids = prop(kept, "uuids")
    if type(uuids) is list:
        return uuids
    if uuids is None or uuids is UNDEFINED:
        raise ReaderError("compactMetadata.preservedMessages.uuids is missing (TypeError)")
    if type(uuids) is str and uuids == "":
        return []
    if type(uuids) in (int, float, bool):
        return []
    if type(uuids) is dict and "0" not in uuids:
        return []
    raise ReaderError("compactMetadata.preservedMessages.uuids is not an array (TypeError)")


def _move_children(
    children: dict[tuple[str, Any], dict[str, None]] | None,
    nodes: dict[str, Json],
    anchor: Any,
    keep: Any,
    target: Any,
    set_parent: Callable[[str, Any, Json], None],
    boundary: Json,
) -> None:
    """Every entry whose parent ``=== anchor`` (except ``keep``) gets ``target`` as parent."""
    anchor_key = key(anchor)
    if anchor_key is None:
        return
    if children is not None:
        moving = list(children.get(anchor_key, {}))
    elif type(anchor) is str:
        moving = [u for u, e in nodes.items() if e.get("parentUuid") == anchor]
    else:
        moving = [u for u, e in nodes.items() if key(e.get("parentUuid", UNDEFINED)) == anchor_key]
    for uuid in moving:
        if uuid != keep:
            set_parent(uuid, target, boundary)


def is_conversation(entry: Json) -> bool:
    return entry.get("type") in ("user", "assistant")


def sdk_eligible(entry: Json) -> bool:
    """Main-chain entries that may end the conversation (``ap``'s filter)."""
    side, team = entry.get("isSidechain"), entry.get("teamName")
    if (side is not None and side is not False and truthy(side)) or (
        team is not None and truthy(team)
    ):
        return False
    kind = entry.get("type")
    if kind == "progress":
        return False
    return not (kind == "attachment" and prop(entry.get("attachment"), "type") == "fork_briefing")


def choose_leaf_sdk(graph: Graph) -> Json | None:
    """The TS SDK's leaf: last-written eligible terminal, walked up to user/assistant."""
    nodes, position = graph.nodes, graph.position
    eligible = [e for e in nodes.values() if sdk_eligible(e)]
    has_eligible_child = {p for e in eligible if type(p := e.get("parentUuid")) is str and p}
    candidates = [e for e in eligible if e["uuid"] not in has_eligible_child]
    candidates.sort(key=lambda e: position[e["uuid"]], reverse=True)
    dead: set[str] = set()
    for candidate in candidates:
        path: set[str] = set()
        current: Json | None = candidate
        while current is not None and current["uuid"] not in dead and current["uuid"] not in path:
            if is_conversation(current):
                return current
            path.add(current["uuid"])
            current = graph.parent_of(current)
        dead |= path
    return _fallback_leaf(graph)


def _fallback_leaf(graph: Graph) -> Json | None:
    """No eligible walk ended on a message: the newest message above any terminal."""
    nodes, position = graph.nodes, graph.position
    pointed = {p for e in nodes.values() if type(p := e.get("parentUuid")) is str and p}
    reached: list[Json] = []
    for uuid, entry in nodes.items():
        if uuid in pointed:
            continue
        seen: set[str] = set()
        current: Json | None = entry
        while current is not None and current["uuid"] not in seen:
            seen.add(current["uuid"])
            if is_conversation(current):
                reached.append(current)
                break
            current = graph.parent_of(current)
    if not reached:
        return None
    preferred = [
        e
        for e in reached
        if not (
            truthy(e.get("isSidechain")) or truthy(e.get("teamName")) or truthy(e.get("isMeta"))
        )
    ]
    pool = preferred or reached
    best = pool[0]
    for entry in pool[1:]:
        if position[entry["uuid"]] > position[best["uuid"]]:
            best = entry
    return best


def walk(graph: Graph, leaf: Json) -> list[Json]:
    """Leaf to root through parents; a missing parent or a revisit ends it. Root first."""
    chain: list[Json] = []
    seen: set[str] = set()
    current: Json | None = graph.nodes.get(leaf["uuid"])
    while current is not None:
        uuid = current["uuid"]
        if uuid in seen:
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[chain[-1]["uuid"]],
                    "cycle",
                    f"parent {uuid} is already on the chain: the walk stops here",
                )
            )
            break
        seen.add(uuid)
        chain.append(current)
        parent = current.get("parentUuid")
        current = graph.parent_of(current)
        if current is None and truthy(parent):
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[uuid],
                    "dangling-parent",
                    f"parent {describe(parent)} is not in the file: the chain starts here",
                )
            )
    chain.reverse()
    return chain
