"""Why each line of the file is not on 2.1.88's resumed chain: one reason per line.

The loader reports what it decides (invalid JSON, an aborted load, pruned and
snipped rows, the large-file read); every other line off the chain is named
here from what the loader made of it, so that the messages and the
diagnostics together account for every line of the file once.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rechain.reference.explain import accounted_lines
from rechain.reference.model import Diagnostic
from rechain.reference.profiles.claude_code_2_1_88.load import MESSAGE_TYPES
from rechain.reference.profiles.claude_code_2_1_88.parse import BOM, parse_values
from rechain.reference.profiles.claude_code_2_1_88.pipeline import Outcome


def off_chain_reasons(data: bytes, outcome: Outcome) -> list[Diagnostic]:
    """The loader's diagnostics, and a reason for every other line off the resumed chain."""
    loaded = outcome.loaded
    given = [*loaded.diagnostics, *outcome.diagnostics]
    done = accounted_lines(given)
    done.update(map(loaded.line_of, outcome.chain))
    # the rows kept off the chain (a set of every row's line would be one of the file's size)
    live = {n for n in map(loaded.line_of, loaded.messages.values()) if n not in done}
    read = {*loaded.line.values(), *loaded.replaced}
    aborted = next((d.line for d in given if d.kind == "load-aborted" and d.line), None)
    unused = _not_resumed(outcome)
    out = list(given)
    for number, raw in _lines_not_in(data, done):
        if aborted is not None and number > aborted:
            out.append(Diagnostic(number, "load-aborted",
                                  f"not loaded: loading stopped at line {aborted}"))
        elif number in live:
            out.append(Diagnostic(number, "off-chain", "not on the chain from the leaf")
                       if unused is None else Diagnostic(number, "not-resumed", unused))
        elif number in read:
            out.append(Diagnostic(number, "duplicate-uuid",
                                  "replaced by a later row with the same uuid"))
        else:
            out.append(_unloaded(number, raw))
    return out


def _lines_not_in(data: bytes, done: set[int]) -> Iterator[tuple[int, memoryview]]:
    """``line_views`` of the lines whose numbers are not in ``done`` (no view made for
    the others: most lines are on the chain or accounted for)."""
    view, find, end = memoryview(data), data.find, len(data)
    start = len(BOM) if data.startswith(BOM) else 0
    number = 1
    while start < end:
        newline = find(b"\n", start)
        if newline == -1:
            newline = end
        if number not in done:
            yield number, view[start:newline]
        number += 1
        start = newline + 1


def _not_resumed(outcome: Outcome) -> str | None:
    """Why nothing of the file is resumed, or None when a chain was resumed."""
    if outcome.chain:
        return None
    if outcome.error is not None:
        return f"nothing resumed: {outcome.error}"
    if any(d.kind == "not-listed" for d in outcome.loaded.diagnostics):
        return "nothing resumed: --continue does not see this session"
    return f"nothing resumed by --{outcome.entry}: a fresh conversation starts"


def _unloaded(number: int, raw: bytes | memoryview) -> Diagnostic:
    """A line the loader read but kept no row from."""
    values = list(parse_values([(number, raw)], []))
    if not values:
        return Diagnostic(number, "blank", "empty or whitespace-only line")
    value: Any = values[0][1]
    if type(value) is not dict:
        return Diagnostic(number, "not-an-object", f"JSON {type(value).__name__} is not an entry")
    kind = value.get("type")
    if kind == "progress" and type(value.get("uuid")) is str:
        return Diagnostic(number, "progress", "progress row: its children are re-parented")
    if type(kind) is str and kind in MESSAGE_TYPES:
        return Diagnostic(number, "off-chain", "not kept by the loader")
    detail = f"type {kind!r} is not a conversation row" if type(kind) is str else "no type"
    return Diagnostic(number, "ignored-type", detail)
