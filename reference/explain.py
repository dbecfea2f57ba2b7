"""Why each entry is not among the messages shown: the tail of every rebuild's diagnostics."""

from __future__ import annotations

from collections.abc import Callable

from rechain.reference.facts import KIND
from rechain.reference.graph import Graph
from rechain.reference.model import Diagnostic, Json, Options


def left_out(
    graph: Graph,
    chain: list[Json],
    shown_lines: list[int],
    hidden_reason: Callable[[Json, bool], str | None],
    options: Options,
) -> list[Diagnostic]:
    """Why each user/assistant entry is not among the messages shown.

    An entry's type comes from its ``Facts`` when the parser gathered them (no
    need to touch every entry of a large file again), else from the entry.
    """
    on_chain = {row["uuid"]: row for row in chain}
    shown = set(shown_lines)
    out: list[Diagnostic] = []
    lines = graph.line
    known = graph.known
    for uuid, entry in graph.nodes.items():
        line = lines[uuid]
        if line in shown:
            continue
        row = on_chain.get(uuid)
        if row is None:
            kind = known[uuid][KIND] if known is not None else entry.get("type")
            if kind == "user" or kind == "assistant":
                out.append(Diagnostic(line, "off-chain", "not on the chain from the leaf"))
            continue
        reason = hidden_reason(row, options.include_system_messages)
        if reason is not None:
            out.append(Diagnostic(line, "hidden", f"on the chain but not shown: {reason}"))
        else:
            out.append(Diagnostic(line, "paged-out", "outside --limit/--offset"))
    return out
