"""Sort keys for the two ways the TS SDK orders timestamp strings.

Orphan recovery sorts with ``String.prototype.localeCompare`` (ICU collation:
punctuation before digits before letters, case second); the trailing-queue walk
uses ``<`` (UTF-16 code units). For the ISO timestamps Claude Code writes both
agree with plain string order; these keys keep the real readers' order for the
odd ones (mixed formats, letters, non-ASCII).
"""

from __future__ import annotations

from typing import Any

from rechain.reference.js.values import nullish, to_string

_PUNCTUATION = "_-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"
_PRIMARY: dict[str, tuple[int, int]] = {}
for _rank, _char in enumerate(" \t\n\r\f\v"):
    _PRIMARY[_char] = (0, _rank)
for _rank, _char in enumerate(_PUNCTUATION):
    _PRIMARY[_char] = (1, _rank)
for _digit in "0123456789":
    _PRIMARY[_digit] = (2, int(_digit))
for _letter in "abcdefghijklmnopqrstuvwxyz":
    _PRIMARY[_letter] = (3, ord(_letter))
    _PRIMARY[_letter.upper()] = (3, ord(_letter))


def locale_key(value: Any) -> tuple[tuple[tuple[int, int], ...], tuple[int, ...]]:
    """An approximation of ICU root collation: primary weights, then lowercase first."""
    text = "" if nullish(value) else to_string(value)
    primary = tuple(_PRIMARY.get(c, (4, ord(c))) for c in text)
    tertiary = tuple(1 if c.isupper() else 0 for c in text)
    return primary, tertiary


def code_unit_key(value: Any) -> bytes:
    """``<`` on JS strings: UTF-16 code unit order."""
    text = "" if nullish(value) else to_string(value)
    if text.isascii():
        return text.encode("ascii")
    return text.encode("utf-16-be", "surrogatepass")
