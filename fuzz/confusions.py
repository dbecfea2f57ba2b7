"""Type confusions, exhaustively: each value of a transcript swapped for each odd value in turn.

The mutator changes types at random and may take hours to put a list where
one rare field expects a string. This sweep walks every field of every row
instead and yields one variant per (field, odd value), plus one with the field
removed, so a reader that trusts a field's type fails deterministically, on
a one-line change of a real case. A field is swept once per *shape* (the
row's kind and flags, the block types on the way, the path with list indexes
folded), so the thousands of alike rows in a corpus cost one sweep, while the
same key in a differently flagged row (``origin.kind`` on an ``isMeta`` row
and on a plain one) is swept again. Standard library only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from rechain.fuzz.value_ops import encode
from rechain.fuzz.vocabulary import ODD_VALUES

Key = str | int
Path = tuple[Key, ...]
Shape = tuple[Any, ...]

#: row fields that change how a reader treats the whole row
DISCRIMINATORS = (
    "type",
    "subtype",
    "isMeta",
    "isSidechain",
    "isCompactSummary",
    "isVirtual",
    "isVisibleInTranscriptOnly",
    "userType",
    "level",
)
#: list items swept per list: the first few stand for the rest
LIST_ITEMS = 3
#: rows nested deeper than this are left alone (their paths are not a reader's fields)
MAX_DEPTH = 32
REMOVED = "<removed>"


@dataclass(frozen=True, slots=True)
class Confusion:
    """One variant: ``line`` (1-based) with the value at ``path`` replaced or removed."""

    line: int
    path: Path
    value: Any
    data: bytes

    @property
    def label(self) -> str:
        where = "".join(f"[{k}]" if type(k) is int else f".{k}" for k in self.path) or "(row)"
        shown = REMOVED if self.value is REMOVED else json.dumps(self.value)
        return f"line {self.line}{where} = {shown}"


def _paths(row: Any) -> Iterator[tuple[Path, tuple[str, ...]]]:
    """Every path in ``row`` (depth first, iterative), with the block types along it."""
    stack: list[tuple[Path, tuple[str, ...], Any]] = [((), (), row)]
    while stack:
        path, kinds, value = stack.pop()
        yield path, kinds
        if len(path) >= MAX_DEPTH:
            continue
        if type(value) is dict:
            kind = (repr(value.get("type")),) if path and "type" in value else ()
            for key in reversed(list(value)):
                stack.append(((*path, key), kinds + kind, value[key]))
        elif type(value) is list:
            for index in reversed(range(min(len(value), LIST_ITEMS))):
                stack.append(((*path, index), kinds, value[index]))


def shape(row: Any, path: Path, kinds: tuple[str, ...]) -> Shape:
    """What makes two fields alike for the sweep."""
    flags = (
        tuple(repr(row.get(name)) for name in DISCRIMINATORS) if type(row) is dict else ("-",)
    )
    folded = tuple("#" if type(key) is int else key for key in path)
    return flags, kinds, folded


def _replaced(line: bytes, path: Path, value: Any) -> bytes:
    """``line`` re-encoded with ``path`` set to ``value`` (or removed)."""
    row = json.loads(line)
    if not path:
        return encode(value)
    holder = row
    for key in path[:-1]:
        holder = holder[key]
    if value is REMOVED:
        del holder[path[-1]]
    else:
        holder[path[-1]] = value
    return encode(row)


def confusions(
    data: bytes, seen: set[Shape] | None = None, values: tuple[Any, ...] = ODD_VALUES
) -> Iterator[Confusion]:
    """The variants of ``data``, skipping shapes already in ``seen`` (which grows)."""
    seen = set() if seen is None else seen
    lines = data.split(b"\n")
    for index, line in enumerate(lines):
        try:
            row = json.loads(line)
        except (ValueError, RecursionError):
            continue
        for path, kinds in _paths(row):
            key = shape(row, path, kinds)
            if key in seen:
                continue
            seen.add(key)
            for value in (*values, REMOVED) if path else values:
                changed = [*lines[:index], _replaced(line, path, value), *lines[index + 1 :]]
                yield Confusion(index + 1, path, value, b"\n".join(changed))
