"""The CLI's tip, walk and orphan recovery.

The tip is the last main-chain row written (or a ``last-prompt`` checkpoint the
last row does not descend from), walked up to its nearest user or assistant
row. The walk bridges a missing or already-visited parent to the row whose
timestamp is the latest not after the child's, on the same side, at most 5 s
older. Recovery puts back split assistant fragments and their tool results in
*file order* (the SDK sorts by timestamp), then the system and attachment rows
hanging below the tip are appended.
"""

from __future__ import annotations

import bisect
import math
import re
from datetime import UTC, datetime
from itertools import chain as joined
from operator import itemgetter
from typing import Any

import msgspec

from rechain.reference.facts import ANSWERS, CALLS, KIND, PARENT
from rechain.reference.graph import Graph
from rechain.reference.js.date_iso import time_of
from rechain.reference.js.values import UNDEFINED, describe, truthy
from rechain.reference.lazyrows import LazyChain, LazyNodes, Pending, row_of
from rechain.reference.model import Diagnostic, Json
from rechain.reference.profiles.claude_code_2_1_332.load import (
    BRIDGE_MS,
    key_text,
    raw_uuid,
    state_of,
)
from rechain.reference.profiles.claude_code_2_1_332.release import LATEST, CliRelease

BY_CHECKPOINT = "claude-code:by-checkpoint"


def _parent(graph: Graph, row: Json) -> Json | None:
    parent = row.get("parentUuid")
    return graph.nodes.get(parent) if truthy(parent) and type(parent) is str else None


def _is_message(row: Json) -> bool:
    return row.get("type") in ("user", "assistant")


def _up_to_message(graph: Graph, start: Json | None) -> Json | None:
    seen: set[str] = set()
    current = start
    while current is not None and current["uuid"] not in seen:
        seen.add(current["uuid"])
        if _is_message(current):
            return current
        current = _parent(graph, current)
    return None


def _descends(graph: Graph, row: str, ancestor: str) -> bool:
    """Whether walking parents from ``row`` reaches ``ancestor``."""
    seen: set[str] = set()
    current: Any = row
    while truthy(current) and type(current) is str and current not in seen:
        if current == ancestor:
            return True
        seen.add(current)
        fact = graph.facts().get(current)  # its parent, from the facts: no row decoded
        current = fact[PARENT] if fact is not None else None
    return False


def _newest_below(graph: Graph, tip: str) -> str:
    """The main-chain row below ``tip`` with the greatest timestamp string (each row's
    stamp and side glanced at, its parents read from the facts: no row decoded)."""
    reaches: dict[str, bool] = {tip: True}
    facts = graph.facts()

    def below(uuid: str) -> bool:
        path: list[str] = []
        current: Any = uuid
        result = False
        while truthy(current) and type(current) is str:
            known = reaches.get(current)
            if known is not None:
                result = known
                break
            reaches[current] = False
            path.append(current)
            fact = facts.get(current)
            current = fact[PARENT] if fact is not None else None
        for step in path:
            reaches[step] = result
        return result

    best, best_stamp = tip, ""
    for uuid, item in dict.items(graph.nodes):
        stamp, side, _, _ = _bridging(item)  # absent: UNDEFINED, neither truthy nor a str
        if truthy(side) or uuid == tip or type(stamp) is not str:
            continue
        if stamp >= best_stamp and below(uuid):
            best, best_stamp = uuid, stamp
    return best


