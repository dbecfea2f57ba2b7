"""Stage 8, the view: which chain rows a reader shows, and in what shape.

For the TS SDK (``getSessionMessages``): queued commands become user rows,
local-command rows are marked, then user and assistant rows (and system rows
on request) are kept unless ``isMeta`` (some origins excepted), sidechain,
team or a quiet-turn closer; each becomes a ``SessionMessage``; then paging.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from rechain.reference import hostrows, queued
from rechain.reference.facts import KIND
from rechain.reference.graph import Graph
from rechain.reference.js.values import UNDEFINED, prop, truthy
from rechain.reference.lazyrows import Pending, chain_uuids, stored_rows
from rechain.reference.model import Json, Options
from rechain.reference.parse import Parsed
from rechain.reference.trailing import trailing_queued_commands

TOOL_DENIAL_KINDS = (
    "user-rejected",
    "permission-rule",
    "automode-blocked",
    "automode-unavailable",
    "automode-parsing-error",
    "interrupted",
    "cancelled",
)
CALL_ENDED = ("not_started",)
UNANSWERED_DENIALS = ("stream-closed",)
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Presented:
    """What a view shows: messages in order and the file line of each.

    With ``build``, ``messages`` are the rows shown (decoded or ``Pending``), each
    message built from its row when it is read (``lazyrows.Messages``).
    """

    messages: list[Json | Pending]
    lines: list[int]
    build: Callable[[Json], Json] | None = None


QUIET_TURN_TEXTS = ("", "No response requested.")


def mark_queued_and_local(
    rows: list[Json], trailing_ids: set[str], delivered: dict[str, int], keep_meta: bool
) -> list[Json]:
    """Queued commands shown as user rows, local commands marked complete."""
    if not any(row.get("type") == "attachment" or row.get("isMeta") for row in rows):
        return rows  # nothing to convert, and local-command marks start at a meta caveat
    local = queued.completed_local_commands(rows)
    replied = queued.replies_follow(rows, local)
    settled = queued.delivered_rows(rows, delivered)
    taken = {row["uuid"] for row in rows}
    out: list[Json] = []
    for index, row in enumerate(rows):
        if index in local:
            out.append({**row, "isCompletedLocalCommand": True})
            continue
        shown = settled.get(index)
        if shown is None:
            shown = replied[index] or row["uuid"] in trailing_ids
        out.append(queued.as_user_message(row, shown, taken, keep_meta))
    return out


def closes_quiet_turn(row: Json) -> bool:
    """An assistant row that only closed a quiet turn."""
    message = row.get("message")
    if row.get("type") != "assistant" or row.get("closesQuietTurn") is not True:
        return False
    if type(message) is not dict or "content" not in message:
        return False
    content = message["content"]
    if type(content) is not list:
        return False
    text = (
        content[0].get("text", UNDEFINED)
        if len(content) == 1 and prop(content[0], "type") == "text"
        else UNDEFINED
    )
    return type(text) is str and text in QUIET_TURN_TEXTS


def hidden_reason(row: Json, include_system: bool) -> str | None:
    """Why the SDK view leaves a chain row out, or None when it is shown."""
    kind = row.get("type")
    if kind not in ("user", "assistant") and not (kind == "system" and include_system):
        return (
            f"{kind} rows are not messages"
            if kind != "system"
            else "system row (--system shows it)"
        )
    if "closesQuietTurn" in row and closes_quiet_turn(row):
        return "closes a quiet turn"
    # absent and false flags, by far the most common, are settled without a call
    meta, side, team = row.get("isMeta"), row.get("isSidechain"), row.get("teamName")
    if (
        meta is not None
        and meta is not False
        and truthy(meta)
        and not queued.shown_meta_origin(row.get("origin"))
    ):
        return "isMeta"
    if side is not None and side is not False and truthy(side):
        return "isSidechain"
    if team is not None and truthy(team):
        return "teamName"
    return None


def _tool_result_meta(row: Json) -> list[Json]:
    if (
        "toolDenialKind" not in row
        and "toolCallEnded" not in row
        and "toolResultRewritten" not in row
    ):
        return []  # nothing to report whatever the content holds
    content = prop(row.get("message"), "content")
    ids: list[Any] = []
    if type(content) is list:
        for block in content:
            if type(block) is dict and block.get("type") == "tool_result":
                ids.append(block.get("tool_use_id", UNDEFINED))
    denial = row.get("toolDenialKind")
    ended = row.get("toolCallEnded")
    non_execution = denial if len(ids) == 1 and denial in TOOL_DENIAL_KINDS else None
    call_ended = ended if len(ids) == 1 and ended in CALL_ENDED else None
    rewritten = truthy(row.get("toolResultRewritten", UNDEFINED))
    if non_execution is None and call_ended is None and not rewritten:
        return []
    meta: list[Json] = []
    for tool_use_id in ids:
        if type(tool_use_id) is not str:
            continue
        item: Json = {"id": tool_use_id}
        if non_execution is not None:
            item["non_execution_kind"] = non_execution
        if call_ended is not None:
            item["call_ended"] = call_ended
        if rewritten:
            item["rewritten_by_plugin"] = True
        meta.append(item)
    return meta


# the fields that make a SessionMessage more than its plain shape; most rows have none
_FLAG_FIELDS = frozenset(
    {
        "interruptedByShutdown",
        "toolDenialUnanswered",
        "toolDenialKind",
        "toolCallEnded",
        "toolResultRewritten",
        "isCompactSummary",
        "isMeta",
        "isVisibleInTranscriptOnly",
        "isQueuedCommand",
        "isCompletedLocalCommand",
        "origin",
    }
)


def session_message(row: Json) -> Json:
    """A chain row as the SDK's ``SessionMessage``; undefined fields are left out."""
    get = row.get
    session, message = get("sessionId", UNDEFINED), get("message", UNDEFINED)
    if session is not UNDEFINED and message is not UNDEFINED and _FLAG_FIELDS.isdisjoint(row):
        # the common shape, built in one step: a session, a message and no flag
        timestamp = get("timestamp", UNDEFINED)
        if timestamp is not UNDEFINED:
            return {"type": get("type"), "uuid": row["uuid"], "session_id": session,
                    "message": message, "parent_tool_use_id": None, "parent_agent_id": None,
                    "timestamp": timestamp}
    out: Json = {"type": get("type"), "uuid": row["uuid"]}
    if "sessionId" in row and row["sessionId"] is not UNDEFINED:
        out["session_id"] = row["sessionId"]
    if "message" in row and row["message"] is not UNDEFINED:
        out["message"] = row["message"]
    out["parent_tool_use_id"] = None
    out["parent_agent_id"] = None
    flagged = not _FLAG_FIELDS.isdisjoint(row)  # one C-level check spares a dozen lookups
    if flagged:
        _add_flags(row, out)
    timestamp = row.get("timestamp", UNDEFINED)
    if timestamp is not UNDEFINED:
        out["timestamp"] = timestamp
    if flagged:
        origin = queued.shown_origin(row.get("origin", UNDEFINED))
        if truthy(origin):
            out["origin"] = origin
    return out


