"""The ``claude-code@2.1.88`` Profile record: the seed pipeline behind the shared stage slots.

2.1.88's leaf choice depends on the entry point, which only ``read`` sees
(through ``Options.entry``); so ``read`` runs the seed pipeline and hands on
the resumed chain's own lines in chain order. The later slots then only index,
keep that order and shape the rows. The views read the bytes themselves.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from functools import partial
from itertools import compress, repeat
from typing import Any

from rechain.reference import queued, view
from rechain.reference.facts import KIND, Facts
from rechain.reference.graph import Graph
from rechain.reference.lazyrows import LazyChain, LazyEntries, chain_uuids, stored_rows
from rechain.reference.model import Diagnostics, Json, Options
from rechain.reference.parse import Parsed, parse_sdk
from rechain.reference.profiles.claude_code_2_1_88.account import off_chain_reasons
from rechain.reference.profiles.claude_code_2_1_88.glanced import Glanced
from rechain.reference.profiles.claude_code_2_1_88.parse import Spans, placed_views
from rechain.reference.profiles.claude_code_2_1_88.pipeline import run
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease
from rechain.reference.profiles.claude_code_2_1_88.views import PROFILE_NAME, VIEWS
from rechain.reference.read import NumberedLines, Source
from rechain.reference.stages import Profile


def read_chain(data: bytes, options: Options, release: SeedRelease = BASE) -> Source:
    """The resumed chain's lines (root first) for ``Options.entry`` in this release, and
    why every other line is not on it."""
    outcome = run(data, options, release)
    loaded = outcome.loaded
    line_of = loaded.line_of
    rows = outcome.chain
    if not all(loaded.lines_of(rows)):  # line numbers start at 1
        rows = [e for e in rows if line_of(e) is not None]
    spans, loaded.spans = loaded.spans, None  # every line's start is not kept past the read
    return Source(ChainLines(data, rows, line_of, loaded.utf8, _copied_starts(data, rows,
                                                                              line_of, spans)),
                  data,
                  # a reason for every line off the chain, worked out when the diagnostics
                  # are read (most of a large file's findings)
                  Diagnostics(partial(off_chain_reasons, data, outcome)), found=outcome)


def _copied_starts(data: bytes, rows: list[Json], line_of: Callable[[Json], int | None],
                   spans: Spans | None) -> dict[int, int] | None:
    """Where the lines of the chain rows that do not point into ``data`` start (the rows
    the loader copied: a relink), from the loader's line starts; None: not known."""
    if spans is None or spans.buffer is not data:
        return None
    at, first, size = spans.starts, spans.first, len(spans.starts)
    numbers = [line_of(row) for row in rows
               if type(row) is not Glanced or row.row.data is not data]  # type: ignore[attr-defined]
    return {n: at[n - first] for n in numbers if n is not None and 0 <= n - first < size}


class ChainLines(NumberedLines):
    """The resumed chain's lines in chain order, read in place (each ends at its LF). When
    the loader kept every one of them undecoded, its rows are what the SDK's parser
    would make of the lines (``parse_chain``); otherwise that parser glances at them."""

    __slots__ = ("line_of", "placed", "rows", "utf8")

    def __init__(self, data: bytes, rows: list[Json],
                 line_of: Callable[[Json], int | None], utf8: bool | None = None,
                 placed: dict[int, int] | None = None) -> None:
        super().__init__(data)
        self.rows, self.line_of = rows, line_of  # the loader's rows and their line numbers
        self.utf8 = utf8  # whether the part of ``data`` the loader read is UTF-8, if known
        self.placed = placed  # where the copied rows' lines start (``_copied_starts``)

    def whole(self) -> bool:
        return False

    def glanced(self) -> list[Glanced] | None:
        """The loader's rows when it kept every one undecoded."""
        rows = self.rows
        return rows if all(type(row) is Glanced for row in rows) else None  # type: ignore[return-value]

    def __iter__(self) -> Iterator[tuple[int, bytes]]:
        return ((number, bytes(line)) for number, line, _ in self.views())

    def views(self) -> Iterator[tuple[int, memoryview, int]]:
        data = self.data
        numbers: list[int] = list(map(self.line_of, self.rows))  # type: ignore[arg-type]
        # a row the loader kept undecoded knows where its line starts in the file
        starts = {n: row.row.start for n, row in zip(numbers, self.rows, strict=True)
                  if type(row) is Glanced and row.row.data is data}
        missing = {n for n in numbers if n not in starts}
        placed = self.placed
        if missing and placed is not None:
            # a row the loader copied (a relink) is on a line it read: no search of the file
            starts.update((n, placed[n]) for n in missing if n in placed)
        elif missing:
            starts.update(_starts_at(data, missing))
        view, find, end = memoryview(data), data.find, len(data)
        for number in numbers:
            start = starts.get(number)
            if start is not None:
                stop = find(b"\n", start)
                yield number, view[start : end if stop == -1 else stop], start


