"""``rebuild``: the stages in order, for one profile. Pure: bytes in, a Rebuild out."""

from __future__ import annotations

from rechain.reference import hostrows, view
from rechain.reference.graph import Graph, ReaderError, index, walk
from rechain.reference.model import Diagnostic, Json, Options, Rebuild
from rechain.reference.parse import Parsed
from rechain.reference.profiles import DEFAULT_PROFILE, Profile, get_profile
from rechain.reference.recover import recover_orphans
from rechain.reference.trailing import trailing_queued_commands


def rebuild(
    data: bytes,
    profile: str | Profile = DEFAULT_PROFILE,
    options: Options | None = None,
    *,
    session_id: str | None = None,
) -> Rebuild:
    """The conversation ``profile`` rebuilds from a transcript's bytes; never raises on input."""
    chosen = profile if isinstance(profile, Profile) else get_profile(profile)
    options = options or Options()
    source = chosen.read(data, options)
    parsed = chosen.parse(source.numbered_lines())
    graph = index(parsed.entries, parsed.lines)
    diagnostics: list[Diagnostic] = [*source.diagnostics, *parsed.diagnostics]
    try:
        chosen.relink(graph)
        leaf = chosen.choose_leaf(graph)
        chain = walk(graph, leaf) if leaf is not None else []
        chain = recover_orphans(graph, chain)
        messages, shown_lines = _present(parsed, graph, chain, leaf, options)
    except ReaderError as error:
        diagnostics.extend(graph.diagnostics)
        diagnostics.append(Diagnostic(None, "reader-error", str(error)))
        return Rebuild(chosen.name, session_id, None, (), tuple(diagnostics), error=str(error))
    diagnostics.extend(graph.diagnostics)
    diagnostics.extend(_left_out(graph, chain, shown_lines, options))
    for message, line in zip(messages, shown_lines, strict=True):
        message["line"] = line
    diagnostics.sort(key=lambda d: (d.line is None, d.line or 0))
    return Rebuild(
        chosen.name,
        session_id,
        leaf["uuid"] if leaf is not None else None,
        tuple(messages),
        tuple(diagnostics),
    )


def _present(
    parsed: Parsed, graph: Graph, chain: list[Json], leaf: Json | None, options: Options
) -> tuple[list[Json], list[int]]:
    """Stage 8 for the SDK view: host rows, trailing queue, queued/local marks, filter, shape."""
    trailing = trailing_queued_commands(parsed.entries, graph, chain, leaf)
    rows = [(row, graph.line[row["uuid"]]) for row in chain]
    rows = hostrows.keep_virtual_followers(rows, parsed.entries, parsed.lines)
    rows = hostrows.add_host_calls(rows, parsed.entries, parsed.host_rows, parsed.host_lines)
    if trailing:
        # a trailing row may be an earlier copy of a duplicated uuid: use its own line
        own_line = {id(e): n for e, n in zip(parsed.entries, parsed.lines, strict=True)}
        rows += [(row, own_line[id(row)]) for row in trailing]
    marked = view.mark_queued_and_local(
        [row for row, _ in rows],
        {row["uuid"] for row in trailing},
        parsed.delivered,
        keep_meta=False,
    )
    rows = [
        (row, line)
        for row, (_, line) in zip(marked, rows, strict=True)
        if view.hidden_reason(row, options.include_system_messages) is None
    ]
    rows = view.page(hostrows.hide_host_calls(rows), options)
    return [view.session_message(row) for row, _ in rows], [line for _, line in rows]


def _left_out(
    graph: Graph, chain: list[Json], shown_lines: list[int], options: Options
) -> list[Diagnostic]:
    """Why each user/assistant entry is not among the messages shown."""
    on_chain = {row["uuid"]: row for row in chain}
    shown = set(shown_lines)
    out: list[Diagnostic] = []
    lines = graph.line
    for uuid, entry in graph.nodes.items():
        line = lines[uuid]
        if line in shown:
            continue
        row = on_chain.get(uuid)
        if row is None:
            if entry.get("type") in ("user", "assistant"):
                out.append(Diagnostic(line, "off-chain", "not on the chain from the leaf"))
            continue
        reason = view.hidden_reason(row, options.include_system_messages)
        if reason is not None:
            out.append(Diagnostic(line, "hidden", f"on the chain but not shown: {reason}"))
        else:
            out.append(Diagnostic(line, "paged-out", "outside --limit/--offset"))
    return out
