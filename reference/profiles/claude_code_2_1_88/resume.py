"""What 2.1.88 resumes from a loaded transcript: leaf per entry point, walk, recovery, filters.

Entry points pick the leaf differently (``findLatestMessage`` is a strict ``>``
over ``Date.parse``, so ties go to the first in Map order and NaN never wins):

* ``continue`` (and the picker): leaves of type user/assistant, sidechains too;
* ``resume-id`` (``--resume <uuid>``): every entry that is not a sidechain;
* ``resume-file`` (``--resume <path>.jsonl``): non-sidechain leaves, with
  ``new Date(ts).getTime()`` and a start at 0, so a time must be > 0.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

from rechain.reference.facts import ANSWERS, CALLS, KIND, MESSAGE_ID, PARENT, UUID
from rechain.reference.first_prompt import first_prompt_fails as scan_throws
from rechain.reference.graph import Graph, ReaderError
from rechain.reference.js import date_v8
from rechain.reference.js.text import trim
from rechain.reference.js.values import UNDEFINED, prop, to_string, truthy
from rechain.reference.lazyrows import LazyChain
from rechain.reference.model import Diagnostic, Json, findings
from rechain.reference.profiles.claude_code_2_1_88.glanced import (
    HAS_MESSAGE,
    OTHER,
    PERMISSION_MODES,
    PLAIN,
    RESULTS,
    THINKING,
    THINKING_ONLY,
    TODO_FREE,
    Glanced,
    as_dict,
)
from rechain.reference.profiles.claude_code_2_1_88.load import Loaded, mkey
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease
from rechain.reference.profiles.claude_code_2_1_88.split import (
    filter_unanswered_by_key,
    split_per_block,
)
from rechain.reference.profiles.claude_code_2_1_88.stamps import newest_written
from rechain.reference.profiles.claude_code_2_1_332.chain import TimestampBridge
from rechain.reference.recover import sorted_by_timestamp
from rechain.reference.rows import as_blocks
from rechain.reference.rows import content as content_of

ENTRY_POINTS = ("continue", "resume-id", "resume-file")
DEFAULT_ENTRY = "continue"
CONTINUE_TEXT = "Continue from where you left off."
NO_RESPONSE_TEXT = "No response requested."


def latest(entries: list[Json], time: Callable[[Any], float], start: float) -> Json | None:
    """The first entry with the strictly greatest time (NaN never compares greater); the
    stamps of ``Date.parse`` from minus infinity compared as strings when all are in the
    written form (``stamps.newest_written``)."""
    stamps = [entry.get("timestamp", UNDEFINED) for entry in entries]
    if time is date_v8.parse and start == float("-inf"):
        at = newest_written(stamps)
        if at is not None:
            return entries[at]
    best: Json | None = None
    best_time = start
    for entry, stamp in zip(entries, stamps, strict=True):
        moment = time(stamp)
        if moment > best_time:
            best, best_time = entry, moment
    return best


def continue_pool(loaded: Loaded) -> list[Json]:
    """``loadFullLog``'s candidates: leaves of type user/assistant, sidechains not excluded."""
    leaves = loaded.leaf_uuids
    return [e for s, e in loaded.messages.items() if s in leaves
            and (e.facts[KIND] if type(e) is Glanced else e.get("type")) in ("user", "assistant")]


def resume_id_pool(loaded: Loaded) -> list[Json]:
    """``getLastSessionLog``'s candidates: every entry that is not a sidechain."""
    return [e for e in loaded.messages.values() if not truthy(e.get("isSidechain"))]


def resume_file_pool(loaded: Loaded) -> list[Json]:
    """``loadMessagesFromJsonlPath``'s candidates: non-sidechain leaves."""
    return [e for s, e in loaded.messages.items() if s in loaded.leaf_uuids
            and not truthy(e.get("isSidechain"))]


def leaf_for_continue(loaded: Loaded) -> Json | None:
    """``loadFullLog``: newest leaf of type user/assistant, sidechains not excluded."""
    return latest(continue_pool(loaded), date_v8.parse, float("-inf"))


def leaf_for_continue_main(loaded: Loaded) -> Json | None:
    """2.0.76's ``--continue``: the newest row nothing points to that is not a sidechain, of
    any type, not walked up to a message (a system row below the last message is resumed
    with it: probed)."""
    entries = list(loaded.messages.values())
    pointed = {mkey(e.get("parentUuid", UNDEFINED)) for e in entries
               if e.get("parentUuid", UNDEFINED) is not None}
    pool = [e for e in entries if mkey(e.get("uuid", UNDEFINED)) not in pointed
            and not truthy(e.get("isSidechain"))]
    return latest(pool, date_v8.parse, float("-inf"))


