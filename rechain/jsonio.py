"""JSON output that cannot fail on what a transcript contained, and its reading back.

orjson is fast but refuses lone surrogates and nesting past 255 levels;
both occur in hostile transcripts. The fallback escapes to ASCII and walks
iteratively, so ``rechain`` prints every rebuilt message whatever it holds.
"""

from __future__ import annotations

import json
import math
from typing import Any

import orjson

from rechain.reference.js.values import UNDEFINED


def dumps(value: Any, *, indent: bool = False) -> bytes:
    """Serialise to JSON bytes; never raises for values that came from a JSON parser."""
    try:
        return orjson.dumps(value, option=orjson.OPT_INDENT_2 if indent else 0)
    except (TypeError, orjson.JSONEncodeError):
        return _iterative(value).encode("ascii")


def loads(text: bytes | str) -> Any:
    """Parse one JSON text ``dumps`` wrote; ``ValueError`` when it is none.

    orjson refuses the lone surrogate escapes ``dumps`` writes for a reader's lone
    surrogates (valid JSON all the same); the standard library reads them.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text)


def _scalar(value: Any) -> str:
    if value is None or value is UNDEFINED:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return "null" if math.isinf(value) or math.isnan(value) else repr(value)
    if isinstance(value, int):
        return str(value)
    return json.dumps(value if isinstance(value, str) else str(value), ensure_ascii=True)


def _iterative(value: Any) -> str:
    """A compact JSON encoder without recursion (JSON.stringify's output for our values)."""
    out: list[str] = []
    stack: list[Any] = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, _Token):
            out.append(item.text)
        elif isinstance(item, dict):
            out.append("{")
            stack.append(_Token("}"))
            pairs = list(item.items())
            for position in range(len(pairs) - 1, -1, -1):
                name, member = pairs[position]
                stack.append(member)
                prefix = "," if position else ""
                stack.append(_Token(prefix + json.dumps(str(name), ensure_ascii=True) + ":"))
        elif isinstance(item, list | tuple):
            out.append("[")
            stack.append(_Token("]"))
            for position in range(len(item) - 1, -1, -1):
                stack.append(item[position])
                if position:
                    stack.append(_Token(","))
        else:
            out.append(_scalar(item))
    return "".join(out)


class _Token:
    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text