def _starts_at(data: bytes, wanted: set[int]) -> dict[int, int]:
    """Where the lines of these numbers start (``placed_views``)."""
    found: dict[int, int] = {}
    last = max(wanted)
    for number, _, start in placed_views(data):
        if number in wanted:
            found[number] = start
        if number >= last:
            break
    return found


def parse_chain(lines: Iterable[tuple[int, bytes]]) -> Parsed:
    """The SDK's parser on the chain's lines, given the loader's rows where it kept them
    undecoded (the same ``Pending`` rows and facts: ``parse.glanced_row``); only the
    other lines are parsed, and their entries put back in chain order. (The parser
    tallies deliveries only from lines it decodes, which a glanced row's never is.)"""
    if type(lines) is not ChainLines:
        return parse_sdk(lines)
    rows, line_of = lines.rows, lines.line_of
    others = [row for row in rows if type(row) is not Glanced]
    if len(others) == len(rows):
        return parse_sdk(lines, lines.utf8)
    if others:
        parsed = parse_sdk(ChainLines(lines.data, others, line_of, lines.utf8, lines.placed),
                           lines.utf8)
    else:
        parsed = Parsed(facts=[])
        parsed.delivered = queued.DeliveryTally().counts()
    parsed_facts: list[Facts] = parsed.facts  # type: ignore[assignment]
    done = list(zip(list.__iter__(parsed.entries), parsed.lines, parsed_facts, strict=True))
    entries, numbers, facts = LazyEntries(), [], []
    at = 0
    for row in rows:
        if type(row) is Glanced:
            entries.append(row.row)
            numbers.append(row.line)
            facts.append(row.facts)
        elif at < len(done) and done[at][1] == line_of(row):
            entry, number, fact = done[at]
            entries.append(entry)
            numbers.append(number)
            facts.append(fact)
            at += 1
    parsed.entries, parsed.lines, parsed.facts = entries, numbers, facts
    return parsed


def no_relink(graph: Graph) -> None:
    """Relinks already happened inside ``read``."""


def last_in_order(graph: Graph) -> Json | None:
    """The chain's last row is the leaf (or the last recovered row after it)."""
    if not graph.nodes:
        return None
    position = graph.position
    return graph.nodes[max(dict.keys(graph.nodes), key=position.__getitem__)]


def in_order(graph: Graph, leaf: Json) -> list[Json]:
    """Every indexed row in chain order, as stored (``LazyChain``: none decoded here)."""
    nodes = graph.nodes
    uuids = sorted(dict.keys(nodes), key=graph.position.__getitem__)
    return LazyChain(map(dict.__getitem__, repeat(nodes), uuids), uuids)


def keep(graph: Graph, chain: list[Json]) -> list[Json]:
    """Recovery already happened inside ``read``."""
    return chain


def hidden_reason(row: Json, include_system: bool) -> str | None:
    """2.1.88 resumes every user/assistant row of the chain, meta ones included."""
    return _hidden_kind(row.get("type"), include_system)


def _hidden_kind(kind: Any, include_system: bool) -> str | None:
    if kind in ("user", "assistant") or (kind == "system" and include_system):
        return None
    return f"{kind} rows are not sent as messages"


def present(
    parsed: Parsed, graph: Graph, chain: list[Json], leaf: Json | None, options: Options
) -> view.Presented:
    """Chain rows as SDK-shaped messages, paged like the SDK: filtered by their facts'
    type, each message built from its row (kept as stored) when read."""
    facts, line, include = graph.facts(), graph.line, options.include_system_messages
    uuids = chain_uuids(chain)
    lines = list(map(line.__getitem__, uuids))
    if lines == parsed.lines:
        lines = parsed.lines  # the chain in the parser's order: its list, not a copy
    if all(_hidden_kind(facts[uuid][KIND], include) is None for uuid in uuids):
        # every row shown (the common case): the chain's own list, no flag per row
        rows: list[Json] = chain
    else:
        shown = [_hidden_kind(facts[uuid][KIND], include) is None for uuid in uuids]
        rows, lines = list(compress(stored_rows(chain), shown)), list(compress(lines, shown))
    return view.Presented(view.page(rows, options), view.page(lines, options),  # type: ignore[arg-type]
                          view.session_message)


SEED = Profile(
    name=PROFILE_NAME,
    description="Claude Code 2.1.88 resume (loadTranscriptFile, per entry point; npm JS bundle)",
    oracle="claude-code@2.1.88",
    read=read_chain,
    parse=parse_chain,
    relink=no_relink,
    choose_leaf=last_in_order,
    walk=in_order,
    recover=keep,
    present=present,
    hidden_reason=hidden_reason,
    aliases=("seed", "claude-code-2.1.88"),
    views=VIEWS,
)
