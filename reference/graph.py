"""Stages 3-6: index the entries, apply compaction relinks, choose the leaf, walk.

Entries stay the parsed dicts; an entry whose parent a compaction relink
changes is replaced by a shallow copy in the uuid index, as the SDK does, so
later stages see relinked parents and the originals stay untouched. The
whole-graph passes read each entry's ``Facts`` (``facts.py``), not the entries.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import compress, filterfalse, islice, repeat
from operator import eq, itemgetter, lt
from typing import Any

from rechain.reference.facts import ELIGIBLE, KIND, PARENT, UUID, Facts, facts_of
from rechain.reference.js.values import UNDEFINED, describe, key, prop, truthy
from rechain.reference.lazyrows import LazyChain, LazyEntries, LazyNodes, chain_uuids
from rechain.reference.model import Diagnostic, Json


@dataclass(slots=True)
class Graph:
    """The uuid index: last occurrence wins, first occurrence keeps the slot."""

    nodes: dict[str, Json]
    position: dict[str, int]  # an order of the entries (their index, or their line number)
    line: dict[str, int]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)  # ``Parsed.extras``, for later stages
    # uuid -> Facts of the entry in ``nodes``, same order; None until first asked for
    known: dict[str, Facts] | None = None

    def parent_of(self, entry: Json) -> Json | None:
        parent = entry.get("parentUuid")
        return self.nodes.get(parent) if type(parent) is str and parent else None

    def facts(self) -> dict[str, Facts]:
        """Facts of every indexed entry (``facts.py``), in index order.

        The SDK parser gathers them while parsing; for other parsers they are
        computed here from the entries on first use, so stages that run after a
        profile's own relinks see those relinks.
        """
        if self.known is None:
            self.known = {uuid: facts_of(entry) for uuid, entry in self.nodes.items()}
        return self.known


def index(
    entries: list[Json],
    lines: list[int],
    extras: dict[str, Any] | None = None,
    facts: list[Facts] | None = None,
) -> Graph:
    """Map uuid to entry (a later duplicate replaces the earlier one).

    ``facts``, when the parser gathered them, run parallel to ``entries``; the
    index then reads each uuid from them rather than from the (cold) entry. Entries
    a parser left undecoded (``LazyEntries``) stay so in the index (``LazyNodes``).
    """
    lazy = isinstance(entries, LazyEntries) and facts is not None
    if facts is not None:
        uuids = list(map(itemgetter(UUID), facts))
        stored = entries.stored() if lazy else entries  # type: ignore[attr-defined]
        built = (LazyNodes if lazy else dict)(zip(uuids, stored, strict=True))
        if len(built) == len(uuids):  # no uuid written twice: every map built in C
            line = dict(zip(uuids, lines, strict=True))
            # lines that rise in file order order the entries as their positions do: one
            # map then serves both (a million ints fewer on a long chain)
            position = line if lazy and all(map(lt, lines, islice(lines, 1, None))) \
                else dict(zip(uuids, range(len(uuids)), strict=True))
            return Graph(built, position, line, [],
                         extras if extras is not None else {}, dict(zip(uuids, facts, strict=True)))
    nodes: dict[str, Json] = LazyNodes() if lazy else {}
    position: dict[str, int] = {}
    line: dict[str, int] = {}
    diagnostics: list[Diagnostic] = []
    known: dict[str, Facts] | None = None if facts is None else {}
    for at, entry in enumerate(entries.stored() if lazy else entries):  # type: ignore[attr-defined]
        if known is not None:
            fact = facts[at]  # type: ignore[index]
            uuid = fact[UUID]
            known[uuid] = fact
        else:
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
    return Graph(nodes, position, line, diagnostics, extras if extras is not None else {}, known)


def _children_index(facts: dict[str, Facts]) -> dict[tuple[str, Any], dict[str, None]]:
    children: dict[tuple[str, Any], dict[str, None]] = {}
    for uuid, fact in facts.items():
        parent_key = key(fact[PARENT])
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
    facts = graph.facts()
    # the system rows picked out in C (a handful among the file's rows), then read
    systems = compress(facts, map(eq, map(_KIND, facts.values()), repeat("system")))
    boundaries = [row for row in map(nodes.__getitem__, systems)
                  if row.get("subtype") == "compact_boundary"]
    if not boundaries:
        return
    children = _children_index(facts) if len(boundaries) > 2 else None

    def set_parent(uuid: str, parent: Any, boundary: Json) -> None:
        fact = facts[uuid]
        old = fact[PARENT]
        old_key, new_key = key(old), key(parent)
        if old_key is not None and old_key == new_key:
            return
        if children is not None:
            if old_key is not None:
                children.get(old_key, {}).pop(uuid, None)
            if new_key is not None:
                children.setdefault(new_key, {})[uuid] = None
        nodes[uuid] = {**nodes[uuid], "parentUuid": parent}
        facts[uuid] = (*fact[:PARENT], parent, *fact[PARENT + 1 :])  # type: ignore[assignment]
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
            _move_children(children, facts, anchor, head, tail, set_parent, boundary)
        elif truthy(segment):
            head = prop(segment, "headUuid")
            anchor = prop(segment, "anchorUuid")
            if type(head) is str and head in nodes:
                set_parent(head, anchor, boundary)
            _move_children(
                children, facts, anchor, head, prop(segment, "tailUuid"), set_parent, boundary
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
    facts: dict[str, Facts],
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
    elif type(anchor) is str:  # the rows below it picked out in C
        moving = list(compress(facts, map(eq, map(_PARENT, facts.values()), repeat(anchor))))
    else:
        moving = [u for u, f in facts.items() if key(f[PARENT]) == anchor_key]
    for uuid in moving:
        if uuid != keep:
            set_parent(uuid, target, boundary)


def _parent_facts(facts: dict[str, Facts], fact: Facts) -> Facts | None:
    """The facts of an entry's parent: a non-empty string uuid that is indexed."""
    parent = fact[PARENT]
    return facts.get(parent) if type(parent) is str and parent else None


