"""``rebuild``: a profile's stages in order. Pure: bytes in, a Rebuild out."""

from __future__ import annotations

import gc
from operator import attrgetter

from rechain.reference.explain import left_out, unshown_on_error
from rechain.reference.graph import ReaderError, index
from rechain.reference.model import Diagnostic, Options, Rebuild
from rechain.reference.profiles import DEFAULT_PROFILE, get_profile
from rechain.reference.stages import Profile


def rebuild(
    data: bytes,
    profile: str | Profile = DEFAULT_PROFILE,
    options: Options | None = None,
    *,
    session_id: str | None = None,
) -> Rebuild:
    """The conversation ``profile`` rebuilds from a transcript's bytes; never raises on input.

    The cyclic garbage collector is paused meanwhile: parsing keeps every entry alive
    and creates no cycles, so its collections would only rescan a growing heap (on a
    100 MB file that is most of the time spent).
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _rebuild(data, profile, options, session_id)
    finally:
        if paused:
            gc.enable()


def _rebuild(
    data: bytes, profile: str | Profile, options: Options | None, session_id: str | None
) -> Rebuild:
    chosen = profile if isinstance(profile, Profile) else get_profile(profile)
    options = options or Options()
    source = chosen.read(data, options)
    parsed = chosen.parse(source.numbered_lines())
    graph = index(parsed.entries, parsed.lines, parsed.extras, parsed.facts)
    diagnostics: list[Diagnostic] = [*source.diagnostics, *parsed.diagnostics]
    try:
        chosen.relink(graph)
        leaf = chosen.choose_leaf(graph)
        chain = chosen.walk(graph, leaf) if leaf is not None else []
        chain = chosen.recover(graph, chain)
        shown = chosen.present(parsed, graph, chain, leaf, options)
    except ReaderError as error:
        diagnostics.extend(graph.diagnostics)
        diagnostics.extend(unshown_on_error(graph, str(error)))
        diagnostics.append(Diagnostic(None, "reader-error", str(error)))
        return Rebuild(chosen.name, session_id, None, (), in_line_order(diagnostics),
                       error=str(error))
    diagnostics.extend(graph.diagnostics)
    diagnostics.extend(left_out(graph, chain, shown.lines, chosen.hidden_reason, options))
    for message, line in zip(shown.messages, shown.lines, strict=True):
        message["line"] = line
    return Rebuild(
        chosen.name,
        session_id,
        leaf["uuid"] if leaf is not None else None,
        tuple(shown.messages),
        in_line_order(diagnostics),
    )


def in_line_order(diagnostics: list[Diagnostic]) -> tuple[Diagnostic, ...]:
    """By line (stable), findings tied to no line last: one attribute read per diagnostic."""
    numbered = [d for d in diagnostics if d.line is not None]
    numbered.sort(key=_LINE)
    return (*numbered, *(d for d in diagnostics if d.line is None))


_LINE = attrgetter("line")
