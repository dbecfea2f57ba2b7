"""What the readers ask of one transcript row, written once for every profile.

A row is a parsed JSON object; its fields may hold any JSON value, so each
helper answers the way the JavaScript readers do (``rechain.reference.js``).
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js.text import trim
from rechain.reference.js.values import (
    UNDEFINED,
    as_double,
    nullish,
    prop,
    strict_equal,
    truthy,
)
from rechain.reference.model import Json


def content(row: Json, missing: Any = UNDEFINED) -> Any:
    """``row.message.content``; ``missing`` when the message is not an object or has none
    (the 2.1.88 code reads ``undefined``, the CLI's own reader ``null``)."""
    message = row.get("message")
    return message.get("content", missing) if type(message) is dict else missing


def as_blocks(value: Any) -> list[Any]:
    """``normalizeUserTextContent``: a string is one text block, a list is copied, else []."""
    if type(value) is str:
        return [{"type": "text", "text": value}]
    return list(value) if type(value) is list else []


def odd_result(block: Any) -> bool:
    """A ``tool_result`` block whose ``content`` is truthy and neither text nor a list (a
    number, ``true``, an object): every release before 2.1.284 fails the resume on it."""
    if type(block) is not dict or block.get("type") != "tool_result":
        return False
    content = block.get("content")
    return type(content) is not str and type(content) is not list and truthy(content)


def message_id(row: Json) -> Any:
    """``message.id`` of any row, whatever its value (``None`` without a message object);
    a number as its double, since ids are only compared and JavaScript compares doubles."""
    message = row.get("message")
    return as_double(message.get("id")) if type(message) is dict else None


def assistant_message_id(row: Json) -> str | None:
    """``message.id`` of an assistant row; ``None`` when absent or not a string."""
    if row.get("type") != "assistant":
        return None
    value = prop(row.get("message"), "id")
    return value if type(value) is str else None


def same_writer(a: Json, b: Json) -> bool:
    """Equal ``isSidechain`` (missing or null counts as false) and equal ``agentId``."""
    side_a, side_b = a.get("isSidechain"), b.get("isSidechain")
    side_a = False if nullish(side_a) else side_a
    side_b = False if nullish(side_b) else side_b
    return strict_equal(side_a, side_b) and strict_equal(
        a.get("agentId", UNDEFINED), b.get("agentId", UNDEFINED))


def is_boundary(row: Any) -> bool:
    """``isCompactBoundaryMessage``: a ``compact_boundary`` system row."""
    return prop(row, "type") == "system" and prop(row, "subtype") == "compact_boundary"


def queued_attachment(row: Json) -> Json | None:
    """The ``queued_command`` attachment of an attachment row, else ``None``."""
    attachment = row.get("attachment")
    if row.get("type") == "attachment" and type(attachment) is dict \
            and attachment.get("type") == "queued_command":
        return attachment
    return None


def any_key(value: Any) -> Any:
    """A dict key for any JSON value (ids, parents): a string as itself, else its repr."""
    return value if type(value) is str else ("\x01", repr(value))


def joined_fragments(left: list[Any], right: list[Any]) -> list[Any]:
    """Two fragments of one assistant message joined as the request sends them: blank
    text blocks (whitespace only, not empty) go when a block other than thinking is left."""
    joined = [*left, *right]
    kept = [b for b in joined if prop(b, "type") != "text" or type(prop(b, "text")) is not str
            or prop(b, "text") == "" or trim(prop(b, "text")) != ""]
    if any(prop(b, "type") not in ("thinking", "redacted_thinking") for b in kept):
        return kept
    return joined