def choose_leaf_sdk(graph: Graph) -> Json | None:
    """The TS SDK's leaf: last-written eligible terminal, walked up to user/assistant.

    Eligible (the SDK's leaf filter, kept in ``Facts``): not a sidechain or team row, not
    progress, not a ``fork_briefing`` attachment.
    """
    facts, position = graph.facts(), graph.position
    values = facts.values()
    eligible = list(compress(values, map(_ELIGIBLE, values)))  # one C-level pass each
    # the terminals, newest first: sorted by a key read in C (most walks end at the first)
    terminals = list(filterfalse(_eligible_parents(eligible).__contains__, map(_UUID, eligible)))
    terminals.sort(key=position.__getitem__, reverse=True)
    dead: set[str] = set()
    for terminal in terminals:
        path: set[str] = set()
        current: Facts | None = facts[terminal]
        while current is not None and current[UUID] not in dead and current[UUID] not in path:
            if current[KIND] == "user" or current[KIND] == "assistant":
                return graph.nodes[current[UUID]]
            path.add(current[UUID])
            current = _parent_facts(facts, current)
        dead |= path
    return _fallback_leaf(graph)


_ELIGIBLE, _UUID, _PARENT, _KIND = (itemgetter(ELIGIBLE), itemgetter(UUID), itemgetter(PARENT),
                                    itemgetter(KIND))


def _eligible_parents(eligible: list[Facts]) -> set[Any]:
    """The non-empty string parents of ``eligible`` (a set that may hold other hashable
    parents too: no uuid, a string, equals one of those)."""
    try:
        parents = set(map(_PARENT, eligible))
    except TypeError:  # an array or object parent: only strings can name a row
        return {p for f in eligible if type(p := f[PARENT]) is str and p}
    parents.discard("")
    return parents


def _fallback_leaf(graph: Graph) -> Json | None:
    """No eligible walk ended on a message: the newest message above any terminal."""
    facts, position = graph.facts(), graph.position
    pointed = {p for f in facts.values() if type(p := f[PARENT]) is str and p}
    reached: list[Json] = []
    for uuid, fact in facts.items():
        if uuid in pointed:
            continue
        seen: set[str] = set()
        current: Facts | None = fact
        while current is not None and current[UUID] not in seen:
            seen.add(current[UUID])
            if current[KIND] == "user" or current[KIND] == "assistant":
                reached.append(graph.nodes[current[UUID]])
                break
            current = _parent_facts(facts, current)
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
    """Leaf to root through parents; a missing parent or a revisit ends it. Root first.

    One step per row on a chain of up to a million: the parent lookup is inline. Rows
    the parser kept undecoded are not decoded here: the chain is then a ``LazyChain``,
    which decodes a row each time it is read and keeps none, so that presenting a long
    chain never holds every row decoded at once.
    """
    nodes, facts = graph.nodes, graph.facts()
    stored = dict.__getitem__
    lazy = type(nodes) is LazyNodes
    chain: list[Json] = []
    walked: list[Facts] = []
    seen: set[str] = set()
    last = ""
    current: Facts | None = facts.get(leaf["uuid"])
    while current is not None:
        uuid = current[UUID]
        if uuid in seen:
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[last],
                    "cycle",
                    f"parent {uuid} is already on the chain: the walk stops here",
                )
            )
            break
        seen.add(uuid)
        chain.append(stored(nodes, uuid))  # a row kept undecoded stays so (``LazyChain``)
        walked.append(current)
        last = uuid
        parent = current[PARENT]
        current = facts.get(parent) if type(parent) is str and parent else None
        if current is None and truthy(parent):
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[uuid],
                    "dangling-parent",
                    f"parent {describe(parent)} is not in the file: the chain starts here",
                )
            )
    chain.reverse()
    walked.reverse()
    if lazy:
        chain = LazyChain(chain, map(itemgetter(UUID), walked))
    graph.extras[WALKED] = (chain, walked)
    return chain


# ``Graph.extras`` key: (the chain ``walk`` returned, its rows' facts in the same order), so
# that a stage given that very chain reads its uuids without touching a row
WALKED = "walked"


def walked_facts(graph: Graph, chain: list[Json]) -> list[Facts]:
    """The facts of ``chain``'s rows, in order: kept by ``walk`` when ``chain`` is its
    answer (taken, not kept twice), else read row by row."""
    found = graph.extras.pop(WALKED, None)
    if found is not None and found[0] is chain:
        return found[1]  # type: ignore[no-any-return]
    facts = graph.facts()
    return [facts[uuid] for uuid in chain_uuids(chain)]