def leaf_for_resume_id(loaded: Loaded) -> Json | None:
    """``getLastSessionLog``: newest entry of any type that is not a sidechain."""
    return latest(resume_id_pool(loaded), date_v8.parse, float("-inf"))


def leaf_for_resume_file(loaded: Loaded) -> Json | None:
    """``loadMessagesFromJsonlPath``: newest non-sidechain leaf whose time is above 0."""
    return latest(resume_file_pool(loaded), date_v8.get_time, 0.0)


def resume_id_leaf_pool(loaded: Loaded) -> list[Json]:
    """``--resume <id>`` from 2.1.101: leaves of type user/assistant that are not sidechains
    (before: every row that is not a sidechain, children or not)."""
    return [e for s, e in loaded.messages.items() if s in loaded.leaf_uuids
            and not truthy(e.get("isSidechain")) and e.get("type") in ("user", "assistant")]


def leaf_for_resume_id_leaves(loaded: Loaded) -> Json | None:
    """``--resume <id>`` from 2.1.101: the newest of its leaf pool."""
    return latest(resume_id_leaf_pool(loaded), date_v8.parse, float("-inf"))


LEAF_RULES: dict[str, Callable[[Loaded], Json | None]] = {
    "continue": leaf_for_continue,
    "resume-id": leaf_for_resume_id,
    "resume-file": leaf_for_resume_file,
}


def leaf_rule(entry: str, release: SeedRelease = BASE) -> Callable[[Loaded], Json | None]:
    """The entry point's leaf choice by newest timestamp over its pool; from 2.1.101 the
    loader has already narrowed the leaves to the last-written one's (``load``), and
    ``--resume <id>`` ranks leaves only. 2.0.76's ``--continue`` leaves sidechain leaves
    out (its list shows such sessions)."""
    if entry == "continue" and not release.continue_hides_sidechain_heads:
        return leaf_for_continue_main
    if release.leaf_last_written and entry == "resume-id":
        return leaf_for_resume_id_leaves
    return LEAF_RULES[entry]


class WalkHangsError(Exception):
    """A release without cycle detection meets a parent already on the chain: it never
    returns (the real program spins at 100 % CPU until it is killed)."""


HANG_TEXT = ("hangs: the walk meets a parent already on the chain and, without cycle "
             "detection, follows the cycle for ever (100 % CPU, no exit)")


def walk(loaded: Loaded, leaf: Json, bridge: bool = False, cycle_detection: bool = True,
         cycles: bool = False) -> tuple[list[Json], set[Any]]:
    """``buildConversationChain``'s walk: root first; stops at a missing parent or a repeat.

    With ``bridge`` (from 2.1.91) a parent missing from the file is bridged by timestamp
    as the later CLI does (``TimestampBridge``); without ``cycle_detection`` (before
    2.1.39) a repeat raises ``WalkHangsError``; with ``cycles`` (``cycle_bridge``) a
    parent already on the chain is bridged by timestamp as a missing one is.
    """
    chain: list[Json] = []
    seen: set[Any] = set()
    finder = _SlotBridge(loaded) if bridge else None
    messages = loaded.messages
    current: Json | None = leaf
    while current is not None:
        if type(current) is Glanced and current.facts[UUID] not in seen:
            # the common step, read from the facts: its parent a string, null or absent
            facts = current.facts
            seen.add(facts[UUID])
            chain.append(current)
            parent_uuid = facts[PARENT]
            parent = messages.get(parent_uuid) \
                if type(parent_uuid) is str and parent_uuid else None
            if parent is not None and not (cycles and _key(parent) in seen):
                current = parent
                continue
            current = _past_missing(loaded, current, parent, seen, finder, cycles)
            continue
        slot = current.facts[UUID] if type(current) is Glanced \
            else mkey(current.get("uuid", UNDEFINED))  # type: ignore[attr-defined]
        if slot in seen:
            if not cycle_detection:
                loaded.diagnostics.append(Diagnostic(loaded.line_of(chain[-1]), "cycle",
                                                     HANG_TEXT))
                raise WalkHangsError(HANG_TEXT)
            loaded.diagnostics.append(
                Diagnostic(loaded.line_of(chain[-1]), "cycle",
                           "parent already on the chain: the walk stops (partial transcript)")
            )
            break
        seen.add(slot)
        chain.append(current)
        current = _past_missing(loaded, current, loaded.parent(current), seen, finder, cycles)
    chain.reverse()
    return chain, seen


