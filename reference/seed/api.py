"""The resumed messages as the first model request carries them (``normalizeMessagesForAPI``).

A first approximation: system and attachment entries are not sent, user and
assistant messages keep ``role`` and ``content``, adjacent user messages merge
(text seams joined by a newline, tool results first) and assistant fragments
with the same ``message.id`` merge into one message.
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js import prop, truthy
from rechain.reference.model import Json
from rechain.reference.seed.resume import merge_user_messages


def to_api(messages: list[Json]) -> list[Json]:
    """User/assistant messages as API ``{role, content}`` items."""
    merged: list[Json] = []
    for entry in messages:
        kind = entry.get("type")
        if kind not in ("user", "assistant"):
            continue
        previous = merged[-1] if merged else None
        if previous is not None and kind == "user" and previous.get("type") == "user":
            merged[-1] = merge_user_messages(previous, entry)
        elif (previous is not None and kind == "assistant" and previous.get("type") == "assistant"
              and truthy(_id(previous)) and _id(previous) == _id(entry)):
            merged[-1] = _join_assistant(previous, entry)
        else:
            merged.append(entry)
    return [{"role": e.get("type"), "content": prop(e.get("message"), "content")} for e in merged]


def _id(entry: Json) -> Any:
    return prop(entry.get("message"), "id")


def _join_assistant(a: Json, b: Json) -> Json:
    left, right = prop(a.get("message"), "content"), prop(b.get("message"), "content")
    content = (left if type(left) is list else []) + (right if type(right) is list else [])
    return {**a, "message": {**a["message"], "content": content}}
