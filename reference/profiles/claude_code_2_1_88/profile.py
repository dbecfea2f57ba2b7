"""The ``claude-code@2.1.88`` Profile record: the seed pipeline behind the shared stage slots.

2.1.88's leaf choice depends on the entry point, which only ``read`` sees
(through ``Options.entry``); so ``read`` runs the seed pipeline and hands on
the resumed chain's own lines in chain order. The later slots then only index,
keep that order and shape the rows. The views read the bytes themselves.
"""

from __future__ import annotations

from rechain.reference import view
from rechain.reference.graph import Graph
from rechain.reference.model import Json, Options
from rechain.reference.parse import Parsed, parse_sdk
from rechain.reference.profiles.claude_code_2_1_88.account import off_chain_reasons
from rechain.reference.profiles.claude_code_2_1_88.parse import line_views
from rechain.reference.profiles.claude_code_2_1_88.pipeline import run
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease
from rechain.reference.profiles.claude_code_2_1_88.views import PROFILE_NAME, VIEWS
from rechain.reference.read import Source
from rechain.reference.stages import Profile


def read_chain(data: bytes, options: Options, release: SeedRelease = BASE) -> Source:
    """The resumed chain's lines (root first) for ``Options.entry`` in this release, and
    why every other line is not on it."""
    outcome = run(data, options, release)
    ordered = [outcome.loaded.line_of(e) for e in outcome.chain]
    by_number = _lines_at(data, {n for n in ordered if n is not None})
    lines = tuple((n, by_number[n]) for n in ordered if n is not None and n in by_number)
    # the loader decoded these lines already: the SDK's parser takes those values
    as_read = outcome.loaded.as_read
    decoded = {n: as_read[n] for n, _ in lines if n in as_read}
    return Source(lines, data, tuple(off_chain_reasons(data, outcome)), found=outcome,
                  decoded=decoded)


def _lines_at(data: bytes, wanted: set[int]) -> dict[int, memoryview]:
    """The lines of these numbers (``numbered_lines``), as views into the file."""
    found: dict[int, memoryview] = {}
    if not wanted:
        return found
    last = max(wanted)
    for number, line in line_views(data):
        if number in wanted:
            found[number] = line
        if number >= last:
            break
    return found


def no_relink(graph: Graph) -> None:
    """Relinks already happened inside ``read``."""


def last_in_order(graph: Graph) -> Json | None:
    """The chain's last row is the leaf (or the last recovered row after it)."""
    if not graph.nodes:
        return None
    return max(graph.nodes.values(), key=lambda e: graph.position[e["uuid"]])


def in_order(graph: Graph, leaf: Json) -> list[Json]:
    """Every indexed row in chain order."""
    return sorted(graph.nodes.values(), key=lambda e: graph.position[e["uuid"]])


def keep(graph: Graph, chain: list[Json]) -> list[Json]:
    """Recovery already happened inside ``read``."""
    return chain


def hidden_reason(row: Json, include_system: bool) -> str | None:
    """2.1.88 resumes every user/assistant row of the chain, meta ones included."""
    kind = row.get("type")
    if kind in ("user", "assistant") or (kind == "system" and include_system):
        return None
    return f"{kind} rows are not sent as messages"


def present(
    parsed: Parsed, graph: Graph, chain: list[Json], leaf: Json | None, options: Options
) -> view.Presented:
    """Chain rows as SDK-shaped messages, paged like the SDK."""
    rows = [(row, graph.line[row["uuid"]]) for row in chain
            if hidden_reason(row, options.include_system_messages) is None]
    rows = view.page(rows, options)
    return view.Presented([r for r, _ in rows], [n for _, n in rows], view.session_message)


SEED = Profile(
    name=PROFILE_NAME,
    description="Claude Code 2.1.88 resume (loadTranscriptFile, per entry point; npm JS bundle)",
    oracle="claude-code@2.1.88",
    read=read_chain,
    parse=parse_sdk,
    relink=no_relink,
    choose_leaf=last_in_order,
    walk=in_order,
    recover=keep,
    present=present,
    hidden_reason=hidden_reason,
    aliases=("seed", "claude-code-2.1.88"),
    views=VIEWS,
)