def _past_missing(loaded: Loaded, current: Json, parent: Json | None, seen: set[Any],
                  finder: _SlotBridge | None, cycles: bool) -> Json | None:
    """The walk's next row after ``current``: its parent, or, when that is missing (or
    on the chain, with ``cycles``), the row the timestamp bridge finds, if it bridges."""
    repeat = (cycles and parent is not None
              and mkey(parent.get("uuid", UNDEFINED)) in seen)
    if (parent is None or repeat) and finder is not None \
            and truthy(current.get("parentUuid", UNDEFINED)):
        parent = finder.find(current, seen)
        why = "already on the chain" if repeat else "not in the file"
        if parent is not None:
            loaded.diagnostics.append(Diagnostic(
                loaded.line_of(current), "bridged",
                f"parent {why}: bridged to {parent.get('uuid')} by timestamp"))
    return parent


class _SlotBridge:
    """``TimestampBridge`` over every loaded row, whatever its uuid (the Map holds rows
    keyed by an object too, and the bridge can land on them), by a string name per slot."""

    def __init__(self, loaded: Loaded) -> None:
        self.names = {slot: slot if type(slot) is str else f"\x00slot:{at}"
                      for at, slot in enumerate(loaded.messages)}
        self.rows = {self.names[slot]: row for slot, row in loaded.messages.items()}
        nodes = {name: as_dict(row) if row.get("uuid") == name else {**as_dict(row), "uuid": name}
                 for name, row in self.rows.items()}
        self.bridge = TimestampBridge(Graph(nodes, {n: at for at, n in enumerate(nodes)}, {}),
                                      skip_chain_results=False)

    def find(self, child: Json, seen: set[Any]) -> Json | None:
        found = self.bridge.find(child, {self.names[s] for s in seen if s in self.names})
        return self.rows[found["uuid"]] if found is not None else None


def _message(entry: Json) -> Any:
    """``entry.message``, throwing where JS reads a member of undefined or null."""
    message = entry.get("message", UNDEFINED)
    if message is None or message is UNDEFINED:
        raise ReaderError(f"{entry.get('type')} entry without message (TypeError)")
    return message


def _message_id(entry: Json) -> Any:
    """``entry.message.id``, throwing as ``_message`` (a glanced row: from its glance)."""
    if type(entry) is Glanced:
        if not entry.flags & HAS_MESSAGE:
            raise ReaderError(f"{entry.kind} entry without message (TypeError)")
        return entry.mid
    return prop(_message(entry), "id")


def _answers(entry: Json) -> bool:
    """Whether ``entry.message.content`` is a list holding a tool_result block."""
    if type(entry) is Glanced:
        if not entry.flags & HAS_MESSAGE:
            raise ReaderError(f"{entry.kind} entry without message (TypeError)")
        return bool(entry.flags & RESULTS)
    content = prop(_message(entry), "content")
    return type(content) is list and any(prop(b, "type") == "tool_result" for b in content)


def recover(loaded: Loaded, chain: list[Json], seen: set[Any]) -> list[Json]:
    """``recoverOrphanedParallelToolResults`` as 2.1.88 has it (parent links only)."""
    assistants = [e for e in chain if (e.facts[KIND] if type(e) is Glanced
                                       else e.get("type")) == "assistant"]
    if not assistants or _all_walked(loaded, seen):
        return chain
    # each chain assistant's message id (its key), read once, throwing where JS does
    keyed = [(entry, _mid_key(entry)) for entry in assistants]
    anchors: dict[Any, Json] = {}
    for entry, mid in keyed:
        if mid is not None:
            anchors[mid] = entry
    groups, results = _groups(loaded)
    done: set[Any] = set()
    inserts: dict[int, list[Json]] = {}
    lines_of = loaded.lines_of
    lines: list[int | None] = []  # each recovered row's line and finding, in the order put back
    details: list[str] = []
    try:
        for entry, mid in keyed:
            if mid is None or mid in done:
                continue
            done.add(mid)
            group = groups.get(mid, [entry])
            siblings = [m for m in group if _key(m) not in seen]
            orphans = [r for m in group for r in results.get(_key(m), ())
                       if _key(r) not in seen]
            if not siblings and not orphans:
                continue
            recovered = sorted_by_timestamp(siblings) + sorted_by_timestamp(orphans)
            seen.update(map(_key, recovered))
            anchor = anchors[mid]
            inserts.setdefault(id(anchor), []).extend(recovered)
            lines += lines_of(recovered)
            details += repeat(f"off the walked path; put back after {anchor.get('uuid')}",
                              len(recovered))
    finally:  # the findings made in one batch, also when a sort throws (a call per group
        # cost twice as much on the linear file's thousand groups)
        loaded.diagnostics.extend(findings(lines, "recovered", details))  # type: ignore[arg-type]
    if not inserts:
        return chain
    out: list[Json] = []
    for entry in chain:
        out.append(entry)
        out.extend(inserts.get(id(entry), ()))
    return out


