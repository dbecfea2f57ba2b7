"""``loadTranscriptFile`` of Claude Code 2.1.88: dispatch, relinks, snips and the leaf set.

The result mirrors the JS Map it builds: ``messages`` maps a key standing for
the entry's ``uuid`` (any JSON value, compared as a JS Map compares keys) to the
entry, in first-insertion order with the last value, exactly as
``Map.prototype.set`` behaves on a repeated key. Entries are copied before any
rewrite, so the parsed values stay untouched.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from itertools import chain, compress, count, islice, repeat
from operator import is_
from typing import Any

from rechain.reference.facts import PARENT, UUID
from rechain.reference.js.values import UNDEFINED, key, prop, strict_equal, truthy
from rechain.reference.model import Diagnostic, Json, findings
from rechain.reference.profiles.claude_code_2_1_88.glanced import Glanced, Light, Progress, as_dict
from rechain.reference.profiles.claude_code_2_1_88.parse import Spans
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease

MESSAGE_TYPES = frozenset({"user", "assistant", "attachment", "system"})
SESSION_MAPS = {
    # entry type -> (map name, field copied)
    "custom-title": ("custom_titles", "customTitle"),
    "tag": ("tags", "tag"),
    "agent-name": ("agent_names", "agentName"),
    "agent-color": ("agent_colors", "agentColor"),
    "agent-setting": ("agent_settings", "agentSetting"),
    "mode": ("modes", "mode"),
    "worktree-state": ("worktree_states", "worktreeSession"),
}

# what the pre-boundary metadata pass dispatches (file-history etc. are not restored)
PRE_BOUNDARY_TYPES = frozenset({"summary", "pr-link", *SESSION_MAPS})


def mkey(value: Any) -> Any:
    """A hashable stand-in for a JS Map key (SameValueZero): strings stay themselves."""
    if type(value) is str:
        return value
    found = key(value)
    return found if found is not None else ("object", id(value))


class LoadAbortedError(Exception):
    """The dispatch loop threw (a bare ``null`` line, say): 2.1.88 keeps what it had."""


@dataclass(slots=True)
class Loaded:
    """What ``loadTranscriptFile`` returns, plus line numbers for diagnostics."""

    messages: dict[Any, Json] = field(default_factory=dict)
    line: dict[int, int] = field(default_factory=dict)  # id(entry) -> file line
    summaries: dict[Any, Any] = field(default_factory=dict)
    custom_titles: dict[Any, Any] = field(default_factory=dict)
    tags: dict[Any, Any] = field(default_factory=dict)
    agent_names: dict[Any, Any] = field(default_factory=dict)
    agent_colors: dict[Any, Any] = field(default_factory=dict)
    agent_settings: dict[Any, Any] = field(default_factory=dict)
    modes: dict[Any, Any] = field(default_factory=dict)
    worktree_states: dict[Any, Any] = field(default_factory=dict)
    pr_links: dict[Any, Json] = field(default_factory=dict)
    file_history: dict[Any, Json] = field(default_factory=dict)
    attribution: dict[Any, Json] = field(default_factory=dict)
    content_replacements: dict[Any, list[Any]] = field(default_factory=dict)
    agent_content_replacements: dict[Any, list[Any]] = field(default_factory=dict)
    collapse_commits: list[Json] = field(default_factory=list)
    collapse_snapshot: Json | None = None
    leaf_uuids: set[Any] = field(default_factory=set)
    #: the lines of rows a later row of the same uuid replaced (``line`` is keyed by the
    #: rows' ids, which a row let go may pass on; a ``Glanced`` row carries its own)
    replaced: list[int] = field(default_factory=list)
    #: the key of the last main-chain (not sidechain) row the loop put in ``messages``
    #: (``UNDEFINED`` when none had a truthy uuid); 2.1.101 narrows the leaves to it
    last_main: Any = UNDEFINED
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: why each line the loop parsed but kept no row of is not on the chain (by line)
    unkept: dict[int, Diagnostic] = field(default_factory=dict)
    #: how many lines the file has, when the read counted them
    line_count: int | None = None
    #: whether the whole file is UTF-8, when the read found out (None: not known)
    utf8: bool | None = None
    #: how many ``Light`` rows the dispatch put in ``messages``
    light: int = 0
    #: where the lines the loader parsed start, when their buffer is UTF-8
    spans: Spans | None = None

    def get(self, uuid: Any) -> Json | None:
        """``messages.get(uuid)``."""
        return self.messages.get(mkey(uuid))

    def parent(self, entry: Json) -> Json | None:
        """``entry.parentUuid ? messages.get(entry.parentUuid) : undefined``."""
        if type(entry) is Glanced:  # its parent a string, null or absent
            parent = entry.facts[PARENT]  # type: ignore[attr-defined]
            return self.messages.get(parent) if type(parent) is str and parent else None
        parent = entry.get("parentUuid", UNDEFINED)
        return self.get(parent) if truthy(parent) else None

    def line_of(self, entry: Json) -> int | None:
        if type(entry) is Glanced or type(entry) is Light:
            return entry.line  # type: ignore[attr-defined,no-any-return]
        return self.line.get(id(entry))

    def lines_of(self, entries: Iterable[Json]) -> list[int | None]:
        """``line_of`` of each entry, in one pass (no call per row)."""
        line = self.line
        return [e.line if type(e) is Glanced or type(e) is Light  # type: ignore[attr-defined]
                else line.get(id(e)) for e in entries]


def dispatch_metadata(loaded: Loaded, entry: Any) -> None:
    """One non-message line into its metadata map (later values win)."""
    kind = prop(entry, "type")
    if type(kind) is not str:
        return  # no metadata map is keyed by a list or an object
    if kind == "summary":
        if truthy(prop(entry, "leafUuid")):
            loaded.summaries[mkey(entry["leafUuid"])] = prop(entry, "summary")
        return
    if kind in SESSION_MAPS:
        if truthy(prop(entry, "sessionId")):
            name, value = SESSION_MAPS[kind]
            getattr(loaded, name)[mkey(entry["sessionId"])] = prop(entry, value)
        return
    if kind == "pr-link":
        if truthy(prop(entry, "sessionId")):
            loaded.pr_links[mkey(entry["sessionId"])] = {
                "prNumber": prop(entry, "prNumber"),
                "prUrl": prop(entry, "prUrl"),
                "prRepository": prop(entry, "prRepository"),
            }
        return
    if kind == "file-history-snapshot":
        loaded.file_history[mkey(prop(entry, "messageId"))] = entry
    elif kind == "attribution-snapshot":
        loaded.attribution[mkey(prop(entry, "messageId"))] = entry
    elif kind == "content-replacement":
        _add_replacements(loaded, entry)
    elif kind == "marble-origami-commit":
        loaded.collapse_commits.append(entry)
    elif kind == "marble-origami-snapshot":
        loaded.collapse_snapshot = entry


def _add_replacements(loaded: Loaded, entry: Json) -> None:
    """``existing.push(...entry.replacements)``: throws unless the value is iterable."""
    replacements = entry.get("replacements", UNDEFINED)
    if type(replacements) is str:
        items: list[Any] = list(replacements)
    elif type(replacements) is list:
        items = replacements
    else:
        raise LoadAbortedError("content-replacement without iterable replacements (TypeError)")
    agent = entry.get("agentId", UNDEFINED)
    if truthy(agent):
        loaded.agent_content_replacements.setdefault(mkey(agent), []).extend(items)
    else:
        owner = mkey(entry.get("sessionId", UNDEFINED))
        loaded.content_replacements.setdefault(owner, []).extend(items)


def dispatch(values: Iterable[tuple[int, Any]], loaded: Loaded,
             release: SeedRelease = BASE) -> None:
    """The main loop: progress bridge, messages by uuid, metadata maps.

    A bare ``null`` (or any throw) ends the loop; what was collected stays, as
    the loop sits inside a ``try`` whose ``catch`` is empty. Before 2.1.88's line a
    progress row is a chain member (2.1.39) or not loaded at all (2.0.76), and before
    2.1.39 a ``null`` line is passed over.
    """
    bridge: dict[str, Any] = {}
    messages, line = loaded.messages, loaded.line
    kinds = MESSAGE_TYPES if release.progress_bridged or not release.progress_loaded \
        else MESSAGE_TYPES | {"progress"}
    replaced, line_of, unkept = loaded.replaced, loaded.line_of, loaded.unkept
    last_main, main = loaded.last_main, False  # the last glanced main row's key, if later
    for number, value in values:
        if type(value) is Glanced:
            # a user or assistant row with a string uuid (a member for every release): the
            # branch below, read from its facts
            facts = value.facts
            uuid, parent, side = facts[UUID], facts[PARENT], value.side
            if bridge and type(parent) is str and parent in bridge:
                value = {**as_dict(value), "parentUuid": _null(bridge[parent])}
                line[id(value)] = number
            old = messages.get(uuid)
            if old is not None:  # its line, while the row is alive to be looked up
                replaced.append(line_of(old))  # type: ignore[arg-type]
            messages[uuid] = value
            if side is None or side is UNDEFINED or side is False:
                last_main, main = uuid, True
            continue
        if type(value) is Light:  # the branch above, for a row glanced at lightly
            uuid, parent, side = value.uuid, value.parent, value.side
            if bridge and type(parent) is str and parent in bridge:
                value = {**value.fresh(), "parentUuid": _null(bridge[parent])}
                line[id(value)] = number
            else:
                loaded.light += 1
            old = messages.get(uuid)
            if old is not None:
                replaced.append(line_of(old))  # type: ignore[arg-type]
            messages[uuid] = value
            if side is None or side is UNDEFINED or side is False:
                last_main, main = uuid, True
            continue
        if main:  # kept until a row of another kind may set it
            loaded.last_main, main = last_main if last_main else UNDEFINED, False
        if type(value) is Progress:  # handed only to releases that bridge or skip them
            if release.progress_bridged:
                parent = value.parent
                bridged = type(parent) is str and parent != "" and parent in bridge
                bridge[value.uuid] = (_null(bridge[parent])) if bridged else parent
            unkept[number] = unkept_reason(number, value)
            continue
        if value is None and not release.null_line_stops_loading:
            unkept[number] = unkept_reason(number, value)
            continue
        if value is None:
            loaded.diagnostics.append(
                Diagnostic(number, "load-aborted", "a JSON null line throws: loading stops here")
            )
            return
        if type(value) is not dict and type(value) is not Glanced:
            unkept[number] = unkept_reason(number, value)
            continue
        kind = value.get("type")
        if type(kind) is not str:
            kind = None  # a list or object type is in no set (JS ``Set.has`` by identity)
        uuid = value.get("uuid", UNDEFINED)
        if kind == "progress" and not release.progress_loaded:
            unkept[number] = unkept_reason(number, value)
            continue
        if kind == "progress" and type(uuid) is str and release.progress_bridged:
            parent = value.get("parentUuid", UNDEFINED)
            bridged = type(parent) is str and parent != "" and parent in bridge
            bridge[uuid] = (_null(bridge[parent])) if bridged else parent
            unkept[number] = unkept_reason(number, value)
            continue
        if kind in kinds:
            if bridge:
                parent = value.get("parentUuid", UNDEFINED)
                if type(parent) is str and parent in bridge:
                    value = {**as_dict(value), "parentUuid": _null(bridge[parent])}
            slot = uuid if type(uuid) is str else mkey(uuid)
            old = messages.get(slot)
            if old is not None:  # its line, while the row is alive to be looked up
                loaded.replaced.append(loaded.line_of(old))  # type: ignore[arg-type]
            if type(value) is not Glanced:
                line[id(value)] = number
            messages[slot] = value
            side = value.get("isSidechain")
            if side is None or side is False or not truthy(side):
                loaded.last_main = slot if truthy(uuid) else UNDEFINED
            if kind == "system" and value.get("subtype") == "compact_boundary":  # is_boundary
                loaded.collapse_commits.clear()
                loaded.collapse_snapshot = None
            continue
        try:
            dispatch_metadata(loaded, value)
        except LoadAbortedError as error:
            loaded.diagnostics.append(Diagnostic(number, "load-aborted", str(error)))
            return
        unkept[number] = unkept_reason(number, value)
    if main:
        loaded.last_main = last_main if last_main else UNDEFINED


def unkept_reason(number: int, value: Any) -> Diagnostic:
    """Why a parsed line of which the loader kept no row is off the chain, from its value
    (named while the loop holds it: the accounting need not decode the line again)."""
    if type(value) is Progress:
        return Diagnostic(number, "progress", "progress row: its children are re-parented")
    if type(value) is not dict:
        return Diagnostic(number, "not-an-object", f"JSON {type(value).__name__} is not an entry")
    kind = value.get("type")
    if kind == "progress" and type(value.get("uuid")) is str:
        return Diagnostic(number, "progress", "progress row: its children are re-parented")
    if type(kind) is str and kind in MESSAGE_TYPES:
        return Diagnostic(number, "off-chain", "not kept by the loader")
    detail = f"type {kind!r} is not a conversation row" if type(kind) is str else "no type"
    return Diagnostic(number, "ignored-type", detail)


def _null(value: Any) -> Any:
    """``value ?? null``."""
    return None if value is UNDEFINED else value


def apply_preserved_segment(loaded: Loaded) -> None:
    """``applyPreservedSegmentRelinks``: splice the live segment back, prune before the boundary."""
    messages = loaded.messages
    last_segment: Any = None
    segment_at = absolute_at = -1
    # a glanced row (``Glanced`` or ``Light``) is a user or assistant row: only a decoded
    # one can be a boundary, and the others are passed over in C
    entries = list(messages.values())
    for at in compress(count(), map(is_, map(type, entries), repeat(dict))):
        entry = entries[at]
        # ``is_boundary`` (every entry is an object)
        if entry.get("type") == "system" and entry.get("subtype") == "compact_boundary":
            absolute_at = at
            segment = prop(prop(entry, "compactMetadata"), "preservedSegment")
            if truthy(segment):
                last_segment, segment_at = segment, at
    if last_segment is None:
        return
    head_uuid = _member(last_segment, "headUuid")
    tail_uuid = _member(last_segment, "tailUuid")
    anchor_uuid = _member(last_segment, "anchorUuid")
    preserved: set[Any] = set()
    live = segment_at == absolute_at
    if live:
        walked: set[Any] = set()
        current = loaded.get(tail_uuid)
        reached = False
        while current is not None:
            uuid = current.facts[UUID] if type(current) is Glanced \
                else current.get("uuid", UNDEFINED)  # type: ignore[attr-defined]
            if mkey(uuid) in walked:
                break
            walked.add(mkey(uuid))
            preserved.add(mkey(uuid))
            if strict_equal(uuid, head_uuid):
                reached = True
                break
            current = loaded.parent(current)
        if not reached:
            loaded.diagnostics.append(
                Diagnostic(None, "segment-walk-broken", "preservedSegment tail does not reach its "
                           "head: no relink and no pruning")
            )
            return
        _relink_segment(loaded, head_uuid, tail_uuid, anchor_uuid, preserved,
                        max(absolute_at, 0))
    # the relinks above replace entries in their places: the first ``absolute_at`` slots
    # are still the ones written before the boundary
    pruned = [slot for slot in islice(messages, max(absolute_at, 0)) if slot not in preserved]
    lines = loaded.lines_of(list(map(messages.pop, pruned)))
    loaded.diagnostics.extend(findings(lines, "before-compact-boundary",  # type: ignore[arg-type]
                                       "pruned: written before the last compact boundary"))


def _member(value: Any, name: str) -> Any:
    """``value.name`` for any JSON value (strings and numbers have no such member)."""
    return prop(value, name)


def _relink_segment(
    loaded: Loaded, head_uuid: Any, tail_uuid: Any, anchor_uuid: Any, preserved: set[Any],
    pruned_before: int = 0,
) -> None:
    """The head onto the anchor, the anchor's other children onto the tail, the preserved
    assistants' usage zeroed. A child in the first ``pruned_before`` slots that is not
    preserved is left as it is: the prune drops it next, its line reported alike."""
    messages = loaded.messages
    head_slot = mkey(head_uuid)
    head = messages.get(head_slot)
    if head is not None:
        messages[head_slot] = _copy(loaded, head, parentUuid=anchor_uuid)
    # ``===`` of a string is ``==`` of strings: most parents are, no call for those
    anchor_str = type(anchor_uuid) is str
    kept = [(slot, messages[slot]) for slot in islice(messages, pruned_before)
            if slot in preserved]
    for slot, entry in chain(kept, list(islice(messages.items(), pruned_before, None))):
        # ``entry.parentUuid`` (``UNDEFINED`` when absent), a glanced row's without a call
        kind = type(entry)
        parent = entry.facts[PARENT] if kind is Glanced else entry.parent if kind is Light \
            else entry.get("parentUuid", UNDEFINED)  # type: ignore[attr-defined]
        same = (anchor_str and parent == anchor_uuid) if type(parent) is str \
            else strict_equal(parent, anchor_uuid)
        if same and not strict_equal(_slot_value(slot, entry), head_uuid):
            messages[slot] = _copy(loaded, entry, parentUuid=tail_uuid)
    for slot in preserved:
        entry = messages.get(slot)
        if entry is None or entry.get("type") != "assistant":
            continue
        message = entry.get("message", UNDEFINED)
        if message is None or message is UNDEFINED:
            raise LoadFailedError("a preserved assistant without message (TypeError)")
        usage = prop(message, "usage")
        zeroed = dict(usage) if type(usage) is dict else {}
        zeroed.update(input_tokens=0, output_tokens=0, cache_creation_input_tokens=0,
                      cache_read_input_tokens=0)
        body = {**message, "usage": zeroed} if type(message) is dict else {"usage": zeroed}
        messages[slot] = _copy(loaded, entry, message=body)


def _slot_value(slot: Any, entry: Json) -> Any:
    """The Map key a slot stands for (the entry's uuid when it was set under it)."""
    return entry.get("uuid", UNDEFINED) if type(slot) is not str else slot


def _copy(loaded: Loaded, entry: Json, **changes: Any) -> Json:
    """``{...entry, ...changes}``, keeping the entry's line number."""
    copied = {**as_dict(entry), **changes}
    loaded.line[id(copied)] = loaded.line_of(entry) or 0
    return copied


class LoadFailedError(Exception):
    """``loadTranscriptFile`` itself throws after parsing: the resume fails."""


def apply_snips(loaded: Loaded) -> None:
    """``applySnipRemovals``: drop every uuid a snip removed and relink across the gap."""
    messages = loaded.messages
    removed: dict[Any, Any] = {}  # key -> uuid value, in insertion order
    for entry in messages.values():
        if type(entry) is Glanced:
            continue  # the glance found no ``snipMetadata`` (else the row is decoded)
        listed = prop(prop(entry, "snipMetadata"), "removedUuids")
        if not truthy(listed):
            continue
        if type(listed) is not list:
            listed = list(listed) if type(listed) is str else []
        for uuid in listed:
            removed.setdefault(mkey(uuid), uuid)
    if not removed:
        return
    parent_of: dict[Any, Any] = {}
    for slot in removed:
        entry = messages.pop(slot, None)
        if entry is None:
            continue
        parent_of[slot] = entry.get("parentUuid", UNDEFINED)
        loaded.diagnostics.append(
            Diagnostic(loaded.line_of(entry), "snipped", "removed by a snip (snipMetadata)")
        )

    def resolve(start: Any) -> Any:
        path: list[Any] = []
        current = start
        while truthy(current) and mkey(current) in removed:
            path.append(mkey(current))
            current = parent_of.get(mkey(current), UNDEFINED)
            if current is UNDEFINED:
                current = None
                break
        for slot in path:
            parent_of[slot] = current
        return current

    for slot, entry in list(messages.items()):
        parent = entry.get("parentUuid", UNDEFINED)
        if truthy(parent) and mkey(parent) in removed:
            messages[slot] = _copy(loaded, entry, parentUuid=resolve(parent))


def compute_leaves(loaded: Loaded) -> None:
    """``leafUuids``: each terminal walked up to its nearest user/assistant (no pruning flag)."""
    messages = loaded.messages
    # the Map keys parents point to (a glanced row's parent is a string, null or absent)
    pointed = {e.facts[PARENT] if type(e) is Glanced else _parent_slot(e)  # type: ignore[attr-defined]
               for e in messages.values()}
    pointed.discard(None)
    if UNDEFINED in pointed:
        pointed.discard(UNDEFINED)
        pointed.add(mkey(UNDEFINED))
    leaves = loaded.leaf_uuids
    for slot in messages.keys() - pointed:  # a row's slot is the key of its uuid
        terminal = messages[slot]
        if type(terminal) is Glanced:  # a user or assistant row: its own nearest message
            leaves.add(slot)
            continue
        found = nearest_message(loaded, terminal)
        if found is not None:
            leaves.add(found)


def _parent_slot(entry: Json) -> Any:
    """The Map key of a decoded row's ``parentUuid`` (None for null)."""
    parent = entry.get("parentUuid", UNDEFINED)
    return parent if type(parent) is str or parent is None else mkey(parent)


def nearest_message(loaded: Loaded, start: Json) -> Any:
    """The key of the first user/assistant row from ``start`` up its parents; None when the
    walk meets a missing parent or a row already seen first."""
    seen: set[Any] = set()
    current: Json | None = start
    while current is not None:
        slot = mkey(current.get("uuid", UNDEFINED))
        if slot in seen:
            return None
        seen.add(slot)
        if current.get("type") in ("user", "assistant"):
            return slot
        current = loaded.parent(current)
    return None


def keep_last_written_leaf(loaded: Loaded) -> None:
    """From 2.1.101: with more than one leaf, the leaves become the one the last main-chain
    row written walks up to, whether that row has children or not (a repeated uuid
    written last names its first copy's place); a walk that finds none keeps them all."""
    start = loaded.messages.get(loaded.last_main) if loaded.last_main is not UNDEFINED else None
    if len(loaded.leaf_uuids) < 2 or start is None:
        return
    found = nearest_message(loaded, start)
    if found is not None:
        loaded.leaf_uuids = {found}


def read_in_full(loaded: Loaded, upgrade: Callable[[Light], Any]) -> None:
    """Each ``Light`` row still in the Map replaced, in its place, by its line read in
    full (``upgrade``), before any pass reads more of it than the prune does."""
    messages, line = loaded.messages, loaded.line
    kept = [(slot, entry) for slot, entry in messages.items() if type(entry) is Light]
    for slot, entry in kept:
        value = upgrade(entry)
        if type(value) is not Glanced:
            line[id(value)] = entry.line
        messages[slot] = value
    loaded.light = 0


def load(values: Iterable[tuple[int, Any]], metadata: Iterable[tuple[int, Any]] = (),
         release: SeedRelease = BASE, upgrade: Callable[[Light], Any] | None = None) -> Loaded:
    """``loadTranscriptFile`` after the read: metadata lines first, then the buffer, as
    ``release`` loads it (``upgrade``: how a ``Light`` row's line is read in full)."""
    loaded = Loaded()
    for _, value in metadata:
        if value is None:
            return loaded  # ``entry.type`` throws before the main buffer is even parsed
        if type(value) is dict and type(value.get("type")) is str \
                and value["type"] in PRE_BOUNDARY_TYPES:
            dispatch_metadata(loaded, value)
    dispatch(values, loaded, release)
    if release.preserved_segment_relink:
        apply_preserved_segment(loaded)
    if loaded.light:
        if upgrade is None:
            raise ValueError("Light rows need an upgrade")
        read_in_full(loaded, upgrade)
    apply_snips(loaded)
    compute_leaves(loaded)
    if release.leaf_last_written:
        keep_last_written_leaf(loaded)
    return loaded
