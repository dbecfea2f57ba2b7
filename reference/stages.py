"""The Profile record and the one driver that runs its stages.

A profile is data: which function fills each stage slot. ``drive`` runs the
slots in order for every profile; a reader that needs a different step swaps
that slot, never ``if profile == ...`` inside the stages. Its result keeps what
the stages worked out (``Run``), and every view is a function of that result,
so the bytes are read and parsed once whatever views are asked.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from operator import attrgetter

from rechain.reference import graph, parse, read, view
from rechain.reference.explain import left_out, unshown_on_error
from rechain.reference.graph import Graph, ReaderError, index
from rechain.reference.lazyrows import Messages
from rechain.reference.model import Diagnostic, Diagnostics, Json, Options, Rebuild, Run


@dataclass(frozen=True, slots=True)
class Profile:
    """One reader's behaviour, stage by stage."""

    name: str
    description: str
    oracle: str
    read: Callable[[bytes, Options], read.Source]
    parse: Callable[..., parse.Parsed]
    relink: Callable[[graph.Graph], None]
    choose_leaf: Callable[[graph.Graph], Json | None]
    walk: Callable[[graph.Graph, Json], list[Json]]
    recover: Callable[[graph.Graph, list[Json]], list[Json]]
    present: Callable[..., view.Presented]
    hidden_reason: Callable[[Json, bool], str | None]
    aliases: tuple[str, ...] = field(default=())
    # extra views a profile offers besides its messages (``rechain rebuild --view NAME``):
    # each is a function of the Rebuild (``Rebuild.view(name)``) and returns a JSON object
    views: Mapping[str, Callable[[Rebuild], Json]] = field(default_factory=dict)


# young objects past which a load's are moved to the oldest generation at once (``drive``)
_PROMOTED_FROM = 10_000


def drive(data: bytes, profile: Profile, options: Options, session_id: str | None) -> Rebuild:
    """Run ``profile``'s stages over a transcript's bytes; never raises on input.

    The cyclic garbage collector is paused meanwhile: parsing keeps every entry alive
    and creates no cycles, so its collections would only rescan a growing heap (on a
    100 MB file that is most of the time spent). What the load made is then moved to the
    oldest generation as it is (``gc.freeze`` and ``gc.unfreeze``, unless the caller froze
    objects itself): otherwise the first young collection after the load, while the
    messages are read, would scan its ~100,000 facts, diagnostics and maps once more
    (≈ 0.013 s on the 100 MB linear file, 7 % of the floor). Only after a large load
    (``_PROMOTED_FROM``): the move takes the caller's young objects along, uncounted by
    the collector's schedule of full collections, so a run of many small rebuilds (a
    check) leaves the generations to the collector.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _drive(data, profile, options, session_id)
    finally:
        if gc.get_count()[0] > _PROMOTED_FROM and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
        if paused:
            gc.enable()


def _drive(data: bytes, profile: Profile, options: Options, session_id: str | None) -> Rebuild:
    source = profile.read(data, options)
    parsed = profile.parse(source.numbered_lines())
    graph = index(parsed.entries, parsed.lines, parsed.extras, parsed.facts)
    walked: tuple[Json | None, list[Json]] = (None, [])  # the leaf and chain, once recovered
    try:
        profile.relink(graph)
        leaf = profile.choose_leaf(graph)
        chain = profile.walk(graph, leaf) if leaf is not None else []
        chain = profile.recover(graph, chain)
        walked = (leaf, chain)
        shown = profile.present(parsed, graph, chain, leaf, options)
    except ReaderError as error:
        diagnostics: list[Diagnostic] = [*source.diagnostics, *parsed.findings(),
                                         *graph.diagnostics]
        diagnostics.extend(unshown_on_error(graph, str(error)))
        diagnostics.append(Diagnostic(None, "reader-error", str(error)))
        return Rebuild(profile.name, session_id, None, Messages(), in_line_order(diagnostics),
                       error=str(error),
                       run=Run(source, parsed, graph, *walked, options, profile.views))
    if shown.build is None:  # else each message is built, with its line, when read
        for message, line in zip(shown.messages, shown.lines, strict=True):
            message["line"] = line
    # what the stages found so far, as they left it; why each other line was left out is
    # worked out with it when the diagnostics are first read
    explained = partial(_explained, source, parsed, [*graph.diagnostics], graph,
                        chain, shown.lines, profile.hidden_reason, options)
    return Rebuild(
        profile.name,
        session_id,
        leaf["uuid"] if leaf is not None else None,
        Messages(shown.messages, shown.lines, shown.build),
        Diagnostics(explained),
        run=Run(source, parsed, graph, leaf, chain, options, profile.views),
    )


def _explained(source: read.Source, parsed: parse.Parsed, walked: list[Diagnostic],
               graph: Graph, chain: list[Json], shown_lines: list[int],
               hidden_reason: Callable[[Json, bool], str | None],
               options: Options) -> Sequence[Diagnostic]:
    """A run's diagnostics in line order: the read stage's (a read stage may leave its own
    to be worked out now: ``Source.diagnostics`` read here, not copied when the load ends),
    the parser's, the graph stages' (``walked``) and why each line not shown was left out.
    The collector is paused meanwhile, as during the load (``drive``): tens of thousands of
    findings, no cycle among them."""
    paused = gc.isenabled()
    gc.disable()
    try:
        return in_line_order([*source.diagnostics, *parsed.findings(), *walked,
                              *left_out(graph, chain, shown_lines, hidden_reason, options)])
    finally:
        if paused:
            gc.enable()


def in_line_order(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """By line (stable), findings tied to no line last: one attribute read per diagnostic."""
    numbered = [d for d in diagnostics if d.line is not None]
    numbered.sort(key=_LINE)
    return (*numbered, *(d for d in diagnostics if d.line is None))


_LINE = attrgetter("line")