def _mid_key(entry: Json) -> Any:
    """The key of a truthy ``entry.message.id``, or None (``_message_id`` throws)."""
    if type(entry) is Glanced:
        if not entry.flags & HAS_MESSAGE:
            raise ReaderError(f"{entry.kind} entry without message (TypeError)")
        return entry.facts[MESSAGE_ID] or None  # a string or None
    mid = prop(_message(entry), "id")
    return mkey(mid) if truthy(mid) else None


def _groups(loaded: Loaded) -> tuple[dict[Any, list[Json]], dict[Any, list[Json]]]:
    """Every loaded assistant by its message id's key, every user row holding a tool
    result by its parent's, in the Map's order (a glanced row read from its facts)."""
    groups: dict[Any, list[Json]] = {}
    results: dict[Any, list[Json]] = {}
    for entry in loaded.messages.values():
        if type(entry) is Glanced:
            facts, flags = entry.facts, entry.flags
            if not flags & HAS_MESSAGE:  # _message_id and _answers throw alike
                if facts[KIND] == "assistant" or (
                        type(facts[PARENT]) is str and facts[PARENT] != ""):
                    raise ReaderError(f"{facts[KIND]} entry without message (TypeError)")
                continue
            if facts[KIND] == "assistant":
                mid = facts[MESSAGE_ID]
                if mid:
                    group = groups.get(mid)
                    if group is None:
                        groups[mid] = [entry]
                    else:
                        group.append(entry)
            elif flags & RESULTS and type(facts[PARENT]) is str and facts[PARENT] != "":
                results.setdefault(facts[PARENT], []).append(entry)
            continue
        kind = entry.get("type")
        if kind == "assistant":
            mid = _message_id(entry)
            if truthy(mid):
                groups.setdefault(mkey(mid), []).append(entry)
        elif kind == "user" and truthy(entry.get("parentUuid")) and _answers(entry):
            results.setdefault(mkey(entry.get("parentUuid")), []).append(entry)
    return groups, results


def _all_walked(loaded: Loaded, seen: set[Any]) -> bool:
    """Whether every assistant and every tool result with a parent is on the walked chain
    and has a message: no group then has a sibling or an orphan to put back, and nothing
    throws (else the recovery runs, and throws where it would)."""
    for entry in loaded.messages.values():
        if type(entry) is Glanced:  # read from its facts and flags
            facts = entry.facts
            parent = type(facts[PARENT]) is str and facts[PARENT] != ""
            if not entry.flags & HAS_MESSAGE:
                if facts[KIND] == "assistant" or parent:
                    return False
            elif (facts[KIND] == "assistant" or (parent and entry.flags & RESULTS)) \
                    and facts[UUID] not in seen:
                return False
            continue
        kind = entry.get("type")
        if kind == "assistant":
            if not _has_message(entry) or mkey(entry.get("uuid", UNDEFINED)) not in seen:
                return False
        elif kind == "user" and truthy(entry.get("parentUuid")):
            if not _has_message(entry):
                return False
            if _answers(entry) and mkey(entry.get("uuid", UNDEFINED)) not in seen:
                return False
    return True


def _key(entry: Json) -> Any:
    """The key of the row's uuid in the loader's map (a glanced row's: its string uuid)."""
    return entry.facts[UUID] if type(entry) is Glanced \
        else mkey(entry.get("uuid", UNDEFINED))  # type: ignore[attr-defined]


def _has_message(entry: Json) -> bool:
    if type(entry) is Glanced:
        return bool(entry.flags & HAS_MESSAGE)
    message = entry.get("message", UNDEFINED)
    return message is not None and message is not UNDEFINED