def choose_leaf_cli(graph: Graph, release: CliRelease = LATEST) -> Json | None:
    """The tip the CLI resumes from, as its nearest user or assistant row."""
    state = state_of(graph)
    nodes = graph.nodes
    if state.cleared or state.last_row is None:
        return None  # "No conversation found": no main-chain row at all
    # the last row is the tip only by a truthy uuid: one missing, null, "", 0 or false leaves
    # the tip to the checkpoint or the newest leaf (probed: a branch written earlier but
    # stamped later wins over such a row; a uuid of 5 is still the tip)
    last = state.last_row if truthy_key(state.last_row) else None
    tip: str | None = last
    if release.newest_below_last and not state.saw_checkpoint and last and state.newest_row \
            and state.newest_row != last and last in nodes:
        tip = _newest_below(graph, last)
    checkpoint = state.checkpoint if state.checkpoint in nodes else None
    on_main = checkpoint is not None and not truthy(nodes[checkpoint].get("isSidechain"))
    if state.relink_tail is None or (state.explicit and on_main):
        chosen = checkpoint
        if chosen is not None and not state.explicit and last and last in nodes \
                and last != chosen and _descends(graph, last, chosen):
            chosen = last
        if state.relink_tail is None and state.trailing_snapshots == 0 and chosen is None:
            chosen = tip
        if chosen is not None and chosen in nodes:
            found = _up_to_message(graph, nodes[chosen])
            if found is not None:
                graph.extras[BY_CHECKPOINT] = chosen == checkpoint
                return found
    found = _fallback(graph, state.checkpoint, state.explicit, last, state.trailing_snapshots)
    if found is None and last and last in nodes and release.lone_row_resumed:
        return nodes[last]  # no user or assistant row at all: the last row is resumed as it is
    return found


def truthy_key(key: str) -> bool:
    """Whether the uuid a row is keyed by is truthy in JavaScript (an object or array is)."""
    return key.startswith("\x00object:") or truthy(raw_uuid(key))


def _fallback(graph: Graph, checkpoint: Any, explicit: bool, last: str | None,
              trailing: int) -> Json | None:
    """No tip: the leaf messages (no user/assistant child), the checkpoint's, else newest.

    The parents and types come from the facts: only the leaves found are read.
    """
    nodes, facts = graph.nodes, graph.facts()
    parents: set[Any] = set()
    message_parents: set[Any] = set()
    for fact in facts.values():
        parent = fact[PARENT]
        if parent is not None:
            tagged = parent if type(parent) is str else ("\x01", repr(parent))
            parents.add(tagged)
            if fact[KIND] in _MESSAGE_KINDS:
                message_parents.add(tagged)
    leaves: dict[str, None] = {}
    memo: dict[str, Any] = {}
    for uuid in facts:
        if uuid in parents:
            continue
        path: list[str] = []
        current: str | None = uuid
        found: Any = _ROOT
        while current is not None:
            fact = facts[current]
            if fact[KIND] in _MESSAGE_KINDS:
                found = current
                break
            known = memo.get(current)
            if known is not None:
                found = known
                break
            memo[current] = _CYCLE
            path.append(current)
            parent = fact[PARENT]
            current = parent if truthy(parent) and type(parent) is str and parent in nodes \
                else None
        for step in path:
            memo[step] = found
        if found is not _ROOT and found is not _CYCLE and found not in message_parents:
            leaves[found] = None
    if len(leaves) > 1:
        chosen = checkpoint if checkpoint in leaves and (explicit or not last) else (
            None if trailing > 0 else last)
        if chosen is not None and chosen in nodes:
            found = _up_to_message(graph, nodes[chosen])
            if found is not None:
                return found
    return _latest(nodes[u] for u in nodes if u in leaves)


_MESSAGE_KINDS = ("user", "assistant")
_ROOT, _CYCLE = object(), object()  # where a walk up from a leaf ends, when not at a message


def _latest(rows: Any) -> Json | None:
    """The greatest ``Date.parse(timestamp)``; while none is finite, the last one."""
    best: Json | None = None
    best_time = -math.inf
    for row in rows:
        stamp = row.get("timestamp")
        moment = time_of(stamp) if type(stamp) is str else math.nan
        moment = -math.inf if math.isnan(moment) else moment
        if moment > best_time or best_time == -math.inf:
            best, best_time = row, moment
    return best


# --- the walk --------------------------------------------------------------------------


