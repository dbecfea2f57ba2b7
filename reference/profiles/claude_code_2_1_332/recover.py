"""The CLI's orphan recovery and the rows appended below the tip.

Like the SDK, the CLI puts back, for each API message on the chain, its other
streamed fragments and the tool results hanging off them (``orphans.py``);
its rules: a message is any truthy ``message.id``, every tool result is filed
(on the chain or not), and only a result its parent's calls do not all
account for looks for its source row and its calls' rows. Unlike the SDK, it
orders what it recovers by *file position* and interleaves it with the chain
rows of the same turn, and it also recovers the system, attachment and meta
rows that hang off a fragment or a result in a single line. Finally the
system and attachment rows below the tip are appended, oldest timestamp first.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import compress, count, filterfalse
from operator import itemgetter, or_
from typing import Any

from rechain.reference.facts import ANSWERS, CALLS, KIND, MESSAGE_ID, PARENT, UUID, Facts
from rechain.reference.graph import Graph
from rechain.reference.js.values import truthy
from rechain.reference.lazyrows import LazyChain, Pending, chain_uuids, row_of, stored_rows
from rechain.reference.model import Diagnostic, Json
from rechain.reference.orphans import Rules, Turn, find_orphans, tags_hold_uuid
from rechain.reference.profiles.claude_code_2_1_332.chain import (
    BY_CHECKPOINT,
    sidechain_key,
    time_of_stamp,
    truthy_key,
)
from rechain.reference.profiles.claude_code_2_1_332.load import state_of
from rechain.reference.profiles.claude_code_2_1_332.release import LATEST, CliRelease
from rechain.reference.rows import any_key, message_id


def _has_block(row: Json, kind: str) -> bool:
    content = row.get("message")
    content = content.get("content") if type(content) is dict else None
    return type(content) is list and any(type(b) is dict and b.get("type") == kind
                                         for b in content)


RECOVERED = "claude-code:recovered"
_CALLS, _KIND, _PARENT = itemgetter(CALLS), itemgetter(KIND), itemgetter(PARENT)
_SIDE_KINDS = frozenset({"attachment", "system"})  # rows that may be asides by their type


def is_aside(row: Json) -> bool:
    """Attachments, non-boundary system rows and meta user rows without results."""
    kind = row.get("type")
    if kind == "attachment":
        return True
    if kind == "system":
        return row.get("subtype") != "compact_boundary"
    return kind == "user" and row.get("isMeta") is True and not _has_block(row, "tool_result")


def _is_virtual_call(row: Json) -> bool:
    """A virtual assistant call or virtual user result."""
    kind = row.get("type")
    if kind not in ("assistant", "user") or row.get("isVirtual") is not True:
        return False
    return _has_block(row, "tool_use" if kind == "assistant" else "tool_result")


def _in_turn(item: Json | Pending, turn_id: Any, fact: Facts) -> bool:
    """A row (as stored) that belongs to the turn of ``turn_id`` when it follows it (its
    facts say its type, a string message id and whether it holds a tool result; the
    row is read only when they do not decide)."""
    kind = fact[KIND]
    if kind == "assistant":
        if turn_id is None:
            return False
        found = fact[MESSAGE_ID]
        return (found if found is not None else message_id(row_of(item))) == turn_id
    if kind == "user":
        return fact[ANSWERS] is not None or row_of(item).get("isMeta") is True
    if kind == "attachment":
        return True
    if kind == "system":
        return row_of(item).get("subtype") != "compact_boundary"
    return False


def _any_id(fact: Facts, nodes: dict[str, Json]) -> Any:
    """``message.id`` when truthy, whatever its type: a string one is in the facts (an
    assistant's), any other is read from the row."""
    found = fact[MESSAGE_ID]
    if found is None:
        found = message_id(nodes[fact[UUID]])
    return found if truthy(found) else None


def _every_result(fact: Facts, on_chain: set[str]) -> bool:
    return True


def _not_its_parents(fact: Facts, facts: dict[str, Facts]) -> bool:
    """A result that answers nothing, or a call its parent did not make."""
    parent = fact[PARENT]
    owner = facts.get(parent) if type(parent) is str else None
    calls = owner[CALLS] if owner is not None and owner[KIND] == "assistant" else ()
    answers: tuple[str, ...] = fact[ANSWERS]  # type: ignore[assignment]
    return not answers or not all(map(calls.__contains__, answers))


def _keyed(parent: Any, uuid: str) -> tuple[Any, str]:
    return any_key(parent), uuid


def _never(fact: Facts, facts: dict[str, Facts]) -> bool:
    return False


CLI = Rules(message=_any_id, is_result=_every_result, looks_further=_not_its_parents,
            tag=_keyed, finds_caller=truthy_key, tags_apart=tags_hold_uuid)
#: before ``strays_recovered``: only the results below a message's own rows come back
CLI_DIRECT = Rules(message=_any_id, is_result=_every_result, looks_further=_never, tag=_keyed,
                   tags_apart=tags_hold_uuid)
# when no assistant row's ``message.id`` is truthy but not a string, each row's is in its
# facts: the scan passes over, without a call each, the rows of no message on the chain
_BY_ID = {rules: replace(rules, by_message_id=True) for rules in (CLI, CLI_DIRECT)}


def recover_cli(graph: Graph, chain: list[Json], release: CliRelease = LATEST) -> list[Json]:
    """The chain with recovered rows, then the tip's system and attachment descendants."""
    uuids = chain_uuids(chain)
    # the walk's set, taken: a million uuids' table is not kept with the result
    seen: set[str] = graph.extras.pop("claude-code:seen", None) or set(uuids)
    if len(uuids) == len(graph.nodes):  # every row is on the chain: none to put back or append
        return chain
    rules = CLI if release.strays_recovered else CLI_DIRECT
    out = _recover_orphans(graph, chain, seen,
                           rules if state_of(graph).odd_ids else _BY_ID[rules],
                           release.recovered_interleaved, release.asides_recovered,
                           release.chain_asides_recovered)
    if chain and not graph.extras.get(BY_CHECKPOINT):
        below = _below_tip(graph, uuids[-1], seen)
        if below:
            out = _joined(out, below)
    return out


def _joined(chain: list[Json], rows: list[Json]) -> list[Json]:
    """The chain and then ``rows``, rows kept undecoded staying so."""
    if type(chain) is not LazyChain:
        return chain + rows
    return LazyChain([*chain.stored(), *rows], [*chain.uuids, *(r["uuid"] for r in rows)])


@dataclass(frozen=True, slots=True)
class _Span:
    """Chain rows ``start`` .. ``end`` - 1 (a turn), the rows recovered into it (in the
    order they are put back) and the asides hanging off its own aside rows (uuids: a row
    put back as it is kept, undecoded when it was)."""

    start: int
    end: int
    recovered: list[str]
    anchored: dict[str, list[str]]
    early: list[str] = field(default_factory=list)  # before ``recovered_interleaved``


@dataclass(frozen=True, slots=True)
class _Timeline:
    """Where a row goes: its file position, or for a stray result, no earlier than
    just after its message's last row (``late``)."""

    position: dict[str, int]
    late: dict[str, float]

    def at(self, uuid: str) -> float:
        return self.late.get(uuid, self.position.get(uuid, 1 << 53))

    def key(self, uuid: str) -> tuple[float, int]:
        return self.at(uuid), self.position.get(uuid, 1 << 53)


def _recover_orphans(graph: Graph, chain: list[Json], seen: set[str],
                     rules: Rules = CLI, interleave: bool = True,
                     asides: bool = True, chain_asides: bool = True) -> list[Json]:
    """Each turn's recovered rows, sorted into the chain rows of the turn (without
    ``interleave``, the message's fragments and results go right after its last chain row,
    by timestamp, and only the asides are sorted in; without ``asides``, none are put
    back: 2.1.260 and older, probed with a meta or system row below a fragment, a result
    on the chain or put back; without ``chain_asides``, those below the chain's own aside
    rows stay off: 2.1.261 to 2.1.280)."""
    nodes, facts = graph.nodes, graph.facts()
    odd = state_of(graph).odd_calls
    uuids = chain_uuids(chain)
    timeline: _Timeline | None = None  # the file positions, once a turn needs them
    at_chain: dict[str, int] | None = None
    children: dict[Any, list[str]] | None = None
    stored: list[Json | Pending] = []  # the chain's rows as kept, once a turn needs them
    spans: list[_Span] = []
    for turn in find_orphans(graph, chain, rules, seen,
                             chain_facts=[facts[uuid] for uuid in uuids]):
        own = turn.siblings + turn.results
        calls = asides and _made_calls(turn.rows, facts, nodes, odd)
        if not own and not calls:
            continue  # nothing put back, no asides below it (most turns of a long chain)
        if timeline is None or at_chain is None:
            timeline = _Timeline(_positions(graph), {})
            at_chain = dict(zip(uuids, count()))
            stored = list(stored_rows(chain))
        _mark_late(timeline, turn)
        # without ``interleave`` the rows go after the message's last row on the chain
        start = at_chain[turn.first if interleave else turn.last]
        end = _turn_end(stored, uuids, at_chain[turn.last] + 1, turn.message, facts)
        early = [] if interleave else sorted(own, key=lambda u: _stamp(nodes[u]))
        recovered = own if interleave else []
        anchored: dict[str, list[str]] = {}
        if calls:
            children = _children(graph, seen, state_of(graph).asides) if children is None \
                else children
            recovered += _asides_of_turn(nodes, turn, children, seen)
            if chain_asides:
                anchored = _asides_of_chain(uuids[start + 1:end], facts, nodes, children, seen)
        if not recovered and not early and not anchored:
            continue
        recovered.sort(key=timeline.key)
        spans.append(_Span(start, end, recovered, anchored, early))
        graph.extras.setdefault(RECOVERED, set()).update(early + recovered)
        for uuid in early + recovered:
            graph.diagnostics.append(Diagnostic(
                graph.line[uuid], "recovered",
                f"off the walked path; put back in the turn of {turn.first} by orphan recovery"))
    if not spans or timeline is None:
        return chain
    return _interleaved(chain, _merged(spans, timeline), timeline, nodes)


def _made_calls(uuids: list[str], facts: dict[str, Facts], nodes: dict[str, Json],
                odd: set[str]) -> bool:
    """Whether one of the rows holds a tool_use block: one with a string id is in its
    facts, and only the rows in ``odd`` may hold one without (the loader noted each; a
    row in it is read, since a later row of its uuid may hold none)."""
    if any(map(_CALLS, map(facts.__getitem__, uuids))):
        return True
    return bool(odd) and any(_has_block(row_of(dict.__getitem__(nodes, uuid)), "tool_use")
                             for uuid in odd.intersection(uuids))


def _stamp(row: Json) -> float:
    """``Date.parse`` of the row's timestamp; none or an invalid one sorts last."""
    stamp = row.get("timestamp")
    if type(stamp) is not str:
        return math.inf
    moment = time_of_stamp(stamp)
    return math.inf if math.isnan(moment) else moment


def _mark_late(timeline: _Timeline, turn: Turn) -> None:
    """A stray result goes no earlier than just after its message's last row in the file."""
    if turn.strays:
        last_row = max(timeline.position.get(u, 1 << 53) for u in turn.rows)
        for uuid in turn.strays:
            timeline.late[uuid] = max(timeline.position.get(uuid, 1 << 53), last_row + 0.5)


def _turn_end(stored: list[Json | Pending], uuids: list[str], end: int, message: Any,
              facts: dict[str, Facts]) -> int:
    """Past the message's last row on the chain, and the rows of its turn that follow
    (``stored``: the chain's rows as kept)."""
    while end < len(uuids) and _in_turn(stored[end], message, facts[uuids[end]]):
        end += 1
    return end


def _asides_of_turn(
    nodes: dict[str, Json], turn: Turn, children: dict[Any, list[str]], seen: set[str]
) -> list[str]:
    """The asides below the message's rows and below the results filed under them that
    are on the chain or put back."""
    owners = turn.rows + [u for u in turn.filed if u in seen]
    # a row's uuid is a string, its own key (``any_key``): those with no child off the
    # chain are passed over in C
    return [row for owner in filter(children.__contains__, owners)
            for row in _asides_below(owner, nodes, children, seen)]


def _asides_of_chain(
    uuids: list[str], facts: dict[str, Facts], nodes: dict[str, Json],
    children: dict[Any, list[str]], seen: set[str]
) -> dict[str, list[str]]:
    """Chain aside row uuid -> the asides below it, put back right after it (a row with
    no child off the chain is not read)."""
    anchored: dict[str, list[str]] = {}
    # a chain uuid is a string, its own key (``any_key``): those with no child off the
    # chain are passed over in C
    for uuid in filter(children.__contains__, uuids):
        if not any(c not in seen for c in children[uuid]):
            continue
        fact = facts[uuid]
        if fact[KIND] == "assistant" or (fact[KIND] == "user" and fact[ANSWERS] is not None):
            continue  # never an aside (``is_aside``)
        if is_aside(row_of(dict.__getitem__(nodes, uuid))):
            extra = _asides_below(uuid, nodes, children, seen)
            if extra:
                anchored[uuid] = extra
    return anchored


def _merged(spans: list[_Span], timeline: _Timeline) -> list[_Span]:
    """Spans in chain order, overlapping ones joined."""
    merged: list[_Span] = []
    for span in sorted(spans, key=lambda s: s.start):
        if merged and span.start < merged[-1].end:
            last = merged[-1]
            anchored = dict(last.anchored)
            for uuid, rows in span.anchored.items():
                anchored[uuid] = anchored.get(uuid, []) + rows
            merged[-1] = _Span(last.start, max(last.end, span.end),
                               sorted(last.recovered + span.recovered, key=timeline.key), anchored,
                               last.early + span.early)
        else:
            merged.append(span)
    return merged


def _interleaved(chain: list[Json], spans: list[_Span], timeline: _Timeline,
                 nodes: dict[str, Json]) -> list[Json]:
    """The chain with each span's ``early`` rows right after its first row, its recovered
    rows put before the first chain row of the span that comes after them, and each chain
    aside's own asides right after it (rows kept undecoded stay so in a ``LazyChain``)."""
    stored = list(stored_rows(chain))
    uuids = chain_uuids(chain)
    lazy = type(chain) is LazyChain
    row = partial(dict.__getitem__, nodes) if lazy else nodes.__getitem__
    out: list[Json | Pending] = []
    out_uuids: list[str] = []
    position, at_row = timeline.position, timeline.at
    done_to = 0
    for span in spans:
        out += stored[done_to:span.start + 1]
        out_uuids += uuids[done_to:span.start + 1]
        rows: list[str] = [*span.early]  # the recovered rows, in the order they go in
        recovered, anchored = span.recovered, span.anchored
        taken = 0
        for at in range(span.start + 1, span.end):
            uuid = uuids[at]
            here = position.get(uuid, 1 << 53)
            while taken < len(recovered) and at_row(recovered[taken]) < here:
                rows.append(recovered[taken])
                taken += 1
            if rows:
                out += map(row, rows)
                out_uuids += rows
                rows = []
            out.append(stored[at])
            out_uuids.append(uuid)
            rows += anchored.get(uuid, ())
        rows += recovered[taken:]
        out += map(row, rows)
        out_uuids += rows
        done_to = span.end
    out += stored[done_to:]
    out_uuids += uuids[done_to:]
    if lazy:
        return LazyChain(out, out_uuids)
    return out  # type: ignore[return-value]


def _positions(graph: Graph) -> dict[str, int]:
    """An order of the rows as the index holds them: their line numbers when the index
    has no uuid twice and its lines rise (``Graph.position`` is then ``Graph.line``: no
    map of every row built), else their places in the index."""
    if graph.position is graph.line:
        return graph.line
    return dict(zip(dict.keys(graph.nodes), count()))


def _side_rows(graph: Graph) -> Iterable[str]:
    """The system and attachment rows, in index order: those the loader noted when the
    index holds no uuid twice (``Graph.position`` is then ``Graph.line``; a pruned one is
    no longer in the facts), else the facts say which (picked in C)."""
    facts = graph.facts()
    if graph.position is graph.line:
        return [uuid for _, uuid in state_of(graph).sides if uuid in facts]
    return compress(facts, map(_SIDE_KINDS.__contains__, map(_KIND, facts.values())))


def _children(graph: Graph, seen: set[str], asides: set[str]) -> dict[Any, list[str]]:
    """Rows not in ``seen`` by truthy parent, in index order (the facts say which: no row
    is read). A row in ``seen`` is never an aside to put back, nor counts among a row's
    children (``_asides_below``), and ``seen`` only grows: the rows on the chain, most
    of a file, are left out of the map.

    Of the others only those that may be asides (attachments, system rows and the rows
    in ``asides``, the meta user rows and virtual ones the loader noted) and the children
    of those are mapped, picked in C: ``_asides_below`` reads all the children of an
    aside, but of any other row only those that are asides (a child that is not one
    brings nothing back)."""
    out: dict[Any, list[str]] = {}
    facts = graph.facts()
    off = [*filterfalse(seen.__contains__, facts)]
    parents = [*map(_PARENT, map(facts.__getitem__, off))]
    could = asides.union(_side_rows(graph))
    try:
        picked = [*compress(zip(off, parents, strict=True),
                            map(or_, map(could.__contains__, off),
                                map(could.__contains__, parents)))]
    except TypeError:  # a parent that does not hash (a relinked anchor): every row mapped
        picked = list(zip(off, parents, strict=True))
    for uuid, parent in picked:
        if type(parent) is str:
            if parent:
                out.setdefault(parent, []).append(uuid)  # ``any_key`` of a string
        elif truthy(parent):
            out.setdefault(any_key(parent), []).append(uuid)
    return out


def _asides_below(owner: str, nodes: dict[str, Json], children: dict[Any, list[str]],
                  seen: set[str]) -> list[str]:
    """From each child of the row ``owner``: a single line of same-side aside rows, else
    nothing (a child already on the chain is not read, nor the owner for it)."""
    found: list[str] = []
    owner_row: Json | None = None
    for child in children.get(any_key(owner), ()):
        line: list[str] = []
        current: str | None = child
        while current is not None:
            if current in seen:
                line = []
                break
            row = row_of(dict.__getitem__(nodes, current))
            if owner_row is None:
                owner_row = row_of(dict.__getitem__(nodes, owner))
            if not _same_side_aside(row, owner_row):
                line = []
                break
            line.append(current)
            following = [c for c in children.get(any_key(current), ()) if c not in seen]
            if len(following) > 1:
                line = []
                break
            current = following[0] if following else None
        seen.update(line)
        found.extend(line)
    return found


def _same_side_aside(row: Json, owner: Json) -> bool:
    same = sidechain_key(row.get("isSidechain")) == sidechain_key(owner.get("isSidechain"))
    return same and (is_aside(row) or _is_virtual_call(row))


def _below_tip(graph: Graph, tip: str, seen: set[str]) -> list[Json]:
    """System and attachment rows below the tip, breadth first, by timestamp (the facts
    say which rows hang below it: only those are read)."""
    below: dict[Any, list[str]] = {}
    nodes, facts = graph.nodes, graph.facts()
    # a row in ``seen`` is neither appended nor walked through: only the others are mapped,
    # and of those only the rows neither user nor assistant (a loaded row's type is one of
    # the four the loader keeps)
    for uuid in filterfalse(seen.__contains__, _side_rows(graph)):
        parent = facts[uuid][PARENT]
        if truthy(parent):
            below.setdefault(any_key(parent), []).append(uuid)
    found: list[Json] = []
    queue = [tip]
    while queue:
        uuid = queue.pop(0)
        for child in below.get(any_key(uuid), ()):
            if child in seen:
                continue
            seen.add(child)
            found.append(nodes[child])
            queue.append(child)
    if len(found) > 1:
        found.sort(key=_stamp_key)
    for row in found:
        graph.diagnostics.append(Diagnostic(
            graph.line[row["uuid"]], "appended", "below the tip: appended after the chain"))
    return found


def _stamp_key(row: Json) -> Any:
    stamp = row.get("timestamp")
    return (0, stamp) if type(stamp) is str else (1, "")
