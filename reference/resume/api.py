"""The resumed chain as the Messages API ``messages`` the CLI sends (``claude -p --resume``).

After the load, the CLI deserialises the chain (drops assistants whose calls
were never answered mid-chain, thinking-only and whitespace-only assistants),
then normalises it for the API: queued commands become ``<system-reminder>``
user text, consecutive user messages merge, streamed fragments of one
assistant message merge (their results into one user message), and a
conversation that ends on a user message gets the synthetic assistant
"No response requested.". Thinking blocks survive only for the request's model.
"""

from __future__ import annotations

import re
from typing import Any

from rechain.reference.js import deep_copy
from rechain.reference.model import Json

NO_RESPONSE = "No response requested."
INTERRUPTED_CALL = (
    "[Tool call interrupted: the session ended before this call's result was recorded, so its "
    "outcome is unknown. Check whether it took effect before relying on it or running it again.]"
)
QUEUED = (
    "<system-reminder>\nThe user sent a new message while you were working:\n{prompt}\n\n"
    "This is how Claude Code surfaces messages the user sends mid-turn \u2014 within the running "
    "turn, often alongside the next tool result, rather than as a separate conversation turn. "
    "Address the message above as you continue this turn.\n</system-reminder>"
)
QUEUED_META = (
    "<system-reminder>\n[MESSAGE FROM NON-USER SOURCE - NOT USER INPUT]\n{prompt}\n"
    "</system-reminder>"
)
MISSING_RESULT = "[Tool result missing due to internal error]"
ORPHANED_RESULT = "[Orphaned tool result removed due to conversation resume]"
THINKING = ("thinking", "redacted_thinking")
SYNTHETIC_MODEL = "<synthetic>"
_DATE_SUFFIX = re.compile(r"-\d{8}$")


def same_model(row_model: Any, request_model: str) -> bool:
    """The CLI's model match for keeping thinking: date suffix, case and ``[1m]`` ignored."""
    if row_model == SYNTHETIC_MODEL:
        return True
    if type(row_model) is not str:
        return False
    return _canonical(row_model) == _canonical(request_model)


def _canonical(model: str) -> str:
    name = model.lower().removesuffix("[1m]")
    return _DATE_SUFFIX.sub("", name)


def _content(row: Json) -> Any:
    message = row.get("message")
    return message.get("content") if type(message) is dict else None


def _blocks_of(row: Json, kind: str, field: str) -> list[str]:
    content = _content(row)
    if type(content) is not list:
        return []
    return [b[field] for b in content
            if type(b) is dict and b.get("type") == kind and type(b.get(field)) is str]


def _message_id(row: Json) -> Any:
    message = row.get("message")
    return message.get("id") if type(message) is dict else None


# --- deserialisation filters --------------------------------------------------------------


def ends_interrupted(rows: list[Json]) -> bool:
    """The turn was cut off: the last message row is a tool result, an attachment, or an
    assistant whose calls were not all answered. The CLI then keeps every unanswered call."""
    last = next((r for r in reversed(rows) if r.get("type") != "system"), None)
    if last is None:
        return False
    if last.get("type") == "attachment":
        return True
    if last.get("type") == "user":
        return bool(_blocks_of(last, "tool_result", "tool_use_id"))
    answered = {i for row in rows for i in _blocks_of(row, "tool_result", "tool_use_id")}
    return any(c not in answered for c in _blocks_of(last, "tool_use", "id"))


def drop_unanswered_calls(rows: list[Json]) -> list[Json]:
    """Assistant rows whose every tool_use is unanswered, unless the turn was cut off."""
    answered = {i for row in rows for i in _blocks_of(row, "tool_result", "tool_use_id")}
    if ends_interrupted(rows):
        return _drop_unsandwiched(rows, answered)
    return [row for row in rows if not (
        row.get("type") == "assistant"
        and (calls := _blocks_of(row, "tool_use", "id"))
        and all(c not in answered for c in calls))]


