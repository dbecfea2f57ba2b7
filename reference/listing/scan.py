"""Field scanners over raw head/tail text, as the lite readers run them.

Lite reads never parse a whole file: they look for ``"key":"`` in text that
may start or end mid-line, or parse single lines. Each scanner here behaves like
one way the readers look for a field, because small differences (first vs last,
key order, line vs anywhere) change what is listed.
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js.text import try_json, utf16_index, utf16_len

TAIL_WINDOW_UNITS = 8192  # the SDK's shortcut window for a last-occurrence search


def unescape(raw: str) -> str:
    """A raw JSON string body as text."""
    if "\\" not in raw:
        return raw
    ok, value = try_json(f'"{raw}"')
    return value if ok and type(value) is str else raw


def _value_end(text: str, start: int) -> int:
    """Index of the closing quote of a string body starting at ``start``, or -1."""
    i, end = start, len(text)
    while i < end:
        char = text[i]
        if char == "\\":
            i += 2
            continue
        if char == '"':
            return i
        i += 1
    return -1


def first_field(text: str, key: str) -> str | None:
    """First ``"key":"value"`` (compact spelling tried first)."""
    for pattern in (f'"{key}":"', f'"{key}": "'):
        at = text.find(pattern)
        if at < 0:
            continue
        start = at + len(pattern)
        end = _value_end(text, start)
        if end >= 0:
            return unescape(text[start:end])
    return None


def _last_from(text: str, patterns: tuple[str, ...], begin: int) -> str | None:
    """The occurrence with the highest start among both spellings."""
    best: str | None = None
    best_at = -1
    for pattern in patterns:
        search = begin
        while True:
            at = text.find(pattern, search)
            if at < 0:
                break
            start = at + len(pattern)
            end = _value_end(text, start)
            if end < 0:
                break
            if at > best_at:
                best, best_at = text[start:end], at
            search = end + 1
    return None if best is None else unescape(best)


def last_field_sdk(text: str, key: str) -> str | None:
    """Last ``"key":"value"``, the SDK's way: a shortcut from the last 8 K units."""
    compact = f'"{key}":"'
    patterns = (compact, f'"{key}": "')
    window = utf16_index(text, utf16_len(text) - TAIL_WINDOW_UNITS)
    at = text.find('",' + compact, window)
    if at > 0 and text[at - 1] != "\\" and not text[: at + 1].endswith(compact):
        found = _last_from(text, patterns, at + 2)
        if found is not None:
            return found
    return _last_from(text, patterns, 0)


def last_field_88(text: str, key: str) -> str | None:
    """Last ``"key":"value"`` as 2.1.88 finds it (extractLastJsonStringField).

    Unlike the SDK it keeps the value of the *later pattern's* last hit, not
    the highest position: the spaced spelling wins when it occurs at all.
    """
    last: str | None = None
    for pattern in (f'"{key}":"', f'"{key}": "'):
        search = 0
        while True:
            at = text.find(pattern, search)
            if at < 0:
                break
            start = at + len(pattern)
            i, end = start, len(text)
            while i < end:
                if text[i] == "\\":
                    i += 2
                    continue
                if text[i] == '"':
                    last = unescape(text[start:i])
                    break
                i += 1
            search = i + 1
    return last


def field_prefix_88(text: str, key: str, limit: int) -> str:
    """First value's first ``limit`` units, even unterminated ."""
    from rechain.reference.js.text import trim

    for pattern in (f'"{key}":"', f'"{key}": "'):
        at = text.find(pattern)
        if at < 0:
            continue
        start = at + len(pattern)
        i, collected, end = start, 0, len(text)
        while i < end and collected < limit:
            if text[i] == "\\":
                i += 2
                collected += 1
                continue
            if text[i] == '"':
                break
            # a character outside the BMP is two UTF-16 units for the JS loop
            i += 1
            collected += 2 if ord(text[i - 1]) > 0xFFFF else 1
        raw = text[start:i]
        return trim(raw.replace("\\n", " ").replace("\\t", " "))
    return ""


def lines(text: str) -> list[str]:
    """``text.split("\\n")``."""
    return text.split("\n")


def _line_value(line: str, key: str, kind: str | None) -> Any:
    """The string ``key`` of a line's object (of type ``kind``); None if unparsable."""
    ok, value = try_json(line)
    if not ok:
        return None
    if type(value) is dict and (kind is None or value.get("type") == kind):
        found = value.get(key)
        if type(found) is str:
            return found
    return False  # parsed, nothing usable (JS: undefined)


def last_line_field(
    text: str, key: str, kind: str | None = None, mode: str | None = None
) -> str | None:
    """``key`` of the last parsable line (of ``type`` kind) that has it as a string.

    ``mode="older"`` (tags and titles) also accepts spaced ``"type": "..."``
    and, when the line does not parse, retries from an embedded ``{"type":...``
    (a line written after a truncated one).
    """
    if kind is None:
        markers: tuple[str, ...] = ()
    elif mode is None:
        markers = (f'"type":"{kind}"',)
    else:
        markers = (f'"type":"{kind}"', f'"type": "{kind}"')
    needle = f'"{key}":'
    end = len(text)
    while end > 0:
        start = text.rfind("\n", 0, end)
        line = text[start + 1 : end]
        end = start
        if (needle in line or mode == "none") and (not markers or any(m in line for m in markers)):
            found = _line_value(line, key, kind)
            if found is None and mode is not None:
                embedded = line.rfind("{" + markers[0])
                found = (
                    _line_value(line[embedded:], key, kind)
                    if embedded > 0 and line[embedded - 1] not in ":,["
                    else None
                )
                if found is None and mode == "none":
                    return None
            if type(found) is str:
                return found
        if start < 0:
            break
    return None


def first_line_field(text: str, key: str) -> str | None:
    """``key`` of the first parsable line that has it as a top-level string."""
    needle = f'"{key}":'
    for line in lines(text):
        if needle in line:
            ok, value = try_json(line)
            if ok and type(value) is dict and type(value.get(key)) is str:
                return str(value[key])
    return None
