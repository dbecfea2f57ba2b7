"""The resumed messages as the first model request carries them (``normalizeMessagesForAPI``).

Covered: progress, system rows other than ``local_command`` and attachments are
not sent (attachments are rendered as harness text, which the comparison drops);
a ``local_command`` system row becomes user text; adjacent user messages merge
(``mergeUserMessages``); an assistant merges into an earlier assistant with the
same ``message.id`` found by walking back over assistants and tool-result
messages; a tool result whose tool_use was never sent is stripped (a user
message left empty is dropped).
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js import UNDEFINED, prop, strict_equal
from rechain.reference.model import Json
from rechain.reference.seed.resume import merge_user_messages


def _content(entry: Json) -> Any:
    return prop(entry.get("message", UNDEFINED), "content")


def _is_tool_result_message(entry: Json) -> bool:
    content = _content(entry)
    return entry.get("type") == "user" and type(content) is list and any(
        prop(b, "type") == "tool_result" for b in content)


def _same_id(a: Json, b: Json) -> bool:
    """``a.message.id === b.message.id`` (two missing ids are equal)."""
    left, right = prop(a.get("message"), "id"), prop(b.get("message"), "id")
    return (left is UNDEFINED and right is UNDEFINED) or strict_equal(left, right)


def _add_user(result: list[Json], entry: Json) -> None:
    if result and result[-1].get("type") == "user":
        result[-1] = merge_user_messages(result[-1], entry)
    else:
        result.append(entry)


def _add_assistant(result: list[Json], entry: Json) -> None:
    for at in range(len(result) - 1, -1, -1):
        earlier = result[at]
        if earlier.get("type") != "assistant" and not _is_tool_result_message(earlier):
            break
        if earlier.get("type") == "assistant" and _same_id(earlier, entry):
            left, right = _content(earlier), _content(entry)
            joined = [*(left if type(left) is list else []),
                      *(right if type(right) is list else [])]
            result[at] = {**earlier, "message": {**earlier["message"], "content": joined}}
            return
    result.append(entry)


def _strip_orphan_results(result: list[Json]) -> list[Json]:
    """Tool results answering no tool_use sent before them are left out."""
    sent: set[Any] = set()
    out: list[Json] = []
    for entry in result:
        content = _content(entry)
        if entry.get("type") == "assistant" and type(content) is list:
            sent.update(prop(b, "id") for b in content if prop(b, "type") == "tool_use")
        elif entry.get("type") == "user" and type(content) is list:
            kept = [b for b in content if prop(b, "type") != "tool_result"
                    or prop(b, "tool_use_id") in sent]
            if not kept:
                continue
            if len(kept) != len(content):
                entry = {**entry, "message": {**entry["message"], "content": kept}}
        out.append(entry)
    return out


def to_api(messages: list[Json]) -> list[Json]:
    """User/assistant messages as API ``{role, content}`` items."""
    result: list[Json] = []
    for entry in messages:
        kind = entry.get("type")
        if kind == "system" and entry.get("subtype") == "local_command":
            _add_user(result, {"type": "user", "uuid": entry.get("uuid"),
                               "message": {"role": "user", "content": entry.get("content")}})
        elif kind == "user":
            _add_user(result, entry)
        elif kind == "assistant":
            _add_assistant(result, entry)
    return [{"role": e.get("type"), "content": _content(e)} for e in _strip_orphan_results(result)]
