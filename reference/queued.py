"""Queued commands: when a ``queued_command`` attachment is shown as a user message.

A prompt typed while Claude works is written as an attachment. The TS SDK
turns it into a user message (``isQueuedCommand``) when a reply follows it, when
it trails the leaf, or when a ``queue-operation`` line says it was delivered
mid-turn. Local slash commands (the caveat, ``<command-name>`` and their output)
are marked ``isCompletedLocalCommand`` instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from rechain.reference.js.values import UNDEFINED, is_object, is_string_nonempty, prop, truthy

INTERRUPT_PREFIXES = (
    "[Request interrupted by user]",
    "[Request interrupted: the session ended before this agent finished. Nobody asked it to stop.]",
    "[This turn ended before it finished.]",
    "[Agent call interrupted: the process running this conversation stopped before this "
    "agent finished, so it returned no result. Nobody asked it to stop.]",
    "[Request interrupted by user for tool use]",
    "[Tool call did not complete: the turn was ended to deliver the message that follows. "
    "Nothing refused it; re-run it if still needed.]",
    "[Tool call interrupted: the session ended before this call's result was recorded, so "
    "its outcome is unknown. Check whether it took effect before relying on it or running "
    "it again.]",
    "[Tool call result not in this copy: this session was copied from another session "
    "before that session recorded this call's result. The call may have finished there, may "
    "still be running there, or may never have run. Check whether it took effect before "
    "relying on it or running it again.]",
    "The user doesn't want to take this action right now. STOP what you are doing and wait "
    "for the user to tell you how to proceed.",
    "[Tool call skipped: the turn was stopped before this call ran, by the check whose "
    "denial is on another call in this batch. Nothing refused this call and it had no "
    "effects; re-run it if still needed.]",
    "[Tool call skipped: the turn ended to deliver the message that follows before this "
    "call ran. Nothing refused it; re-run it if still needed.]",
)
LOCAL_COMMAND_TAGS = (
    ("<command-name>", "record"),
    ("<local-command-stdout>", "output"),
    ("<local-command-stderr>", "output"),
    ("<local-command-caveat>", "caveat"),
)
SHOWN_META_ORIGINS = frozenset(
    {"channel", "observer", "observer-activity", "slack-ping", "voice-call", "peer"}
)
_RUN_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")


def queued_command(entry: Any) -> Any:
    """The queued_command payload of an attachment row, or UNDEFINED."""
    if prop(entry, "type") == "system" and prop(entry, "subtype") == "voice_call_talk":
        command = prop(prop(entry, "fold"), "command")
        return command if is_object(command) else UNDEFINED
    attachment = prop(entry, "attachment") if prop(entry, "type") == "attachment" else UNDEFINED
    if type(attachment) is dict and attachment.get("type") == "queued_command":
        return attachment
    return UNDEFINED


def delivery_id(entry: Any) -> str | None:
    value = prop(queued_command(entry), "delivery_id")
    return value if is_string_nonempty(value) else None


def source_uuid(entry: Any) -> str | None:
    value = prop(queued_command(entry), "source_uuid")
    return value if is_string_nonempty(value) else None


@dataclass(slots=True)
class DeliveryTally:
    """Counts of queued prompts absorbed mid-turn, from ``queue-operation`` lines."""

    absorbed: dict[str, int] = field(default_factory=dict)
    copies: dict[str, bytes] = field(default_factory=dict)
    mixed: set[str] = field(default_factory=set)
    delivery_copies: dict[str, list[str]] = field(default_factory=dict)
    seen_copy_uuids: set[str] = field(default_factory=set)

    def add(self, value: dict[str, Any]) -> None:
        if (
            value.get("type") == "queue-operation"
            and value.get("operation") == "remove"
            and value.get("reason") == "absorbed_mid_turn"
        ):
            delivery, command = value.get("deliveryId"), value.get("commandUuid")
            if is_string_nonempty(delivery):
                key = f"delivery:{delivery}"
            elif type(command) is str:
                key = f"uuid:{command}"
            else:
                return
            self.absorbed[key] = self.absorbed.get(key, 0) + 1
            return
        uuid = value.get("uuid")
        if type(value.get("type")) is not str or type(uuid) is not str:
            return
        probe = {"type": value["type"], "uuid": uuid, "attachment": value.get("attachment")}
        delivery = delivery_id(probe)
        if delivery is not None:
            if uuid not in self.seen_copy_uuids:
                self.seen_copy_uuids.add(uuid)
                self.delivery_copies.setdefault(f"delivery:{delivery}", []).append(uuid)
            return
        source = source_uuid(probe)
        if source is None:
            return
        text = _stringified(value.get("attachment"))
        known = self.copies.get(source)
        if known is None:
            self.copies[source] = text
        elif known != text:
            self.mixed.add(source)

    def counts(self) -> dict[str, int]:
        """The delivered map: absorbed counts by key, and delivered copies."""
        counts = dict(self.absorbed)
        for source in self.mixed:
            counts.pop(f"uuid:{source}", None)
        for key, uuids in self.delivery_copies.items():
            taken = counts.get(key, 0)
            for uuid in uuids[max(0, len(uuids) - taken) :]:
                counts[f"entry:{uuid}"] = 1
        return counts


def _stringified(value: Any) -> bytes:
    """``JSON.stringify`` stand-in for comparing copies (any consistent encoding will do)."""
    try:
        return orjson.dumps(value)
    except (TypeError, orjson.JSONEncodeError):  # lone surrogates, deep nesting
        return json.dumps(value, separators=(",", ":")).encode()


def shown_meta_origin(origin: Any) -> bool:
    """Whether an ``isMeta`` row with this origin is still shown."""
    if type(origin) is not dict:
        return False
    kind = origin.get("kind")
    return type(kind) is str and kind in SHOWN_META_ORIGINS


def _last_text(entry: dict[str, Any]) -> Any:
    content = prop(entry.get("message"), "content")
    if type(content) is list:
        for block in reversed(content):
            if prop(block, "type") == "text":
                return prop(block, "text")
        return UNDEFINED
    return content if type(content) is str else UNDEFINED


def local_command_role(entry: dict[str, Any]) -> str | None:
    """Record / output / caveat for local slash-command rows."""
    if "promptSource" in entry:
        return None
    text = _last_text(entry)
    if type(text) is not str:
        return None
    for prefix, role in LOCAL_COMMAND_TAGS:
        if text.startswith(prefix):
            return role
    return None


def completed_local_commands(chain: Sequence[dict[str, Any]]) -> set[int]:
    """Indexes of command rows that follow a caveat meta row."""
    marked: set[int] = set()
    for index, entry in enumerate(chain):
        if entry.get("type") != "user" or not truthy(entry.get("isMeta")):
            continue
        if local_command_role(entry) != "caveat":
            continue
        recorded = False
        for later in range(index + 1, len(chain)):
            row = chain[later]
            if row.get("type") == "assistant":
                break
            if row.get("type") != "user" or truthy(row.get("isMeta")):
                continue
            role = local_command_role(row)
            if role == "record" and not recorded:
                recorded = True
            elif role != "output" or not recorded:
                break
            marked.add(later)
    return marked


def is_interrupt_marker(entry: dict[str, Any]) -> bool:
    """A user row that only says the turn was interrupted or refused."""
    if entry.get("type") != "user":
        return False
    content = prop(entry.get("message"), "content")
    if type(content) is str:
        return content.startswith(INTERRUPT_PREFIXES)
    if type(content) is not list or not content:
        return False
    for block in content:
        kind = prop(block, "type")
        if kind == "text":
            text = prop(block, "text")
        elif kind == "tool_result" and prop(block, "is_error") is True:
            text = prop(block, "content")
        else:
            return False
        if type(text) is not str or not text.startswith(INTERRUPT_PREFIXES):
            return False
    return True


def replies_follow(chain: Sequence[dict[str, Any]], local: set[int]) -> list[bool]:
    """For each row: does a reply come after it before the next real prompt."""
    from rechain.reference.parse import is_tool_result_entry

    answered = [False] * len(chain)
    state: str | None = None
    for index in range(len(chain) - 1, -1, -1):
        row = chain[index]
        answered[index] = state == "reply"
        kind = row.get("type")
        if (
            kind == "assistant"
            or is_tool_result_entry(row, row.get("parentUuid"))
            or is_interrupt_marker({"type": kind, "message": row.get("message")})
        ):
            state = "reply"
        elif (
            kind == "user"
            and not truthy(row.get("isMeta"))
            and not truthy(row.get("isCompactSummary"))
            and index not in local
        ):
            state = "prompt"
    return answered


def delivered_rows(chain: Sequence[dict[str, Any]], delivered: dict[str, int]) -> dict[int, bool]:
    """Rows whose delivery a ``queue-operation`` settles, and how."""
    settled: dict[int, bool] = {}
    if not delivered:
        return settled
    groups: dict[str, list[int]] = {}
    for index, row in enumerate(chain):
        delivery, source = delivery_id(row), source_uuid(row)
        name = (
            f"delivery:{delivery}"
            if delivery is not None
            else (f"uuid:{source}" if source is not None else None)
        )
        if name is not None and name in delivered:
            groups.setdefault(name, []).append(index)
    for name, indexes in groups.items():
        if name.startswith("delivery:"):
            for index in indexes:
                settled[index] = f"entry:{chain[index]['uuid']}" in delivered
            continue
        count = delivered[name]
        for position, index in enumerate(indexes):
            settled[index] = position >= len(indexes) - count
    return settled


def _origin(value: Any) -> Any:
    """Task-notification origins are reduced to their known fields."""
    if prop(value, "kind") != "task-notification":
        return value
    reduced: dict[str, Any] = {"kind": "task-notification"}
    for name in ("subkind", "fireReason", "producer"):
        if name in value:
            reduced[name] = value[name]
    run_id = value.get("runId")
    if type(run_id) is str and _RUN_ID.fullmatch(run_id):
        reduced["runId"] = run_id
    if value.get("taskKind") == "mcp-task":
        reduced["taskKind"] = "mcp-task"
    return reduced


def shown_origin(value: Any) -> Any:
    """The ``origin`` a SessionMessage carries (when not null/undefined)."""
    if value is None or value is UNDEFINED:
        return UNDEFINED
    return _origin(value)


def _command_origin(origin: Any, mode: Any, run_id: Any) -> Any:
    """The origin of a queued command, with its run id filled in."""
    base = _origin(origin)
    if base is UNDEFINED and mode == "task-notification":
        base = {"kind": "task-notification"}
    if (
        type(run_id) is str
        and _RUN_ID.fullmatch(run_id)
        and prop(base, "kind") == "task-notification"
        and "runId" not in base
    ):
        return {**base, "runId": run_id}
    return base


def _forwarded(value: Any) -> bool:
    """A forwarded intent (``{lineage: non-empty string}``) is never shown as a prompt."""
    return type(value) is dict and type(value.get("lineage")) is str and value["lineage"] != ""


def as_user_message(
    row: dict[str, Any], shown: bool, taken: set[str], keep_meta: bool
) -> dict[str, Any]:
    """A queued-command attachment as the user row the SDK shows, else ``row``."""
    attachment = row.get("attachment")
    if not shown or row.get("type") != "attachment" or not is_object(attachment):
        return row
    if type(attachment) is not dict:
        return row
    prompt = attachment.get("prompt")
    origin = attachment.get("origin", UNDEFINED)
    origin = origin if type(origin) is dict and type(origin.get("kind")) is str else UNDEFINED
    if attachment.get("type") != "queued_command":
        return row
    if truthy(attachment.get("isMeta")) and not keep_meta and not shown_meta_origin(origin):
        return row
    if type(prompt) is not str and type(prompt) is not list:
        return row
    if _forwarded(attachment.get("forwardedIntent")):
        return row
    source = attachment.get("source_uuid")
    uuid = source if is_string_nonempty(source) else row["uuid"]
    if uuid != row["uuid"] and uuid in taken:
        return row
    taken.add(uuid)
    mode = attachment.get("commandMode")
    command_origin = _command_origin(
        origin, mode if type(mode) is str else UNDEFINED, attachment.get("runId", UNDEFINED)
    )
    converted: dict[str, Any] = {
        "type": "user",
        "uuid": uuid,
        "parentUuid": row.get("parentUuid", UNDEFINED),
        "sessionId": row.get("sessionId", UNDEFINED),
        "timestamp": row.get("timestamp", UNDEFINED),
        "message": {"role": "user", "content": prompt},
        "isMeta": truthy(attachment.get("isMeta")),
    }
    if command_origin is not UNDEFINED:
        converted["origin"] = command_origin
    converted["isQueuedCommand"] = True
    converted["isSidechain"] = row.get("isSidechain", UNDEFINED)
    converted["teamName"] = row.get("teamName", UNDEFINED)
    return converted
