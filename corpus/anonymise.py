"""Turn a real transcript into a skeleton: same graph and flags, no text.

What is kept: ids and parents (``uuid``, ``parentUuid``, ``logicalParentUuid``,
``sessionId``, ``message.id``, tool ids, ``sourceToolAssistantUUID``, ...), types
and subtypes, timestamps, block kinds, tool names, booleans, numbers, the
compaction metadata that relinks the chain, and the shape of every object.

What is replaced: every other string (prompts, replies, thinking, tool inputs and
outputs, paths, branch names, titles, summaries) becomes a placeholder of the same
length in UTF-16 code units (the unit of a JavaScript string): ``x`` for each
character, with whitespace kept where it was (so blank and whitespace-only text
stays so), and with the few markers that readers act on kept verbatim: a known
interrupt or "No response requested." prefix, and Claude Code's own tags such as
``<command-name>`` or ``<local-command-stdout>``. Object keys that do not look
like identifiers (file paths used as keys) become ``_k<n>``.

Lines: the file is split on LF, like the readers do. A blank line (only bytes up
to 0x20) is kept as it is. A line that parses as strict JSON (after the leading
bytes up to 0x20 that readers skip) and is an object is rewritten, keeping its
leading bytes, trailing whitespace (CR of CRLF) and number literals exactly. Any
other line (not JSON, not an object, a BOM, NaN, invalid UTF-8, truncated) keeps
its bytes up to 0x20 and has every other byte replaced by ``x``: it carries no
text but still fails to parse, so the TS reader skips it as before. Lenient readers
that accepted such a line (the Python SDK takes NaN, the CLI takes a BOM) will not
accept its skeleton: skeletons are faithful to the TS reader only.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

INTERRUPT_MARKERS = (
    "[Request interrupted by user for tool use]",
    "[Request interrupted by user]",
    "[Request interrupted: the session ended before this agent finished. Nobody asked it to stop.]",
    "[This turn ended before it finished.]",
    "[Tool call interrupted: the session ended before this call's result was recorded",
    "[Tool call did not complete: the turn was ended to deliver the message that follows.",
    "[Tool call skipped:",
    "[Agent call interrupted:",
    "[Tool call result not in this copy:",
    "The user doesn't want to take this action right now. STOP what you are doing and wait "
    "for the user to tell you how to proceed.",
    "No response requested.",
)
TAG_NAMES = (
    "command-name",
    "command-message",
    "command-args",
    "command-contents",
    "local-command-stdout",
    "local-command-stderr",
    "local-command-caveat",
    "bash-input",
    "bash-stdout",
    "bash-stderr",
    "system-reminder",
    "task-notification",
    "user-prompt-submit-hook",
)
JS_WHITESPACE = frozenset(
    "\t\n\v\f\r \u00a0\u1680\u2028\u2029\u202f\u205f\u3000\ufeff"
    + "".join(chr(c) for c in range(0x2000, 0x200B))
)
_TAG = re.compile("</?(?:" + "|".join(map(re.escape, TAG_NAMES)) + ")>")
_IDENTIFIER = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$-]{0,63}$")
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")

# Keys whose string values are structure, per place in a row.
ROW_KEYS = frozenset(
    [
        "type",
        "subtype",
        "uuid",
        "parentUuid",
        "logicalParentUuid",
        "leafUuid",
        "sessionId",
        "timestamp",
        "version",
        "userType",
        "entrypoint",
        "agentId",
        "promptId",
        "requestId",
        "sourceToolAssistantUUID",
        "toolUseID",
        "parentToolUseID",
        "messageId",
        "level",
        "operation",
        "permissionMode",
        "toolDenialKind",
        "toolCallEnded",
        "toolDenialUnanswered",
        "reason",
        "commandUuid",
        "deliveryId",
        "ranByToolUseId",
        "rowUuid",
    ]
)
MESSAGE_KEYS = frozenset(["id", "type", "role", "model", "stop_reason", "stop_sequence"])
BLOCK_KEYS = frozenset(["type", "id", "tool_use_id", "name"])
ORIGIN_KEYS = frozenset(["kind", "subkind", "producer", "fireReason", "taskKind", "runId"])
ATTACHMENT_KEYS = frozenset(["type", "source_uuid", "delivery_id", "commandMode", "runId"])
SEGMENT_KEYS = frozenset(["headUuid", "anchorUuid", "tailUuid"])
ID_LIST_KEYS = frozenset(["uuids", "hostHiddenToolUseIds", "removedUuids"])


@dataclass(frozen=True)
class Number:
    """A JSON number kept as its literal, so 1e400 or -0 survive a rewrite unchanged."""

    text: str


def placeholder(text: str) -> str:
    """``text`` with every character but whitespace replaced by ``x`` (per UTF-16 unit)."""
    return "".join(c if c in JS_WHITESPACE else "x" * _units(c) for c in text)


def scrub(text: str) -> str:
    """The placeholder of a free text, keeping reader-relevant markers and tags."""
    for marker in INTERRUPT_MARKERS:
        if text.startswith(marker):
            return marker + scrub(text[len(marker) :])
    parts: list[str] = []
    position = 0
    for match in _TAG.finditer(text):
        parts.append(placeholder(text[position : match.start()]))
        parts.append(match.group())
        position = match.end()
    parts.append(placeholder(text[position:]))
    return "".join(parts)


def _units(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def generic(value: Any) -> Any:
    """Free data (tool input, tool result, snapshot): strings scrubbed, ``type`` kept."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            name = key if _IDENTIFIER.match(key) else f"_k{index}"
            if key == "type" and isinstance(item, str):
                out[name] = item
            else:
                out[name] = generic(item)
        return out
    if isinstance(value, list):
        return [generic(item) for item in value]
    if isinstance(value, str):
        return scrub(value)
    return value