class TimestampBridge:
    """Per side, rows sorted by time, skipping rows already on the chain and results of
    their calls.

    Every row's stamp, side and subtype are glanced at once, when a bridge is first
    needed (a row kept undecoded is not decoded), and what a row's calls and results are
    is read from the facts: decoding every row to bridge one missing parent cost a
    full load of the file again."""

    def __init__(self, graph: Graph, skip_chain_results: bool = True) -> None:
        self.graph = graph
        self.sides: dict[Any, tuple[list[float], list[str]]] | None = None
        #: never land on a result of a call already on the chain (2.1.91 still did)
        self.skip_chain_results = skip_chain_results

    def find(self, child: Json, seen: set[str]) -> Json | None:
        """The row the child is bridged to, or None."""
        found = self.find_uuid(child, seen)
        return None if found is None else self.graph.nodes[found]

    def find_uuid(self, child: Json, seen: set[str]) -> str | None:
        """The uuid of the row the child is bridged to, or None."""
        moment = time_of(child.get("timestamp", UNDEFINED))
        if math.isnan(moment):
            return None
        if self.sides is None:
            self.sides = self._sides()
        side = self.sides.get(sidechain_key(child.get("isSidechain", UNDEFINED)))
        if side is None:
            return None
        times, uuids = side
        at = bisect.bisect_right(times, moment) - 1
        calls = self._calls(seen) if self.skip_chain_results else set()
        facts = self.graph.facts() if calls else {}
        while at >= 0 and (uuids[at] in seen or (
                calls and not calls.isdisjoint(facts[uuids[at]][ANSWERS] or ()))):
            at -= 1  # nor a result of a call on the chain: recovery puts it back (probed)
        if at < 0 or moment - times[at] > BRIDGE_MS:
            return None
        return uuids[at]

    def _sides(self) -> dict[Any, tuple[list[float], list[str]]]:
        """Side key -> the times and uuids of its rows with a time, snapshots left out,
        by time (the later row first among equal times)."""
        timed: dict[Any, list[tuple[float, str]]] = {}
        for uuid, item in dict.items(self.graph.nodes):
            stamp, side, kind, subtype = _bridging(item)
            if kind == "system" and subtype == "file_snapshot":
                continue  # ``is_snapshot_row``
            when = time_of_stamp(stamp)
            if math.isnan(when):
                continue
            # an object or array is a key by identity: one read here is no other row's
            key = ("object", uuid) if type(item) is Pending and type(side) in (dict, list) \
                else sidechain_key(side)
            timed.setdefault(key, []).append((when, uuid))
        sides: dict[Any, tuple[list[float], list[str]]] = {}
        for key, pairs in timed.items():
            pairs.reverse()
            pairs.sort(key=_FIRST)
            sides[key] = ([t for t, _ in pairs], [u for _, u in pairs])
        return sides

    def _calls(self, seen: set[str]) -> set[str]:
        """The string ids of the tool_use blocks of the rows in ``seen``: an assistant's are
        in its facts, and only the rows the loader noted hold others."""
        facts = self.graph.facts()
        calls = set(joined.from_iterable(facts[uuid][CALLS] for uuid in seen))
        odd = state_of(self.graph).odd_calls
        return calls | _ids(odd.intersection(seen), self.graph.nodes, "tool_use", "id") \
            if odd else calls