def _drop_unsandwiched(rows: list[Json], answered: set[str]) -> list[Json]:
    """Mid-turn end: an earlier message's unanswered fragment stays only between two
    fragments of its message whose calls were answered (found by probing; D1 in the docs)."""
    final = next((r for r in reversed(rows) if r.get("type") == "assistant"), None)
    final_id = _message_id(final) if final is not None else None
    out: list[Json] = []
    for at, row in enumerate(rows):
        calls = _blocks_of(row, "tool_use", "id") if row.get("type") == "assistant" else []
        mid = _message_id(row)
        if calls and all(c not in answered for c in calls) and mid != final_id \
                and not (_has_call_fragment(rows[:at], mid, answered)
                         and _has_call_fragment(rows[at + 1:], mid, answered)):
            continue
        out.append(row)
    return out


def _has_call_fragment(rows: list[Json], message_id: Any, answered: set[str]) -> bool:
    """Some assistant row of ``message_id`` among ``rows`` makes a call that was answered."""
    return message_id is not None and any(
        r.get("type") == "assistant" and _message_id(r) == message_id
        and any(c in answered for c in _blocks_of(r, "tool_use", "id")) for r in rows)


def deserialise(rows: list[Json]) -> list[Json]:
    """The CLI's filters, in its order: blank, unanswered calls, then thinking-only."""
    return drop_thinking_only(drop_unanswered_calls(drop_blank(rows)))


def _key(value: Any) -> Any:
    return value if type(value) is str else ("\x01", repr(value))


def unanswered_tip(rows: list[Json]) -> Json | None:
    """The last fragment of the final assistant message with a call nobody answered."""
    answered = {i for row in rows for i in _blocks_of(row, "tool_result", "tool_use_id")}
    last = next((r for r in reversed(rows) if r.get("type") == "assistant"), None)
    if last is None:
        return None
    last_id = _message_id(last)
    for row in reversed(rows):
        if row.get("type") != "assistant" or not (row is last or (
                last_id is not None and _message_id(row) == last_id)):
            continue
        if any(c not in answered for c in _blocks_of(row, "tool_use", "id")):
            return row
    return None


def _only(row: Json, kinds: tuple[str, ...]) -> bool:
    content = _content(row)
    if type(content) is not list or not content:
        return False
    return all(type(b) is dict and b.get("type") in kinds for b in content)


def drop_thinking_only(rows: list[Json]) -> list[Json]:
    """Assistants with only thinking, unless a fragment of the same message says more."""
    speaking = {_key(_message_id(r)) for r in rows
                if r.get("type") == "assistant" and not _only(r, THINKING)}
    return [r for r in rows if not (r.get("type") == "assistant" and _only(r, THINKING)
                                    and _key(_message_id(r)) not in speaking)]


def drop_blank(rows: list[Json]) -> list[Json]:
    """Assistants whose text blocks are all whitespace."""
    def blank(row: Json) -> bool:
        content = _content(row)
        if row.get("type") != "assistant" or type(content) is not list or not content:
            return False
        return all(type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str
                   and not b["text"].strip() for b in content)
    return [r for r in rows if not blank(r)]


# --- conversion ---------------------------------------------------------------------------


def _as_item(row: Json, model: str) -> tuple[Json, Any] | None:
    """One chain row as (API message, assistant message id) or None when it sends nothing."""
    kind = row.get("type")
    if kind == "user":
        return {"role": "user", "content": deep_copy(_content(row))}, None
    if kind == "assistant":
        content = deep_copy(_content(row))
        message = row.get("message")
        row_model = message.get("model") if type(message) is dict else None
        if type(content) is list and not same_model(row_model, model):
            content = [b for b in content if not (type(b) is dict and b.get("type") in THINKING)]
        if type(content) is list:
            content = [_renamed(b) for b in content if not _blank_text(b)] or content
        return {"role": "assistant", "content": content}, _message_id(row)
    if kind == "system" and row.get("subtype") == "local_command":
        text = row.get("content")
        return ({"role": "user", "content": text}, None) if type(text) is str else None
    if kind == "attachment":
        attachment = row.get("attachment")
        if type(attachment) is dict and attachment.get("type") == "queued_command":
            prompt = attachment.get("prompt")
            if type(prompt) is not str:
                return None
            template = QUEUED_META if attachment.get("isMeta") is True else QUEUED
            return {"role": "user", "content": template.format(prompt=prompt)}, None
    return None


LEGACY_TOOL_NAMES = {"Task": "Agent"}  # the subagent tool's old name


