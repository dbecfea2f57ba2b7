"""Why each entry is not among the messages shown: the tail of every rebuild's diagnostics."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from importlib.resources import files
from itertools import compress, filterfalse, repeat
from operator import attrgetter, not_

from rechain.reference.graph import Graph
from rechain.reference.lazyrows import chain_uuids, row_of, stored_rows
from rechain.reference.model import Diagnostic, Json, Options, findings

# kinds that remark on a line accounted for otherwise: read from the shipped schema as data
# (rebuild.json's ``noteKind``), so that the reference imports nothing outside itself
_REBUILD_SCHEMA = files("rechain").joinpath("schemas", "rebuild.json").read_text(encoding="utf-8")
NOTE_KINDS = frozenset(json.loads(_REBUILD_SCHEMA)["$defs"]["noteKind"]["enum"])


def left_out(
    graph: Graph,
    chain: list[Json],
    shown_lines: list[int],
    hidden_reason: Callable[[Json, bool], str | None],
    options: Options,
) -> list[Diagnostic]:
    """Why each entry is not among the messages shown: every type, progress and system rows
    too, so that each line of the file is accounted for once. In line order.

    The entries off the chain (most of a file with abandoned branches) are found and
    reported without a step per entry in Python (C-level filters, no second index beside
    the graph's); only the chain's rows that are not shown are read one by one. The
    chain's rows are marked by line in a byte array, not held in a set or a map: on a
    million-row chain, where every row is on it, such a map was the load's peak.
    """
    uuids = chain_uuids(chain)
    lines = graph.line
    nodes = graph.nodes  # the entries: a line the profile pruned has a number, no node
    chain_lines = list(map(lines.get, uuids))  # None: a row the profile made itself
    on = bytearray(max(lines.values(), default=0) + 1)  # 1 at the line of a chain row
    deque(map(on.__setitem__, filter(None, chain_lines), repeat(1)), maxlen=0)
    # filtered in C, without a set or map of every entry beside the index (a million-row
    # chain would hold several at once)
    off = set(filterfalse(on.__getitem__, map(lines.__getitem__, nodes)))
    off.difference_update(shown_lines)
    out = findings(sorted(off), "off-chain", "not on the chain from the leaf")
    if shown_lines == chain_lines:
        return out  # every row of the chain shown, in order: no set of the shown lines
    on_chain = dict(zip(uuids, stored_rows(chain), strict=True))
    shown = set(shown_lines)
    on: list[Diagnostic] = []
    # line -> uuid of the chain's entries not shown, the last of a line's (a row the
    # profile made itself is none)
    unshown = [uuid for uuid in compress(on_chain, map(not_, map(shown.__contains__, map(
        lines.get, on_chain)))) if uuid in nodes]
    chain_lines = dict(zip(map(lines.get, unshown), unshown, strict=True))
    for line, uuid in chain_lines.items():
        if line is None:
            continue
        reason = hidden_reason(row_of(on_chain[uuid]), options.include_system_messages)
        if reason is not None:
            on.append(Diagnostic(line, "hidden", f"on the chain but not shown: {reason}"))
        else:
            on.append(Diagnostic(line, "paged-out", "outside --limit/--offset"))
    if on:
        out += on
        out.sort(key=_LINE)
    return out


_LINE = attrgetter("line")


def accounted_lines(diagnostics: list[Diagnostic]) -> set[int]:
    """Lines the diagnostics already account for (ranges expanded, notes left out)."""
    lines: set[int] = set()
    for d in diagnostics:
        if d.line is not None and d.kind not in NOTE_KINDS:
            lines.update(range(d.line, (d.through or d.line) + 1))
    return lines


def unshown_on_error(graph: Graph, reason: str) -> list[Diagnostic]:
    """When the real reader throws nothing is shown: each entry's line says so."""
    detail = f"not shown: {reason}"
    return [Diagnostic(line, "reader-error", detail) for line in graph.line.values()]
