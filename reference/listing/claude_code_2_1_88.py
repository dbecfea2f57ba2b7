"""Claude Code 2.1.88's ``readLiteMetadata`` and ``enrichLog`` (the ``/resume`` list).

Written from the spec (loader-2.1.88.md section 7) and checked against 2.1.88 runs.
It differs from the SDK: raw string search instead of per-line parses, a
sidechain test over the whole head, ``lastPrompt`` as the first prompt, no
sidecars, ``(session)`` for sessions with nothing to show, and team sessions
hidden. Pure: head and tail text in, one listed log (or None) out.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from rechain.reference.js.text import JS_SPACE_CLASS, trim, try_json, utf16_len, utf16_slice
from rechain.reference.listing.agent_sdk_0_3_332 import ELLIPSIS, PROMPT_UNITS, Lite
from rechain.reference.listing.scan import field_prefix_88, first_field, last_field_88, lines

# COMMANDS() of 2.1.88's public build: names and aliases (feature-gated ones are off)
BUILT_IN_COMMANDS = frozenset(
    (
        "add-dir", "advisor", "agents", "branch", "btw", "chrome", "clear", "reset", "new",
        "color", "compact", "config", "settings", "copy", "desktop", "app", "context", "cost",
        "diff", "doctor", "effort", "exit", "quit", "fast", "files", "heapdump", "help", "ide",
        "init", "keybindings", "install-github-app", "install-slack-app", "mcp", "memory",
        "mobile", "ios", "android", "model", "output-style", "remote-env", "plugin", "plugins",
        "marketplace", "pr-comments", "release-notes", "reload-plugins", "rename", "resume",
        "continue", "session", "remote", "skills", "stats", "status", "statusline", "stickers",
        "tag", "theme", "feedback", "bug", "review", "ultrareview", "rewind", "checkpoint",
        "security-review", "terminal-setup", "upgrade", "extra-usage", "rate-limit-options",
        "usage", "insights", "vim", "think-back", "thinkback-play", "permissions",
        "allowed-tools", "plan", "privacy-settings", "hooks", "export", "sandbox", "logout",
        "login", "passes", "tasks", "bashes",
    )
)
SKIPPED_PROMPT = re.compile(
    r"^(?:" + JS_SPACE_CLASS + r"*<[a-z][A-Za-z0-9_-]*(?:" + JS_SPACE_CLASS
    + r"|>)|\[Request interrupted by user[^\]]*\])"
)
_NO_PROMPT = "(session)"


def extract_tag(html: str, name: str) -> str | None:
    """``extractTag``: the first non-empty, non-nested ``<name ...>content</name>``."""
    if not trim(html) or not trim(name):
        return None
    tag = re.escape(name)
    pattern = re.compile(rf"<{tag}(?:\s+[^>]*)?>([\s\S]*?)</{tag}>", re.IGNORECASE)
    opening = re.compile(rf"<{tag}(?:\s+[^>]*?)?>", re.IGNORECASE)
    closing = re.compile(rf"</{tag}>", re.IGNORECASE)
    last = 0
    for match in pattern.finditer(html):
        before = html[last : match.start()]
        depth = len(opening.findall(before)) - len(closing.findall(before))
        if depth == 0 and match.group(1):
            return match.group(1)
        last = match.end()
    return None


def user_entries(head: str) -> Iterator[dict[str, Any]]:
    """The head's user lines a first-prompt scan reads: text-matched as a user line, not a
    tool result nor meta, parsed, and a user entry once parsed (every release's scan)."""
    for line in lines(head):
        if '"type":"user"' not in line and '"type": "user"' not in line:
            continue
        if '"tool_result"' in line or '"isMeta":true' in line or '"isMeta": true' in line:
            continue
        ok, entry = try_json(line)
        if ok and type(entry) is dict and entry.get("type") == "user":
            yield entry


def first_prompt(head: str) -> str:
    """``extractFirstPromptFromChunk``: 2.1.88's first meaningful user prompt in the head."""
    fallback = ""
    for entry in user_entries(head):
        message = entry.get("message")
        if message is None or message is False or message == "" or message == 0:
            continue
        content = message.get("content") if type(message) is dict else None
        texts: list[str] = []
        if type(content) is str:
            texts.append(content)
        elif type(content) is list:
            texts = [
                b["text"]
                for b in content
                if type(b) is dict and b.get("type") == "text" and type(b.get("text")) is str
            ]
        for text in texts:
            if not text:
                continue
            shown = trim(text.replace("\n", " "))
            command = extract_tag(shown, "command-name")
            if command:
                name = command.removeprefix("/")
                arguments = trim(extract_tag(shown, "command-args") or "")
                if name in BUILT_IN_COMMANDS or not arguments:
                    fallback = fallback or command
                    continue
                return f"{command} {arguments}"
            bash = extract_tag(shown, "bash-input")
            if bash:
                return f"! {bash}"
            if SKIPPED_PROMPT.search(shown):
                continue
            if utf16_len(shown) > PROMPT_UNITS:
                shown = trim(utf16_slice(shown, PROMPT_UNITS)) + ELLIPSIS
            return shown
    return fallback


def _pr_number(tail: str) -> int | None:
    text = last_field_88(tail, "prNumber")
    number = _parse_int(text) if text else None
    if not number:
        at = tail.rfind('"prNumber":')
        if at >= 0:
            found = _parse_int(trim(tail[at + 11 : at + 25]))
            number = found if found is not None and found > 0 else number
    return number or None


def _parse_int(text: str) -> int | None:
    """``parseInt(text, 10)`` (None for NaN)."""
    match = re.match(r"[\s]*([+-]?\d+)", text)
    return int(match.group(1)) if match else None


def lite_metadata(lite: Lite) -> dict[str, Any]:
    """``readLiteMetadata``: every field 2.1.88 takes from the head and tail."""
    head, tail = lite.head, lite.tail
    if not head:
        return {"firstPrompt": "", "isSidechain": False}
    prompt = (
        last_field_88(tail, "lastPrompt")
        or first_prompt(head)
        or field_prefix_88(head, "content", 200)
        or field_prefix_88(head, "text", 200)
        or ""
    )
    title = last_field_88(tail, "customTitle")
    for source, key in ((head, "customTitle"), (tail, "aiTitle"), (head, "aiTitle")):
        if title is None:
            title = last_field_88(source, key)
    branch = last_field_88(tail, "gitBranch")
    return {
        "firstPrompt": prompt,
        "gitBranch": branch if branch is not None else first_field(head, "gitBranch"),
        "isSidechain": '"isSidechain":true' in head or '"isSidechain": true' in head,
        "projectPath": first_field(head, "cwd"),
        "teamName": first_field(head, "teamName"),
        "customTitle": title,
        "summary": last_field_88(tail, "summary"),
        "tag": last_field_88(tail, "tag"),
        "agentSetting": first_field(head, "agentSetting"),
        "prNumber": _pr_number(tail),
        "prUrl": last_field_88(tail, "prUrl"),
        "prRepository": last_field_88(tail, "prRepository"),
    }


def session_info(
    session_id: str, lite: Lite, project_path: str | None, created_ms: int | None
) -> dict[str, Any] | None:
    """``enrichLog`` in the SDK's field names; None when 2.1.88 leaves the session out."""
    meta = lite_metadata(lite)
    prompt = meta["firstPrompt"]
    if not prompt and not meta.get("customTitle"):
        prompt = _NO_PROMPT
    if meta["isSidechain"] or meta.get("teamName"):
        return None
    info: dict[str, Any] = {
        "sessionId": session_id,
        # the picker shows customTitle, else summary, else firstPrompt
        "summary": meta.get("customTitle") or meta.get("summary") or prompt,
        "lastModified": lite.mtime_ms,
        "fileSize": lite.size,
        "customTitle": meta.get("customTitle"),
        "firstPrompt": prompt,
        "gitBranch": meta.get("gitBranch"),
        "cwd": meta.get("projectPath") if meta.get("projectPath") is not None else project_path,
        "tag": meta.get("tag"),
        "createdAt": created_ms,
        "agentSetting": meta.get("agentSetting"),
        "prNumber": meta.get("prNumber"),
        "prUrl": meta.get("prUrl"),
        "prRepository": meta.get("prRepository"),
        "storedSummary": meta.get("summary"),
    }
    return {key: value for key, value in info.items() if value is not None}


def sort_key(info: dict[str, Any]) -> tuple[int, int]:
    """``sortLogs``: newest mtime first, then newest birth time (apply with reverse)."""
    return (info["lastModified"], info.get("createdAt") or 0)


def ends_prompt_scan(text: str) -> bool:
    """Whether a non-empty string is taken as the first prompt (else the scan goes on).

    As 2.1.88's session list reads it: a command without arguments (or a built-in
    one), a leading tag and an interruption notice are passed over; anything else,
    blank text included, is the prompt. Resuming (``seed.resume``, ``resume.prompt``)
    looks for the first prompt with the same test (probed on 2.1.88 and 2.1.332).
    """
    shown = trim(text.replace("\n", " "))
    command = extract_tag(shown, "command-name")
    if command:
        arguments = trim(extract_tag(shown, "command-args") or "")
        return command.removeprefix("/") not in BUILT_IN_COMMANDS and bool(arguments)
    if extract_tag(shown, "bash-input"):
        return True
    return not SKIPPED_PROMPT.search(shown)