def _renamed(block: Any) -> Any:
    """A tool_use of a renamed tool goes out under the tool's current name."""
    if type(block) is dict and block.get("type") == "tool_use" \
            and type(block.get("name")) is str and block["name"] in LEGACY_TOOL_NAMES:
        return {**block, "name": LEGACY_TOOL_NAMES[block["name"]]}
    return block


def _blank_text(block: Any) -> bool:
    return type(block) is dict and block.get("type") == "text" and block.get("text") == ""


_SURROGATE = re.compile("[\ud800-\udfff]")


def well_formed(value: Any) -> Any:
    """Lone surrogates as U+FFFD: the request body is UTF-8, which cannot carry them.

    Returns a copy (iterative, like ``deep_copy``: values can nest without limit).
    """
    copied = deep_copy(value)
    if type(copied) is str:
        return _SURROGATE.sub("\ufffd", copied)
    stack = [copied] if type(copied) in (dict, list) else []
    while stack:
        item = stack.pop()
        if type(item) is dict:
            for name in list(item):
                child = item[name]
                fixed = _SURROGATE.sub("\ufffd", name)
                if fixed != name:
                    del item[name]
                    item[fixed] = child  # a later duplicate name wins, as in the dict comprehension
                if type(child) is str:
                    item[fixed] = _SURROGATE.sub("\ufffd", child)
                elif type(child) in (dict, list):
                    stack.append(child)
        else:
            for index, child in enumerate(item):
                if type(child) is str:
                    item[index] = _SURROGATE.sub("\ufffd", child)
                elif type(child) in (dict, list):
                    stack.append(child)
    return copied


def _as_blocks(content: Any) -> list[Any]:
    if type(content) is str:
        return [{"type": "text", "text": content}]
    return list(content) if type(content) is list else []


def _is_reminder(content: Any) -> bool:
    blocks = _as_blocks(content)
    return bool(blocks) and all(
        type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str
        and b["text"].startswith("<system-reminder>") for b in blocks)


def _merge_users(earlier: Json, later: Json) -> None:
    """``mergeUserMessages``: reminders fold into a trailing tool_result, text joins with LF."""
    left = _as_blocks(earlier["content"])
    right = _as_blocks(later["content"])
    if left and _is_reminder(right) and type(left[-1]) is dict \
            and left[-1].get("type") == "tool_result" and type(left[-1].get("content")) is str:
        text = "\n\n".join(b["text"] for b in right)
        left[-1] = {**left[-1], "content": left[-1]["content"] + "\n\n" + text}
        earlier["content"] = left
        return
    left_rest = [b for b in left if not _is_result(b)]
    right_rest = [b for b in right if not _is_result(b)]
    if left_rest and right_rest and type(left_rest[-1]) is dict \
            and left_rest[-1].get("type") == "text" and type(right_rest[0]) is dict \
            and right_rest[0].get("type") == "text":
        left_rest[-1] = {**left_rest[-1], "text": left_rest[-1]["text"] + "\n"}
    earlier["content"] = [b for b in left + right if _is_result(b)] + left_rest + right_rest


def _hoist_reminders(rows: list[Json], model: str) -> list[tuple[Json, Any]]:
    """Attachment reminders move up past plain user messages, to the last assistant or result."""
    items: list[tuple[Json, Any, bool]] = []
    for row in rows:
        item = _as_item(row, model)
        if item is None:
            continue
        reminder = row.get("type") == "attachment"
        at = len(items)
        if reminder:
            while at > 0 and items[at - 1][0]["role"] == "user" and not items[at - 1][2] \
                    and not _has_results(items[at - 1][0]):
                at -= 1
        items.insert(at, (item[0], item[1], reminder))
    return [(message, mid) for message, mid, _ in items]


def _has_results(message: Json) -> bool:
    return any(type(b) is dict and b.get("type") == "tool_result"
               for b in _as_blocks(message["content"]))


SENTINEL = "\x00sentinel"
INTERRUPTED = "\x00interrupted"


def to_api(rows: list[Json], model: str) -> list[Json]:
    """The ``messages`` of the first request after resume, without the new prompt's turn."""
    rows = _with_synthetic_rows(deserialise(rows))
    out: list[Json] = []
    ids: list[Any] = []
    for message, mid in _hoist_reminders(rows, model):
        if message["role"] == "assistant" and mid is not None and mid != SENTINEL:
            target = _fragment_target(out, ids, mid)
            if target is not None:
                out[target]["content"] = _as_blocks(out[target]["content"]) + _as_blocks(
                    message["content"])
                continue
        if out and out[-1]["role"] == "user" and message["role"] == "user":
            _merge_users(out[-1], message)
            continue
        out.append(message)
        ids.append(mid)
    if SENTINEL in ids:
        out = out[:ids.index(SENTINEL) + 1]  # what follows joins the new prompt's turn
    else:
        while out and out[-1]["role"] == "user":
            out.pop()
    return well_formed(_pair_results(out))


