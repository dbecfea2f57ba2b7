"""The graph behind a rebuild, for readers of other views (conformance contracts).

``rebuild`` answers what a profile *shows*; a reader that declares another scope
(every branch, file order, usage) is judged against the same parsed rows and the
same walked chain: the profile's own stages, run once by the one driver
(``rebuild``), up to the recovered chain. Pure, never raises on input.
"""

from __future__ import annotations

from dataclasses import dataclass

from rechain.reference.graph import Graph
from rechain.reference.model import Json, Options
from rechain.reference.pipeline import rebuild
from rechain.reference.profiles import DEFAULT_PROFILE
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
    """Parse, index, relink, choose the leaf, walk and recover, as ``profile`` does: the run
    of the one driver (a reader error before recovery finished leaves no leaf and no chain)."""
    run = rebuild(data, profile, options).run
    assert run is not None  # every rebuild keeps its run
    leaf = run.leaf
    return Walked(tuple(run.parsed.entries), tuple(run.parsed.lines), run.graph,
                  tuple(run.chain), leaf["uuid"] if leaf is not None else None)