def _add_flags(row: Json, out: Json) -> None:
    """The SessionMessage flags of a row that has any of ``_FLAG_FIELDS``, in the SDK's order."""
    if row.get("interruptedByShutdown") is True:
        out["interruptedByShutdown"] = True
    unanswered = row.get("toolDenialUnanswered")
    if unanswered in UNANSWERED_DENIALS:
        out["toolDenialUnanswered"] = unanswered
    meta = _tool_result_meta(row)
    if meta:
        out["tool_result_meta"] = meta
    if row.get("isCompactSummary") is True:
        out["isCompactSummary"] = True
    if (
        row.get("isMeta") is True
        or row.get("isCompactSummary") is True
        or row.get("isVisibleInTranscriptOnly") is True
    ):
        out["is_meta"] = True
    if row.get("isQueuedCommand") is True:
        out["isQueuedCommand"] = True
    if row.get("isCompletedLocalCommand") is True:
        out["isCompletedLocalCommand"] = True


def page(messages: list[T], options: Options) -> list[T]:
    """``limit``/``offset`` exactly as the SDK slices."""
    offset = options.offset or 0
    if options.limit is not None and options.limit > 0:
        return _slice(messages, offset, offset + options.limit)
    if offset > 0:
        return _slice(messages, offset, None)
    return messages


