"""``JSON.parse`` of one transcript line, with JavaScript's results.

orjson handles almost every line. What it refuses but ``JSON.parse`` accepts
(lone surrogate escapes, numbers beyond a double, nesting deeper than 1024,
invalid UTF-8 that the readers decode to U+FFFD) goes through a small
iterative parser with the same grammar, so no depth or byte sequence can make
the reference disagree with a JavaScript reader or raise.
"""

from __future__ import annotations

import re
from json.decoder import scanstring
from typing import Any

import orjson

_WS = re.compile(r"[ \t\n\r]*")
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?")
_MAX_SAFE = 2**53


class JsonError(ValueError):
    """The text is not JSON (as ``JSON.parse`` would say); carries the offset."""

    def __init__(self, message: str, offset: int) -> None:
        super().__init__(f"{message} at character {offset}")
        self.offset = offset


def parse_line(data: bytes) -> tuple[Any, bool]:
    """Parse one line's bytes; returns (value, had_invalid_utf8). Raises JsonError."""
    try:
        return orjson.loads(data), False
    except (orjson.JSONDecodeError, RecursionError):
        pass
    try:
        text = data.decode("utf-8")
        replaced = False
    except UnicodeDecodeError:
        text = data.decode("utf-8", "replace")
        replaced = True
    return parse_text(text), replaced


def _number(token: str, fraction: str | None, exponent: str | None) -> int | float:
    if fraction is None and exponent is None:
        value = int(token)
        return value if -_MAX_SAFE <= value <= _MAX_SAFE else float(token)
    return float(token)


def parse_text(text: str) -> Any:
    """An iterative JSON parser with ``JSON.parse``'s grammar and results."""
    value, pos = parse_prefix(text, 0)
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if pos != len(text):
        raise JsonError("unexpected data after the value", pos)
    return value


def parse_prefix(text: str, start: int = 0) -> tuple[Any, int]:
    """The JSON value at ``start`` (after whitespace) and the offset just past it.

    Streaming readers (the CLI's JSONL reader) stop after one value and decide
    themselves what may follow; an error's offset says where parsing failed.
    """
    stack: list[list[Any] | dict[str, Any]] = []
    keys: list[str | None] = []
    pos = _WS.match(text, start).end()  # type: ignore[union-attr]
    end = len(text)
    while True:
        if pos >= end:
            raise JsonError("unexpected end of input", pos)
        char = text[pos]
        # parse one value, or open a container
        if char == "{" or char == "[":
            container: list[Any] | dict[str, Any] = {} if char == "{" else []
            pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
            closing = "}" if char == "{" else "]"
            if pos < end and text[pos] == closing:
                pos += 1
                value: Any = container
            else:
                stack.append(container)
                if char == "{":
                    pos = _read_key(text, pos, keys)
                else:
                    keys.append(None)
                continue
        elif char == '"':
            value, pos = _string(text, pos)
        else:
            match = _NUMBER.match(text, pos)
            if match:
                value = _number(match.group(0), match.group(1), match.group(2))
                pos = match.end()
            elif text.startswith("true", pos):
                value, pos = True, pos + 4
            elif text.startswith("false", pos):
                value, pos = False, pos + 5
            elif text.startswith("null", pos):
                value, pos = None, pos + 4
            else:
                raise JsonError(f"unexpected character {char!r}", pos)
        # attach the value, then close every container that ends here
        while True:
            if not stack:
                return value, pos
            pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
            top = stack[-1]
            if type(top) is dict:
                top[keys[-1]] = value  # type: ignore[index]
            else:
                top.append(value)  # type: ignore[union-attr]
            if pos < end and text[pos] == ",":
                pos = _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
                if type(top) is dict:
                    keys.pop()
                    pos = _read_key(text, pos, keys)
                break
            closing = "}" if type(top) is dict else "]"
            if pos < end and text[pos] == closing:
                pos += 1
                value = stack.pop()
                keys.pop()
                continue
            raise JsonError(f"expected ',' or {closing!r}", pos)


def _string(text: str, pos: int) -> tuple[str, int]:
    """The string starting at the quote at ``pos``; lone surrogate escapes are kept."""
    try:
        return scanstring(text, pos + 1, True)
    except ValueError as error:
        raise JsonError(getattr(error, "msg", str(error)), pos) from None


def _read_key(text: str, pos: int, keys: list[str | None]) -> int:
    """Read ``"key" :`` and push the key; returns the position of the value."""
    if pos >= len(text) or text[pos] != '"':
        raise JsonError("expected a string key", pos)
    name, pos = _string(text, pos)
    pos = _WS.match(text, pos).end()  # type: ignore[union-attr]
    if pos >= len(text) or text[pos] != ":":
        raise JsonError("expected ':'", pos)
    keys.append(name)
    return _WS.match(text, pos + 1).end()  # type: ignore[union-attr]
