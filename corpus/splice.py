"""Put freshly recorded expectations where the old ones stood.

Several recorders (the TS SDK, the CLI, each release of the 2.1.88 line) edit one
case file in turn. Each replaces only its own expectations; if it moved them to the
front or the back, recording a case again would reorder a file whose outputs did not
change. Splicing keeps the file's order, so re-recording reproduces it byte for byte.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def splice(existing: Sequence[T], fresh: Sequence[T], replaced: Callable[[T], bool],
           key: Callable[[T], Hashable]) -> list[T]:
    """``existing`` with each item ``replaced`` selects swapped for the fresh one of the same
    ``key`` in its place (dropped when there is none); fresh items new to the file go right
    after the last replaced one, or at the end when none was."""
    waiting = {key(item): item for item in fresh}
    out: list[T] = []
    anchor: int | None = None
    for item in existing:
        if not replaced(item):
            out.append(item)
            continue
        new = waiting.pop(key(item), None)
        if new is not None:
            out.append(new)
        anchor = len(out)
    added = [item for item in fresh if key(item) in waiting]
    at = len(out) if anchor is None else anchor
    return [*out[:at], *added, *out[at:]]


def expectation_key(profile: str, view: str, options: Mapping[str, Any]) -> Hashable:
    """What tells a case's expectations apart: the reader, the view and the option set."""
    return (profile, view, json.dumps(dict(options), sort_keys=True))
