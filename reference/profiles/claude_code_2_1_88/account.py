"""Why each line of the file is not on 2.1.88's resumed chain: one reason per line.

The loader reports what it decides (invalid JSON, an aborted load, pruned and
snipped rows, the large-file read); every other line off the chain is named
here from what the loader made of it, so that the messages and the
diagnostics together account for every line of the file once.
"""

from __future__ import annotations

from collections.abc import Container, Iterator

from rechain.reference.explain import accounted_lines
from rechain.reference.model import Diagnostic
from rechain.reference.profiles.claude_code_2_1_88.load import unkept_reason
from rechain.reference.profiles.claude_code_2_1_88.parse import BOM, parse_values
from rechain.reference.profiles.claude_code_2_1_88.pipeline import Outcome
from rechain.reference.read import lines_before


def off_chain_reasons(data: bytes, outcome: Outcome) -> list[Diagnostic]:
    """The loader's diagnostics, and a reason for every other line off the resumed chain."""
    loaded = outcome.loaded
    given = [*loaded.diagnostics, *outcome.diagnostics]
    done = accounted_lines(given)
    done.update(loaded.lines_of(outcome.chain))
    # the rows kept off the chain (a set of every row's line would be one of the file's size)
    live = {n for n in loaded.lines_of(loaded.messages.values()) if n not in done}
    read = {*loaded.line.values(), *loaded.replaced}
    aborted = next((d.line for d in given if d.kind == "load-aborted" and d.line), None)
    unused = _not_resumed(outcome)
    out = list(given)
    unkept, unread = loaded.unkept, []
    for number in _numbers_not_in(data, done, loaded.line_count):
        if aborted is not None and number > aborted:
            out.append(Diagnostic(number, "load-aborted",
                                  f"not loaded: loading stopped at line {aborted}"))
        elif number in live:
            out.append(Diagnostic(number, "off-chain", "not on the chain from the leaf")
                       if unused is None else Diagnostic(number, "not-resumed", unused))
        elif number in read:
            out.append(Diagnostic(number, "duplicate-uuid",
                                  "replaced by a later row with the same uuid"))
        elif number in unkept:
            out.append(unkept[number])
        else:  # a line the loop never saw a value of (a blank one): its place kept
            unread.append(len(out))
            out.append(Diagnostic(number, "blank", ""))
    if unread:
        wanted = {out[at].line: at for at in unread}
        for number, raw in _lines_not_in(data, wanted.keys()):  # type: ignore[arg-type]
            out[wanted[number]] = _unloaded(number, raw)
    return out


def _numbers_not_in(data: bytes, done: set[int], count: int | None) -> list[int]:
    """The numbers of the file's lines (as ``_lines_not_in`` numbers them; ``count`` of
    them, when the read counted them) not in ``done``, in order."""
    if count is None:  # a BOM holds no LF: the file's LFs, found one by one in C
        start = len(BOM) if data.startswith(BOM) else 0
        count = lines_before(data, len(data)) + (
            0 if data.endswith(b"\n") or len(data) <= start else 1)
    return [number for number in range(1, count + 1) if number not in done]


def _lines_not_in(data: bytes, wanted: Container[int]) -> Iterator[tuple[int, memoryview]]:
    """``line_views`` of the lines whose numbers are in ``wanted`` (no view made for the
    others)."""
    view, find, end = memoryview(data), data.find, len(data)
    start = len(BOM) if data.startswith(BOM) else 0
    number = 1
    while start < end:
        newline = find(b"\n", start)
        if newline == -1:
            newline = end
        if number in wanted:
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
    """A line the loader read but kept no row from, and saw no value of."""
    values = list(parse_values([(number, raw)], []))
    if not values:
        return Diagnostic(number, "blank", "empty or whitespace-only line")
    return unkept_reason(number, values[0][1])