def _slice(items: list[T], start: int, stop: int | None) -> list[T]:
    """``Array.prototype.slice`` (negative offsets count from the end, as in JS)."""
    return items[start:stop]


def present_sdk(
    parsed: Parsed, graph: Graph, chain: list[Json], leaf: Json | None, options: Options
) -> Presented:
    """Stage 8 for the SDK view: host rows, trailing queue, queued/local marks, filter, shape.

    One pass over the chain first learns whether any row is a host assistant or may
    be a queued command or local-command mark, and when none is (nor a trailing queued
    command or a host row) it is the whole stage: a row the parser found plain
    (``Pending.plain``) is filtered by its type without being decoded, any other is read
    once to filter it, and a row kept undecoded stays so in the messages. Each message is
    built from its row when it is read. Otherwise the steps that act on such rows run over
    the decoded chain.
    """
    trailing = trailing_queued_commands(parsed.entries, graph, chain, leaf, parsed.facts)
    line = graph.line
    include_system = options.include_system_messages
    # the common case, decided one row at a time: rows kept undecoded are read and let go
    # (their messages are built when read), the others presented at once
    kept: list[tuple[Json | Pending, int]] = []
    host = marks = False
    facts = graph.facts()
    for item, uuid in zip(stored_rows(chain), chain_uuids(chain), strict=True):
        if type(item) is Pending and item.plain:  # decided from its type: not decoded here
            kind = facts[uuid][KIND]
            if kind == "user" or kind == "assistant" or (kind == "system" and include_system):
                kept.append((item, line[uuid]))
            continue
        row = item.fresh() if type(item) is Pending else item
        if not host and ("hostHiddenToolUseIds" in row or "ranByToolUseId" in row):
            host = hostrows.is_host_assistant(row)
        if not marks and (row.get("type") == "attachment" or row.get("isMeta")):
            marks = True
        if host or marks:
            break
        if hidden_reason(row, include_system) is None:
            kept.append((item, line[row["uuid"]]))
    if not (host or marks or trailing or parsed.host_rows):
        kept = page(kept, options)
        return Presented([item for item, _ in kept], [n for _, n in kept], session_message)  # type: ignore[misc]
    del kept
    rows: list[tuple[Json, int]] = []
    host = marks = False
    for row in chain:
        rows.append((row, line[row["uuid"]]))
        if not host and ("hostHiddenToolUseIds" in row or "ranByToolUseId" in row):
            host = hostrows.is_host_assistant(row)
        if not marks and (row.get("type") == "attachment" or row.get("isMeta")):
            marks = True
    if host:
        rows = hostrows.keep_virtual_followers(rows, parsed.entries, parsed.lines)
    rows = hostrows.add_host_calls(rows, parsed.entries, parsed.host_rows, parsed.host_lines)
    if trailing:
        # a trailing row may be an earlier copy of a duplicated uuid: use its own line
        own_line = {id(e): n for e, n in zip(parsed.entries, parsed.lines, strict=True)}
        rows += [(row, own_line[id(row)]) for row in trailing]
    if marks or trailing or len(rows) != len(chain):
        marked = mark_queued_and_local(
            [row for row, _ in rows],
            {row["uuid"] for row in trailing},
            parsed.delivered,
            keep_meta=False,
        )
        rows = [(row, n) for row, (_, n) in zip(marked, rows, strict=True)]
    rows = [(row, n) for row, n in rows if hidden_reason(row, include_system) is None]
    if host or (len(rows) and parsed.host_rows):
        rows = hostrows.hide_host_calls(rows)
    rows = page(rows, options)
    return Presented([row for row, _ in rows], [n for _, n in rows], session_message)