def remove_extra_fields(chain: list[Json]) -> list[Json]:
    """``removeExtraFields``: drop ``isSidechain`` and ``parentUuid``."""
    return [{k: v for k, v in e.items() if k not in ("isSidechain", "parentUuid")}
            for e in chain]


@dataclass(slots=True)
class Resumed:
    """The deserialised conversation and how the turn was left."""

    messages: list[Json] = field(default_factory=list)
    interruption: str = "none"


def _blocks(entry: Json, kind: str) -> list[Json]:
    content = content_of(entry)
    return [b for b in content if prop(b, "type") == kind] if type(content) is list else []


LEGACY_ATTACHMENTS = {"new_file": "file", "new_directory": "directory"}


def migrate_attachment(entry: Json) -> Json:
    """``migrateLegacyAttachmentTypes``: ``new_file``/``new_directory`` renamed."""
    if entry.get("type") != "attachment":
        return entry
    attachment = entry.get("attachment")
    kind = prop(attachment, "type")
    renamed = LEGACY_ATTACHMENTS.get(kind) if type(kind) is str else None
    if renamed is None or type(attachment) is not dict:
        return entry
    return {**entry, "attachment": {**attachment, "type": renamed}}


def strip_permission_mode(entry: Json) -> Json:
    """A user message's unknown ``permissionMode`` becomes undefined (dropped when written)."""
    mode = entry.get("permissionMode", UNDEFINED)
    if entry.get("type") != "user" or mode is UNDEFINED or (
            type(mode) is str and mode in PERMISSION_MODES):
        return entry
    return {k: v for k, v in entry.items() if k != "permissionMode"}


def _note_calls(content: list[Any], uses: set[Any], answered: set[Any]) -> None:
    """The keys of a message's ``tool_use`` ids into ``uses``, of its ``tool_result``
    blocks' ``tool_use_id`` into ``answered``."""
    for block in content:
        kind = block.get("type") if type(block) is dict else UNDEFINED  # ``prop``
        if kind == "tool_use":
            uses.add(mkey(block.get("id", UNDEFINED)))
        elif kind == "tool_result":
            answered.add(mkey(block.get("tool_use_id", UNDEFINED)))


def filter_unresolved_tool_uses(messages: list[Json]) -> list[Json]:
    """Drop an assistant only when every tool_use in it is never answered."""
    uses: set[Any] = set()
    answered: set[Any] = set()
    for entry in messages:  # one pass over each row's blocks for both kinds
        content = content_of(entry)
        if entry.get("type") in ("user", "assistant") and type(content) is list:
            _note_calls(content, uses, answered)
    unresolved = uses - answered
    if not unresolved:
        return messages
    kept = []
    for entry in messages:
        ids = [mkey(prop(b, "id")) for b in _blocks(entry, "tool_use")]
        if entry.get("type") == "assistant" and ids and all(i in unresolved for i in ids):
            continue
        kept.append(entry)
    return kept




def filter_orphaned_thinking(messages: list[Json]) -> list[Json]:
    """Drop thinking-only assistants unless their ``message.id`` also has other content."""
    with_other: set[Any] = set()
    for entry in messages:
        content = content_of(entry)
        if entry.get("type") != "assistant" or type(content) is not list:
            continue
        mid = prop(entry["message"], "id")
        if any(prop(b, "type") not in THINKING for b in content) and truthy(mid):
            with_other.add(mkey(mid))
    kept = []
    for entry in messages:
        content = content_of(entry)
        if entry.get("type") == "assistant" and type(content) is list and content:
            mid = prop(entry["message"], "id")
            if all(prop(b, "type") in THINKING for b in content) and not (
                truthy(mid) and mkey(mid) in with_other
            ):
                continue
        kept.append(entry)
    return kept


def _whitespace_only(content: list[Any]) -> bool:
    """``hasOnlyWhitespaceTextContent``: only text blocks, all blank after ``trim()``.

    The blocks are tried in order and the scan stops at the first non-text block
    or non-blank text, so a text that is not a string throws only when reached:
    2.1.88 then fails the whole resume (rule 23).
    """
    for block in content:
        if prop(block, "type") != "text":
            return False
        text = prop(block, "text")
        if type(text) is not str:
            raise ReaderError("text.trim is not a function (TypeError)")
        if trim(text):
            return False
    return True


