"""The TS SDK 0.3.332's ``listSessions`` / ``getSessionInfo`` rules over one head and tail.

Pure: everything here takes the decoded head/tail (and sidecar contents the
caller read) and returns what the SDK would list. Each rule was learned from the
SDK's behaviour and is checked against ``listSessions`` by the tests.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from rechain.reference.js.text import (
    JS_SPACE_CLASS,
    date_parse,
    decode,
    trim,
    truncate_whole,
    try_json,
    utf16_len,
)
from rechain.reference.listing.scan import (
    first_field,
    first_line_field,
    last_field_sdk,
    last_line_field,
    lines,
)

PROMPT_UNITS = 200
ELLIPSIS = "\u2026"
PROGRAMMATIC_ENTRYPOINTS = frozenset({"sdk-cli", "sdk-ts", "sdk-py"})
_COMMAND = re.compile(r"<command-name>([^\n\r\u2028\u2029]*?)</command-name>")
_BASH = re.compile(r"<bash-input>([\s\S]*?)</bash-input>")
SKIPPED_PROMPT = re.compile(
    r"^(?:" + JS_SPACE_CLASS + r"*<[a-z][A-Za-z0-9_-]*(?:" + JS_SPACE_CLASS
    + r"|>)|\[Request interrupted by user[^\]]*\])"
)
_PASTE_OPEN = '<pasted_content id="'
_HEX4 = re.compile(r"[0-9a-f]{4}")
_CONTINUED_IN = '"type":"continued-in"'
_MISSING = object()


@dataclass(frozen=True, slots=True)
class Lite:
    """What a lite read yields: the first and last 64 KiB as text, size and mtime."""

    head: str
    tail: str
    size: int
    mtime_ms: int


def lite_of(head: bytes, tail: bytes | None, size: int, mtime_ms: int) -> Lite:
    """A lite read from its raw ends; ``tail`` None when the file fits in one read."""
    head_text = decode(head)
    return Lite(head_text, head_text if tail is None else decode(tail), size, mtime_ms)


def expand_pasted(text: str) -> str:
    """Inline ``<pasted_content id="hhhh">`` blocks as their bodies."""
    if _PASTE_OPEN not in text:
        return text
    pieces: list[tuple[str, str]] = []
    done = search = 0
    while True:
        at = text.find(_PASTE_OPEN, search)
        if at == -1:
            break
        start = at + len(_PASTE_OPEN)
        ident = text[start : start + 4]
        if _HEX4.fullmatch(ident) is None or not text.startswith('">\n', start + 4):
            search = start
            continue
        body_start = start + 7
        closing = f'</pasted_content id="{ident}">'
        close_at = text.find("\n" + closing, body_start - 1) + 1
        if close_at == 0:
            break
        cut = at
        for _ in range(2):
            if cut > done and text[cut - 1] == "\n":
                cut -= 1
        if cut > done:
            pieces.append(("text", text[done:cut]))
        done = close_at + len(closing)
        for _ in range(2):
            if done < len(text) and text[done] == "\n":
                done += 1
        pieces.append(("block", text[body_start : close_at - 1]))
        search = done
    if done < len(text):
        pieces.append(("text", text[done:]))
    if len(pieces) == 1 and pieces[0][0] == "text":
        return text
    return "".join(body for _, body in pieces)


def prompt_of(entry: Any, fallback: list[str]) -> str | None:
    """The listable prompt text of one user entry, or None to keep looking.

    A slash command is remembered in ``fallback`` (first one wins) and skipped.
    """
    if type(entry) is not dict or entry.get("type") != "user":
        return None
    if entry.get("isMeta") is True or entry.get("isCompactSummary") is True:
        return None
    message = entry.get("message")
    if message is None or message is False or message == "" or message == 0:
        return None
    content = message.get("content") if type(message) is dict else None
    texts: list[str] = []
    if type(content) is str:
        texts.append(content)
    elif type(content) is list:
        for block in content:
            if type(block) is not dict:
                continue
            if block.get("type") == "tool_result":
                return None
            if block.get("type") == "text" and type(block.get("text")) is str:
                texts.append(block["text"])
    for text in texts:
        shown = trim(expand_pasted(text).replace("\n", " "))
        if not shown:
            continue
        command = _COMMAND.search(shown)
        if command is not None:
            if not fallback[0]:
                fallback[0] = command.group(1)
            continue
        bash = _BASH.search(shown)
        if bash is not None:
            return f"! {trim(bash.group(1))}"
        if SKIPPED_PROMPT.search(shown):
            continue
        if utf16_len(shown) > PROMPT_UNITS:
            shown = trim(truncate_whole(shown, PROMPT_UNITS)) + ELLIPSIS
        return shown
    return None


def _user_line(line: str) -> bool:
    if '"type":"user"' not in line and '"type": "user"' not in line:
        return False
    if '"tool_result"' in line:
        return False
    return '"isMeta":true' not in line and '"isMeta": true' not in line


def first_prompt(head: str) -> str:
    """The first listable user prompt in the head, else the first command name."""
    fallback = [""]
    for line in lines(head):
        if not _user_line(line):
            continue
        if '"isCompactSummary":true' in line or '"isCompactSummary": true' in line:
            continue
        ok, entry = try_json(line)
        if not ok or entry is None:
            continue  # JSON.parse threw, or null.type threw
        found = prompt_of(entry, fallback)
        if found is not None:
            return found
    return fallback[0]


def media_fallback(head: str) -> str:
    """"Image" or "Document" when the first such user line holds one."""
    for line in lines(head):
        if not _user_line(line):
            continue
        if '"type":"image"' in line or '"type": "image"' in line:
            return "Image"
        if '"type":"document"' in line or '"type": "document"' in line:
            return "Document"
    return ""


def is_programmatic(head: str, tail: str) -> bool:
    """A session an SDK or daemon started (hidden with includeProgrammatic=false)."""
    entrypoint = first_field(head, "entrypoint")
    if entrypoint is None:
        entrypoint = last_field_sdk(tail, "entrypoint")
    if entrypoint and entrypoint in PROGRAMMATIC_ENTRYPOINTS:
        return True
    first_chain = next((line for line in head.split("\n") if '"parentUuid":' in line), head)
    kind = first_field(first_chain, "sessionKind")
    return kind in ("daemon", "daemon-worker")


def _completed_turn(entry: Any) -> bool:
    """Whether a tail user/assistant line ends a turn (so a hand-off is stale)."""
    if type(entry) is not dict:
        return False
    if entry.get("type") == "assistant":
        flag = entry.get("isApiErrorMessage", _MISSING)
        message = entry.get("message", _MISSING)
        stop = message.get("stop_reason") if type(message) is dict else None
        flag_ok = flag is _MISSING or type(flag) is bool
        message_ok = message is _MISSING or (
            type(message) is dict and (stop is None or type(stop) is str)
        )
        if flag_ok and message_ok:
            return flag is not True and type(stop) is str
    return prompt_of(entry, [""]) is not None


def continued_in(tail: str) -> str | None:
    """The session this one was handed to, unless a turn completed after it."""
    if _CONTINUED_IN not in tail:
        return None
    for line in reversed(tail.split("\n")):
        handoff = _CONTINUED_IN in line
        turn = '"type":"user"' in line or '"type":"assistant"' in line
        if not (handoff or turn):
            continue
        ok, value = try_json(line)
        if not ok:
            continue
        if handoff and type(value) is dict and value.get("type") == "continued-in":
            target = value.get("continuedInSessionId")
            if type(target) is str:
                from rechain.reference.sessions import is_session_id

                return target if is_session_id(target) else None
        if turn and _completed_turn(value):
            return None
    return None


def clean_title(raw: str) -> str:
    """A sidecar title: trimmed, control/format runs as one space, 200 code points."""
    out: list[str] = []
    in_run = False
    for char in trim(raw):
        if char in "\u2028\u2029" or unicodedata.category(char) in ("Cc", "Cf"):
            if not in_run:
                out.append(" ")
            in_run = True
        else:
            out.append(char)
            in_run = False
    kept = re.sub(r"[\x00-\x1f\x7f-\x9f]", "", "".join(out))
    return trim(kept[:200])


def sidecar_title(text: str | None) -> str | None:
    """``customTitle`` from ``<session>/custom-title.json`` text, if usable."""
    if text is None:
        return None
    ok, value = try_json(text)
    if not ok or type(value) is not dict or type(value.get("customTitle")) is not str:
        return None
    return clean_title(value["customTitle"]) or None


def session_info(
    session_id: str,
    lite: Lite,
    project_path: str | None,
    title_sidecar: str | None = None,
    archived: bool | None = None,
) -> dict[str, Any] | None:
    """One session's ``SDKSessionInfo``, or None when the SDK hides it."""
    head, tail = lite.head, lite.tail
    first_line = head.split("\n", 1)[0]
    if '"isSidechain":true' in first_line or '"isSidechain": true' in first_line:
        return None
    title = (
        last_line_field(tail, "customTitle", "custom-title", "older")
        or title_sidecar
        or last_line_field(head, "customTitle", "custom-title", "older")
        or last_line_field(tail, "aiTitle", "ai-title", "older")
        or last_line_field(head, "aiTitle", "ai-title", "older")
        or None
    )
    prompt = first_prompt(head) or None
    stamp = first_field(head, "timestamp")
    created = date_parse(stamp) if stamp else None
    summary = (
        title
        or last_line_field(tail, "lastPrompt")
        or last_line_field(tail, "summary")
        or prompt
        or media_fallback(head)
    )
    if not summary:
        return None
    branch = last_field_sdk(tail, "gitBranch") or first_field(head, "gitBranch") or None
    cwd = (
        last_line_field(tail, "relocatedCwd", "relocated")
        or first_field(head, "cwd")
        or project_path
        or None
    )
    tag = last_line_field(tail, "tag", "tag", "older") or None
    info: dict[str, Any] = {
        "sessionId": session_id,
        "summary": summary,
        "lastModified": lite.mtime_ms,
        "fileSize": lite.size,
        "customTitle": title,
        "firstPrompt": prompt,
        "gitBranch": branch,
        "cwd": cwd,
        "tag": tag,
        "createdAt": created,
        "archived": archived,
    }
    return {key: value for key, value in info.items() if value is not None}


def relocated_or_first_cwd(lite: Lite) -> str | None:
    """The cwd the collision guard checks: a ``relocated`` entry's, else the first line's."""
    return last_line_field(lite.tail, "relocatedCwd", "relocated") or first_line_field(
        lite.head, "cwd"
    )


def sort_key(info: dict[str, Any]) -> tuple[int, str]:
    """Newest first, ties by sessionId descending (apply with ``reverse=True``)."""
    return (info["lastModified"], info["sessionId"])