def _keeping(keys: frozenset[str], nested: dict[str, Callable[[Any], Any]]) -> Callable[[Any], Any]:
    """A rule for an object: keep string values of ``keys``, apply ``nested`` rules, else
    generic."""

    def rule(value: Any) -> Any:
        if not isinstance(value, dict):
            return generic(value)
        out: dict[str, Any] = {}
        for index, (key, item) in enumerate(value.items()):
            name = key if _IDENTIFIER.match(key) else f"_k{index}"
            if key in nested:
                out[name] = nested[key](item)
            elif (key in keys or key == "type") and isinstance(item, str):
                out[name] = item
            elif key in ID_LIST_KEYS and isinstance(item, list):
                out[name] = [i if isinstance(i, str) else generic(i) for i in item]
            else:
                out[name] = generic(item)
        return out

    return rule


def content(value: Any) -> Any:
    """Message content: a string, or a list of blocks."""
    if isinstance(value, str):
        return scrub(value)
    if isinstance(value, list):
        return [_block(item) for item in value]
    return generic(value)


_block = _keeping(BLOCK_KEYS, {"content": content})
_origin = _keeping(ORIGIN_KEYS, {})
_attachment = _keeping(ATTACHMENT_KEYS, {"prompt": content, "content": content, "origin": _origin})
_message = _keeping(MESSAGE_KEYS, {"content": content})
_compact = _keeping(
    frozenset({"trigger"}),
    {
        "preservedSegment": _keeping(SEGMENT_KEYS, {}),
        "preservedMessages": _keeping(frozenset({"anchorUuid"}), {}),
    },
)
_fold = _keeping(frozenset(), {"command": _attachment})
_snapshot = _keeping(frozenset({"messageId", "timestamp"}), {})
_data = _keeping(frozenset({"type"}), {"message": _keeping(frozenset({"type", "uuid"}), {})})

row = _keeping(
    ROW_KEYS,
    {
        "message": _message,
        "content": content,
        "blocks": content,
        "compactMetadata": _compact,
        "origin": _origin,
        "attachment": _attachment,
        "fold": _fold,
        "snapshot": _snapshot,
        "data": _data,
    },
)


def anonymise_row(value: dict[str, Any]) -> dict[str, Any]:
    """One parsed transcript row as its skeleton (see the module docstring)."""
    return row(value)


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_strict(text: str) -> Any:
    """``JSON.parse``'s grammar: no NaN or Infinity, number literals kept as ``Number``."""
    return json.loads(text, parse_int=Number, parse_float=Number, parse_constant=_reject_constant)


def dump(value: Any) -> str:
    """Compact JSON like ``JSON.stringify``, with number literals written back unchanged."""
    if isinstance(value, dict):
        return "{" + ",".join(_string(k) + ":" + dump(v) for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(dump(item) for item in value) + "]"
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, Number):
        return value.text
    return json.dumps(value)


def _string(text: str) -> str:
    encoded = json.dumps(text, ensure_ascii=False)
    return _LONE_SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", encoded)


def anonymise_line(line: bytes) -> bytes:
    """One line (without its LF) as its skeleton."""
    start = 0
    while start < len(line) and line[start] <= 0x20:
        start += 1
    if start == len(line):
        return line
    end = len(line)
    while end > start and line[end - 1] in b" \t\r":
        end -= 1
    try:
        value = parse_strict(line[start:end].decode("utf-8"))
    except (ValueError, RecursionError):
        value = None
    if not isinstance(value, dict):
        return bytes(b if b <= 0x20 else 0x78 for b in line)
    try:
        body = dump(anonymise_row(value)).encode("utf-8")
    except RecursionError:
        return bytes(b if b <= 0x20 else 0x78 for b in line)
    return line[:start] + body + line[end:]


def anonymise(data: bytes) -> bytes:
    """A whole transcript as its skeleton; line breaks stay where they were."""
    return b"\n".join(anonymise_line(line) for line in data.split(b"\n"))