def _substantive(block: Any) -> bool:
    """A block that is neither thinking nor blank text (``(text ?? "").trim()`` throws on a
    text that is not a string)."""
    if block is None:
        raise ReaderError("null is not an object (evaluating 'w.type') (TypeError)")
    kind = prop(block, "type")
    if kind in THINKING:
        return False
    if kind != "text":
        return True
    text = prop(block, "text")
    if text is None or text is UNDEFINED:
        return False
    if type(text) is not str:
        raise ReaderError("text.trim is not a function (TypeError)")
    return trim(text) != ""


def _ids_with_content(messages: list[Json]) -> set[Any]:
    """The ``message.id`` of every assistant row holding a block of substance."""
    found: set[Any] = set()
    for entry in messages:
        mid = prop(entry.get("message"), "id") if entry.get("type") == "assistant" else None
        content = content_of(entry)
        if truthy(mid) and type(content) is list and any(_substantive(b) for b in content):
            found.add(mkey(mid))
    return found


def filter_whitespace_only(messages: list[Json], seam_newline: bool = True,
                           keep_with_content: bool = False) -> list[Json]:
    """Drop whitespace-only assistants; when any went, merge adjacent user messages.

    With ``keep_with_content`` (``whitespace_kept_with_content``) a whitespace-only row
    stays when another row of its ``message.id`` holds content (a streamed fragment).
    """
    if not any(entry.get("type") == "assistant" and type(content_of(entry)) is list
               and content_of(entry) and _whitespace_only(content_of(entry))
               for entry in messages):
        return messages
    keep = _ids_with_content(messages) if keep_with_content else set()
    kept = []
    for entry in messages:
        content = content_of(entry)
        if entry.get("type") == "assistant" and keep:
            mid = prop(entry.get("message"), "id")
            if truthy(mid) and mkey(mid) in keep:
                kept.append(entry)
                continue
        if (entry.get("type") == "assistant" and type(content) is list and content
                and _whitespace_only(content)):
            continue
        kept.append(entry)
    # adjacent user messages merge whenever a whitespace-only row was seen, kept or not
    merged: list[Json] = []
    for entry in kept:
        if entry.get("type") == "user" and merged and merged[-1].get("type") == "user":
            merged[-1] = merge_user_messages(merged[-1], entry, seam_newline)
        else:
            merged.append(entry)
    return merged


def merge_user_messages(a: Json, b: Json, seam_newline: bool = True) -> Json:
    """``mergeUserMessages``: a newline ends a's text at a text-text seam (``seam_newline``,
    not before 2.1.88's line); tool results first."""
    left, right = as_blocks(content_of(a)), as_blocks(content_of(b))
    if (seam_newline and left and right and prop(left[-1], "type") == "text"
            and prop(right[0], "type") == "text"):
        seam = {**left[-1], "text": f"{to_string(left[-1].get('text', UNDEFINED))}\n"}
        joined = [*left[:-1], seam, *right]
    else:
        joined = [*left, *right]
    results = [blk for blk in joined if prop(blk, "type") == "tool_result"]
    others = [blk for blk in joined if prop(blk, "type") != "tool_result"]
    uuid = b.get("uuid") if truthy(a.get("isMeta")) else a.get("uuid")
    message = a.get("message") if type(a.get("message")) is dict else {}
    return {**a, "uuid": uuid, "message": {**message, "content": results + others}}


def detect_interruption(messages: list[Json]) -> tuple[str, int]:
    """``detectTurnInterruption``: (none | interrupted_prompt | interrupted_turn, index)."""
    for at in range(len(messages) - 1, -1, -1):
        entry = messages[at]
        kind = entry.get("type")
        if kind in ("system", "progress") or (
            kind == "assistant" and truthy(entry.get("isApiErrorMessage"))
        ):
            continue
        if kind == "user":
            if truthy(entry.get("isMeta")) or truthy(entry.get("isCompactSummary")):
                return "none", at
            content = content_of(entry)
            first = content[0] if type(content) is list and content else UNDEFINED
            if prop(first, "type") == "tool_result" or truthy(entry.get("toolUseResult")):
                return "interrupted_turn", at
            return "interrupted_prompt", at
        if kind == "attachment":
            return "interrupted_turn", at
        return "none", at
    return "none", -1


def synthetic_continue() -> Json:
    """The meta user message 2.1.88 appends after an interrupted turn (random uuid there)."""
    return {"type": "user", "uuid": None, "isMeta": True, "synthetic": "continue",
            "message": {"role": "user", "content": [{"type": "text", "text": CONTINUE_TEXT}]}}