def _with_synthetic_rows(rows: list[Json]) -> list[Json]:
    """The interrupted-call results (at the end), then the sentinel.

    When the last user or assistant row is a user row, the sentinel assistant follows the
    last row that is not a system row; system rows after it (a local command's output)
    end up in the new prompt's turn.
    """
    answered = {i for row in rows for i in _blocks_of(row, "tool_result", "tool_use_id")}
    tip = unanswered_tip(rows)
    if tip is not None and ends_interrupted(rows):
        last_id = _message_id(tip)
        calls = [c for row in rows if row.get("type") == "assistant" and (
            row is tip or (last_id is not None and _message_id(row) == last_id))
            for c in _blocks_of(row, "tool_use", "id") if c not in answered]
        rows = [*rows, {"type": "user", "uuid": INTERRUPTED, "message": {"content": [
            {"type": "tool_result", "content": INTERRUPTED_CALL, "is_error": True,
             "tool_use_id": c} for c in calls]}}]
    last = next((i for i in range(len(rows) - 1, -1, -1)
                 if rows[i].get("type") in ("user", "assistant")), None)
    if last is None or rows[last].get("type") != "user":
        return rows
    last = max(i for i in range(len(rows)) if rows[i].get("type") != "system")
    sentinel = {"type": "assistant", "uuid": SENTINEL, "message": {
        "id": SENTINEL, "model": SYNTHETIC_MODEL,
        "content": [{"type": "text", "text": NO_RESPONSE}]}}
    return [*rows[:last + 1], sentinel, *rows[last + 1:]]


def _pair_results(out: list[Json]) -> list[Json]:
    """``ensureToolResultPairing``: results must answer the assistant message just before.

    Orphan results are removed (a first message left empty says so); calls of an
    earlier assistant message without a result get the "missing" error result first.
    """
    paired: list[Json] = []
    at = 0
    while at < len(out):
        message = out[at]
        if message["role"] == "user":
            if type(message["content"]) is list and _has_results(message):
                blocks = [b for b in message["content"] if not _is_result(b)]
                if blocks:
                    paired.append({**message, "content": blocks})
                elif not paired:
                    paired.append({**message, "content": [
                        {"type": "text", "text": ORPHANED_RESULT}]})
            else:
                paired.append(message)
            at += 1
            continue
        paired.append(message)
        calls = [b.get("id") for b in _as_blocks(message["content"])
                 if type(b) is dict and b.get("type") == "tool_use"]
        following = out[at + 1] if at + 1 < len(out) else None
        if following is None or following["role"] != "user":
            if calls:
                paired.append({"role": "user", "content": [_missing(c) for c in calls]})
            at += 1
            continue
        blocks = _as_blocks(following["content"])
        answered = {b.get("tool_use_id") for b in blocks if _is_result(b)}
        missing = [_missing(c) for c in calls if c not in answered]
        kept = [b for b in blocks if not _is_result(b) or b.get("tool_use_id") in calls]
        if missing or len(kept) != len(blocks):
            paired.append({**following, "content": missing + kept})
        else:
            paired.append(following)
        at += 2
    return paired


def _is_result(block: Any) -> bool:
    return type(block) is dict and block.get("type") == "tool_result"


def _missing(call: Any) -> Json:
    return {"type": "tool_result", "tool_use_id": call, "content": MISSING_RESULT,
            "is_error": True}


def _fragment_target(out: list[Json], ids: list[Any], mid: Any) -> int | None:
    """The earlier assistant of the same message, when only tool results lie between."""
    for at in range(len(out) - 1, -1, -1):
        if out[at]["role"] == "assistant":
            return at if ids[at] == mid else None
        blocks = _as_blocks(out[at]["content"])
        if not blocks or not all(type(b) is dict and b.get("type") == "tool_result"
                                 for b in blocks):
            return None
    return None
