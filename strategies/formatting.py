"""The same rows written the way other tools rewrite JSONL files.

Claude Code writes each row with ``JSON.stringify`` (compact, keys in insertion
order, raw UTF-8). Editors, ``jq``, Python's ``json.dumps`` and sync tools rewrite
them with a space after each ``:`` and ``,``, keys in another order, or non-ASCII
characters escaped. The rows mean the same, so a reader's answer must not change;
readers that match bytes instead of parsing (``"type":"assistant"``) do.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from hypothesis import strategies as st

Style = Literal["spaced", "sorted-keys", "reversed-keys", "ascii-escaped", "raw"]
STYLES: tuple[Style, ...] = ("spaced", "sorted-keys", "reversed-keys", "ascii-escaped", "raw")


def _reversed(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _reversed(value[key]) for key in reversed(list(value))}
    if isinstance(value, list):
        return [_reversed(item) for item in value]
    return value


def format_row(row: Any, style: Style) -> bytes:
    """One parsed row written in ``style`` (no newline)."""
    compact = (",", ":")
    if style == "spaced":
        text = json.dumps(row, ensure_ascii=False, separators=(", ", ": "))
    elif style == "sorted-keys":
        text = json.dumps(row, ensure_ascii=False, separators=compact, sort_keys=True)
    elif style == "reversed-keys":
        text = json.dumps(_reversed(row), ensure_ascii=False, separators=compact)
    elif style == "ascii-escaped":
        text = json.dumps(row, ensure_ascii=True, separators=compact)
    else:
        text = json.dumps(row, ensure_ascii=False, separators=compact)
    return text.encode("utf-8", "surrogatepass")


def reformat(data: bytes, style: Style) -> bytes:
    """``data`` with every line that is a JSON object rewritten in ``style``.

    Other lines (broken, blank, not objects, numbers JSON cannot round-trip) are
    kept byte for byte, so only the formatting of valid rows changes.
    """
    out = []
    for line in data.split(b"\n"):
        try:
            row = json.loads(line.decode("utf-8"), parse_constant=_refuse)
        except (ValueError, UnicodeDecodeError):
            out.append(line)
            continue
        out.append(format_row(row, style) if isinstance(row, dict) else line)
    return b"\n".join(out)


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def formatted(base: st.SearchStrategy[Any], styles: tuple[Style, ...] = STYLES
              ) -> st.SearchStrategy[tuple[Any, Style, bytes]]:
    """``(transcript, style, its bytes reformatted)``: rows as another tool rewrote them."""
    return st.tuples(base, st.sampled_from(styles)).map(
        lambda pair: (pair[0], pair[1], reformat(pair[0].to_bytes(), pair[1])))