def synthetic_no_response() -> Json:
    """The sentinel assistant inserted after a trailing user message."""
    return {"type": "assistant", "uuid": None, "synthetic": "no-response",
            "message": {"role": "assistant", "model": "<synthetic>",
                        "stop_reason": "stop_sequence",
                        "content": [{"type": "text", "text": NO_RESPONSE_TEXT}]}}


def deserialise(chain: list[Json], release: SeedRelease = BASE) -> Resumed:
    """``deserializeMessagesWithInterruptDetection`` on the chain (fields already removed),
    as ``release`` does it."""
    messages = [strip_permission_mode(migrate_attachment(e)) for e in chain]
    if not release.rows_kept_whole:
        messages = split_per_block(messages)
    messages = (filter_unresolved_tool_uses(messages) if release.calls_matched_by_value
                else filter_unanswered_by_key(messages))
    if release.blank_assistants_dropped:
        messages = filter_orphaned_thinking(messages)
        messages = filter_whitespace_only(messages, release.merge_seam_newline,
                                          release.whitespace_kept_with_content)
    kind, _ = detect_interruption(messages)
    if kind == "interrupted_turn" and release.continue_interrupted_turn:
        messages = [*messages, synthetic_continue()]
    passed = ("system", "progress") if release.no_response_past_system else ()
    last = max((i for i, e in enumerate(messages) if e.get("type") not in passed),
               default=-1)
    if last != -1 and messages[last].get("type") == "user":
        messages.insert(last + 1, synthetic_no_response())
    return Resumed(messages, kind)


class ResumedRows(LazyChain):
    """Deserialised messages that are the chain's rows as stored: a row read is
    ``removeExtraFields`` of it (decoded, not kept), so a long chain is not held decoded."""

    __slots__ = ()

    def __getitem__(self, at: Any) -> Any:
        found = list.__getitem__(self, at)
        if type(at) is slice:
            return [_without_extra_fields(item) for item in found]
        return _without_extra_fields(found)

    def __iter__(self) -> Iterator[Json]:
        return map(_without_extra_fields, list.__iter__(self))

    def __reversed__(self) -> Iterator[Json]:
        return map(_without_extra_fields, list.__reversed__(self))

    def todo_rows(self) -> list[Json]:
        """The rows ``extract_todos`` can act on: not those the glance knows hold a list
        content without a TodoWrite call (``TODO_FREE``), for which its loop does nothing."""
        return [item for item in list.__iter__(self)
                if type(item) is not Glanced or not item.flags & TODO_FREE]


def _without_extra_fields(entry: Json) -> Json:
    return {k: v for k, v in as_dict(entry).items() if k not in ("isSidechain", "parentUuid")}


def todo_rows(messages: list[Json]) -> list[Json]:
    """What ``extract_todos`` needs to read of these messages (``ResumedRows.todo_rows``)."""
    return messages.todo_rows() if type(messages) is ResumedRows else messages


def deserialise_chain(chain: list[Json], release: SeedRelease = BASE) -> Resumed:
    """``deserialise(remove_extra_fields(chain))``. When the filters would only drop rows
    (told from the glanced rows' facts, or by the same tests on decoded ones), the rows
    kept stay as stored (``ResumedRows``); otherwise the chain is decoded and filtered as
    written."""
    kept = _kept_rows(chain, release)
    if kept is None:
        return deserialise(remove_extra_fields(chain), release)
    messages = ResumedRows(kept)
    kind, _ = detect_interruption(messages)
    if kind == "interrupted_turn" and release.continue_interrupted_turn:
        messages.append(synthetic_continue())
    passed = ("system", "progress") if release.no_response_past_system else ()
    # the last row not passed over, from the end (a glanced row's type from its facts)
    last = next((at for at in range(len(messages) - 1, -1, -1)
                 if _kind(list.__getitem__(messages, at)) not in passed), -1)
    if last != -1 and _kind(list.__getitem__(messages, last)) == "user":
        messages.insert(last + 1, synthetic_no_response())
    return Resumed(messages, kind)


def _kind(entry: Json) -> Any:
    """``entry.type`` (a glanced row's from its facts)."""
    return entry.facts[KIND] if type(entry) is Glanced else entry.get("type")  # type: ignore[attr-defined]


