"""2.0.76 resumes the chain one content block per message (``normalizeMessages``).

From 2.1.39 a resumed row stays whole. In 2.0.76 every content block of an assistant or
user row becomes a message of its own before the filters run (so an unanswered tool_use
block goes alone and the text beside it stays), a user's string content becomes one
text block, and from the first row that had more than one block on (a user row with
string content does not count) every message gets a fresh uuid; a forked resume writes
those messages. Attachment, progress and system rows stay as they are.

Its filter of unanswered calls (``filter_unanswered_by_key``) then reads each message's
first block: the results' ``tool_use_id`` values become the keys of an object, so a call
is answered only when its id is a string equal to one of those keys (``String(id)``).
"""

from __future__ import annotations

from rechain.reference.graph import ReaderError
from rechain.reference.js.values import UNDEFINED, prop, property_key
from rechain.reference.model import Json


def _with(entry: Json, content: list[object], uuid: object) -> Json:
    message = entry.get("message")
    body = {**(message if type(message) is dict else {}), "content": content}
    return {**entry, "uuid": uuid, "message": body}


def split_per_block(messages: list[Json]) -> list[Json]:
    """The messages 2.0.76 makes of these resumed rows (a fresh uuid is None)."""
    fresh = False
    out: list[Json] = []
    for entry in messages:
        kind = entry.get("type")
        if kind not in ("user", "assistant") or "synthetic" in entry:
            out.append(entry)
            continue
        content = prop(entry.get("message", UNDEFINED), "content")
        if kind == "user" and type(content) is str:
            out.append(_with(entry, [{"type": "text", "text": content}],
                             None if fresh else entry.get("uuid")))
            continue
        if type(content) is not list:
            if kind == "assistant":  # ``content.map`` of a string or a missing content
                raise ReaderError("message.content.map is not a function (TypeError)")
            out.append(entry)
            continue
        fresh = fresh or len(content) > 1
        out.extend(_with(entry, [block], None if fresh else entry.get("uuid"))
                   for block in content)
    return out


def _first_block(entry: Json) -> object:
    """``entry.message.content[0]`` (undefined where there is none)."""
    content = prop(entry.get("message", UNDEFINED), "content")
    if type(content) is list:
        return content[0] if content else UNDEFINED
    return prop(content, "0")


def filter_unanswered_by_key(messages: list[Json]) -> list[Json]:
    """Drop each assistant whose first block is a call no result answers, as 2.0.76 does.

    The answers are the keys of ``Object.fromEntries`` over the user messages that open
    with a tool_result: each ``tool_use_id`` as a property key (``String``), so a call
    whose id is not a string (5, null, an object) is never answered, even by a result
    with the same id, and a call ``"5"`` is answered by a result ``5``. An id object
    with its own ``toString`` has no key: the resume fails.
    """
    answered: set[str] = set()
    for entry in messages:
        block = _first_block(entry)
        if entry.get("type") == "user" and prop(block, "type") == "tool_result":
            try:
                answered.add(property_key(prop(block, "tool_use_id")))
            except TypeError as error:
                raise ReaderError(f"{error} (TypeError)") from None
    kept = []
    for entry in messages:
        block = _first_block(entry)
        if entry.get("type") == "assistant" and prop(block, "type") == "tool_use":
            call = prop(block, "id")
            if type(call) is not str or call not in answered:
                continue
        kept.append(entry)
    return kept
