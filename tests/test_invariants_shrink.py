"""A planted bug — a reader that ignores tool results off the walked path — is caught
and shrinks to a handful of lines."""

from __future__ import annotations

import orjson
from hypothesis import find, settings

from rechain.conformance import invariants as inv
from rechain.reference import Options, rebuild
from rechain.strategies import Transcript, transcripts
from rechain.strategies.conversation import is_entry, is_result


def walked_path_only(data: bytes, profile: str, options: Options) -> list[str]:
    """The reference, minus every tool result that is not an ancestor of the leaf."""
    result = rebuild(data, profile, options)
    rows = {}
    for raw in data.splitlines():
        try:
            value = orjson.loads(raw)
        except orjson.JSONDecodeError:
            continue
        if is_entry(value):
            rows[value["uuid"]] = value
    path: set[str] = set()
    node = result.leaf
    while node in rows and node not in path:
        path.add(node)
        node = rows[node].get("parentUuid")
    return [u for u in result.uuids if u in path or not is_result(rows[u])]


def fails(t: Transcript) -> bool:
    try:
        inv.rebuilds_intended(t, reader=walked_path_only)
    except AssertionError:
        return True
    return False


def test_the_planted_bug_shrinks_to_at_most_ten_lines() -> None:
    minimal = find(transcripts(), fails,
                   settings=settings(database=None, derandomize=True, max_examples=2000))
    assert len(minimal.lines) <= 10, minimal
