"""The graph behind a rebuild, for readers of other views (conformance contracts).

``rebuild`` answers what a profile *shows*; a reader that declares another scope
(every branch, file order, usage) is judged against the same parsed rows and the
same walked chain. This runs the profile's own stages up to the recovered chain
and hands them back, without presenting anything. Pure, never raises on input.
"""

from __future__ import annotations

from dataclasses import dataclass

from rechain.reference.graph import Graph, ReaderError, index
from rechain.reference.model import Json, Options
from rechain.reference.profiles import DEFAULT_PROFILE, get_profile
from rechain.reference.stages import Profile


@dataclass(frozen=True, slots=True)
class Walked:
    """The rows a profile parsed (file order, with 1-based lines) and the chain it walked."""

    entries: tuple[Json, ...]
    lines: tuple[int, ...]
    graph: Graph
    chain: tuple[Json, ...]
    leaf: str | None


def walked(data: bytes, profile: str | Profile = DEFAULT_PROFILE,
           options: Options | None = None) -> Walked:
    """Parse, index, relink, choose the leaf, walk and recover, as ``profile`` does."""
    chosen = profile if isinstance(profile, Profile) else get_profile(profile)
    options = options or Options()
    parsed = chosen.parse(chosen.read(data, options).numbered_lines())
    graph = index(parsed.entries, parsed.lines, parsed.extras, parsed.facts)
    try:
        chosen.relink(graph)
        leaf = chosen.choose_leaf(graph)
        chain = chosen.walk(graph, leaf) if leaf is not None else []
        chain = chosen.recover(graph, chain)
    except ReaderError:
        leaf, chain = None, []
    return Walked(tuple(parsed.entries), tuple(parsed.lines), graph, tuple(chain),
                  leaf["uuid"] if leaf is not None else None)