def _kept_rows(chain: list[Json], release: SeedRelease) -> list[Json] | None:
    """The rows ``deserialise``'s filters keep, as stored, when it would rewrite none and
    throw nowhere: no attachment renamed, no permission mode dropped, no blank assistant
    (which would merge user rows); rows are only dropped (calls never answered,
    thinking-only assistants without other content of their ``message.id``). None: let
    the exact filters run on the decoded chain."""
    if not (release.rows_kept_whole and release.calls_matched_by_value):
        return None
    uses: set[Any] = set()
    answered: set[Any] = set()
    for entry in chain:
        if type(entry) is Glanced:
            facts = entry.facts
            uses.update(facts[CALLS])
            if facts[ANSWERS]:
                answered.update(facts[ANSWERS])
            continue
        if strip_permission_mode(migrate_attachment(entry)) is not entry:
            return None
        content = content_of(entry)
        if entry.get("type") in ("user", "assistant") and type(content) is list:
            _note_calls(content, uses, answered)
    unresolved = uses - answered
    # a glanced row without calls, most of a chain, is kept without a call
    rows = [e for e in chain if (type(e) is Glanced and not e.facts[CALLS])  # type: ignore[attr-defined]
            or not _unanswered(e, unresolved)] if unresolved else chain
    if not release.blank_assistants_dropped:
        return rows
    with_other: set[Any] = set()
    for entry in rows:
        if type(entry) is Glanced:
            if entry.flags & OTHER and entry.facts[MESSAGE_ID]:
                with_other.add(entry.facts[MESSAGE_ID])
            continue
        content = content_of(entry)
        if entry.get("type") == "assistant" and type(content) is list:
            mid = prop(entry["message"], "id")
            if any(prop(b, "type") not in THINKING for b in content) and truthy(mid):
                with_other.add(mkey(mid))
    kept: list[Json] = []
    for entry in rows:
        if type(entry) is Glanced:
            flags = entry.flags
            if flags & THINKING_ONLY and not (entry.facts[MESSAGE_ID]
                                              and entry.facts[MESSAGE_ID] in with_other):
                continue
            if not flags & PLAIN:
                return None
            kept.append(entry)
            continue
        content = content_of(entry)
        if entry.get("type") == "assistant" and type(content) is list and content:
            mid = prop(entry["message"], "id")
            if all(prop(b, "type") in THINKING for b in content) and not (
                    truthy(mid) and mkey(mid) in with_other):
                continue
            try:
                if _whitespace_only(content):
                    return None
            except ReaderError:
                return None
        kept.append(entry)
    return kept


def _unanswered(entry: Json, unresolved: set[Any]) -> bool:
    """``filter_unresolved_tool_uses``' test: an assistant none of whose calls is answered."""
    if type(entry) is Glanced:
        calls: Any = entry.calls
        return entry.kind == "assistant" and bool(calls) and all(c in unresolved for c in calls)
    ids = [mkey(prop(b, "id")) for b in _blocks(entry, "tool_use")]
    return entry.get("type") == "assistant" and bool(ids) and all(i in unresolved for i in ids)


def first_prompt_fails(messages: list[Json]) -> bool:
    """Whether 2.1.88's first-prompt scan throws on these messages (rule 24).

    Every print-mode resume looks for the conversation's first prompt (the scan
    ``resume.prompt`` describes, shared with 2.1.332); in 2.1.88 any truthy text
    that is not a string reached first throws; what that does depends on the
    entry point.
    """
    return scan_throws(messages, lambda _: True)
    return False


def extract_todos(messages: list[Json], strict: bool = True) -> list[Any]:
    """``extractTodosFromTranscript`` (run by every print-mode resume): the last TodoWrite's todos.

    Scans assistants from the end and calls ``content.find``: an assistant whose
    content is not an array (a string, say) throws before a TodoWrite is found,
    and the whole resume fails with "message.content.find is not a function".
    """
    for entry in reversed(messages):
        if entry.get("type") != "assistant":
            continue
        content = content_of(entry)
        if type(content) is not list and not strict:
            continue  # before 2.1.88's line: a content that is not a list is passed over
        if type(content) is not list:
            raise ReaderError("message.content.find is not a function (TypeError)")
        for block in content:
            if block is None:
                raise ReaderError("cannot read properties of null (reading 'type')")
            if prop(block, "type") == "tool_use" and prop(block, "name") == "TodoWrite":
                todos = prop(prop(block, "input"), "todos")
                return todos if type(todos) is list else []
    return []