_WRITTEN = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z").fullmatch
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def time_of_stamp(value: Any) -> float:
    """``time_of`` (``new Date(value).getTime()``); a stamp in the form the CLI writes
    (``YYYY-MM-DDTHH:MM:SS.sssZ``) is read in C (``datetime.fromisoformat``, a fifth of
    the time), any other value, or a stamp whose fields are out of range (year 0, hour
    24, day 30 of February...), by ``time_of``."""
    if type(value) is str and _WRITTEN(value) is not None:
        try:
            since = datetime.fromisoformat(value) - _EPOCH
        except ValueError:
            return time_of(value)
        return float((since.days * 86_400 + since.seconds) * 1000 + since.microseconds // 1000)
    return time_of(value)


class _Bridging(msgspec.Struct, gc=False, rename={"side": "isSidechain", "kind": "type"}):
    """A row's ``timestamp`` and ``isSidechain`` (``UNDEFINED`` when absent), ``type`` and
    ``subtype``."""

    timestamp: Any = UNDEFINED
    side: Any = UNDEFINED
    kind: Any = None
    subtype: Any = None


_BRIDGING = msgspec.json.Decoder(_Bridging).decode
_FIRST = itemgetter(0)


def _bridging(item: Json | Pending) -> tuple[Any, Any, Any, Any]:
    """``timestamp`` and ``isSidechain`` (``UNDEFINED`` when absent), ``type`` and
    ``subtype`` of a stored row, one kept undecoded glanced at (what msgspec refuses is
    decoded, not kept)."""
    if type(item) is Pending:
        try:
            seen = _BRIDGING(item.raw())
        except (msgspec.DecodeError, RecursionError):
            pass
        else:
            return seen.timestamp, seen.side, seen.kind, seen.subtype
    row = row_of(item)
    return (row.get("timestamp", UNDEFINED), row.get("isSidechain", UNDEFINED), row.get("type"),
            row.get("subtype"))


def _ids(uuids: Any, nodes: dict[str, Json], kind: str, field: str) -> set[str]:
    """The string ids of the ``kind`` blocks (``tool_use`` or ``tool_result``) of these rows."""
    found: set[str] = set()
    for uuid in uuids:
        message = nodes[uuid].get("message")
        content = message.get("content") if type(message) is dict else None
        if type(content) is list:
            found.update(b[field] for b in content if type(b) is dict
                         and b.get("type") == kind and type(b.get(field)) is str)
    return found


def sidechain_key(value: Any) -> Any:
    """``Map.groupBy`` keys by ``isSidechain`` itself: true, false and missing differ."""
    if value is UNDEFINED:
        return ("undefined",)
    if type(value) in (dict, list):
        return ("object", id(value))
    return (type(value).__name__, value)


def _is_boundary(row: Json) -> bool:
    """A compact boundary starts the chain whatever its ``parentUuid`` (probed on a file
    whose boundary points at its own summary)."""
    return row.get("type") == "system" and row.get("subtype") == "compact_boundary"


def walk_cli(graph: Graph, leaf: Json, release: CliRelease = LATEST) -> list[Json]:
    """Leaf to root; a missing or revisited parent is bridged by timestamp. Root first.

    The parents are read from the facts, so the rows the parser kept undecoded stay so
    (the chain is then a ``LazyChain``); a row is decoded only to bridge from it, and a
    system row is read (not kept) to see whether it is a compact boundary.
    """
    nodes, facts = graph.nodes, graph.facts()
    stored = dict.__getitem__
    rows: list[Json] = []
    uuids: list[str] = []
    seen: set[str] = set()
    bridge = TimestampBridge(graph, release.bridge_skips_chain_results)
    uuid: str | None = leaf["uuid"] if leaf["uuid"] in nodes else None
    while uuid is not None:
        if uuid in seen:
            graph.diagnostics.append(Diagnostic(graph.line[uuid], "cycle",
                                                f"{uuid} is already on the chain: the walk stops"))
            break
        seen.add(uuid)
        rows.append(stored(nodes, uuid))  # a row kept undecoded stays so (``LazyChain``)
        uuids.append(uuid)
        fact = facts[uuid]
        parent = fact[PARENT]
        if not truthy(parent) or (fact[KIND] == "system" and _is_boundary(row_of(rows[-1]))):
            break
        found = parent if type(parent) is str and parent in nodes else None
        if found is None or found in seen:
            why = "is not in the file" if found is None else "is already on the chain (cycle)"
            found = bridge.find_uuid(nodes[uuid], seen)
            if found is not None:
                graph.diagnostics.append(Diagnostic(
                    graph.line[uuid], "bridged",
                    f"parent {describe(parent)} {why}: bridged to {key_text(found)} "
                    f"(line {graph.line[found]}) by timestamp"))
            else:
                graph.diagnostics.append(Diagnostic(
                    graph.line[uuid], "dangling-parent",
                    f"parent {describe(parent)} {why}: the chain starts here"))
        uuid = found
    rows.reverse()
    uuids.reverse()
    graph.extras["claude-code:seen"] = seen
    return LazyChain(rows, uuids) if type(nodes) is LazyNodes else rows
