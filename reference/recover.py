"""Stage 7, orphan recovery as the TS SDK does it: put back what the walk missed.

For each API message on the chain (``orphans.find_orphans``), the SDK inserts
after the message's last row on the chain its rows off the chain, then the
results filed under them, each part sorted by timestamp. Its rules: a message
is a string ``message.id``; a result is filed when it is off the chain and has
a parent; every result also looks for its source row and the rows that made
its calls; two filings are the same when ``${parent}\\n${uuid}`` is.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from itertools import chain as joined
from itertools import repeat
from operator import itemgetter
from typing import Any, TypeVar

from rechain.reference.facts import MESSAGE_ID, PARENT, UUID, Facts
from rechain.reference.graph import Graph, ReaderError, walked_facts
from rechain.reference.js.collate import locale_key
from rechain.reference.js.values import nullish, to_string, truthy
from rechain.reference.lazyrows import LazyChain, Pending, stamp_of, stored_rows
from rechain.reference.model import Json, findings
from rechain.reference.orphans import Rules, find_orphans

_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")
_STRINGS = {str}
_UUID_OF = itemgetter(UUID)
T = TypeVar("T")


def sorted_by_timestamp(rows: list[T], stamps: list[Any] | None = None) -> list[T]:
    """``localeCompare`` on timestamps, throwing where the SDK's comparator throws.

    ``stamps``: each row's ``timestamp`` (None when absent), when the caller read them
    without decoding the rows; else ``rows`` are the rows and are read. The common
    case, ASCII strings of one format where only digits differ, is settled in C and
    collates as string order.
    """
    if len(rows) < 2:
        return rows
    if stamps is None:
        stamps = [row.get("timestamp") for row in rows]  # type: ignore[attr-defined]
    key: Callable[[int], Any] = stamps.__getitem__
    if not _one_format(stamps):
        for stamp in stamps[1:]:
            if not nullish(stamp) and type(stamp) is not str:
                raise ReaderError("timestamp.localeCompare is not a function (TypeError)")
        key = lambda at: locale_key(stamps[at])  # noqa: E731
    return [rows[at] for at in sorted(range(len(rows)), key=key)]


def _string_id(fact: Facts, nodes: dict[str, Json]) -> str | None:
    return fact[MESSAGE_ID] or None


def _off_chain_with_parent(fact: Facts, on_chain: set[str]) -> bool:
    parent = fact[PARENT]
    return fact[UUID] not in on_chain and (parent != "" if type(parent) is str else truthy(parent))


def _always(fact: Facts, facts: dict[str, Facts]) -> bool:
    return True


def _joined(parent: Any, uuid: str) -> str:
    """The SDK's set of ``${parent}\\n${uuid}`` strings."""
    return (parent if type(parent) is str else to_string(parent)) + "\n" + uuid


SDK = Rules(message=_string_id, is_result=_off_chain_with_parent, looks_further=_always,
            tag=_joined, by_message_id=True, results_off_chain=True)


def recover_orphans(graph: Graph, chain: list[Json]) -> list[Json]:
    """The chain with each message's recovered rows inserted after its last row on it."""
    nodes = graph.nodes
    chain_facts = walked_facts(graph, chain)
    uuids = list(map(_UUID_OF, chain_facts))
    if len(uuids) == len(nodes):  # every row is on the chain: none is off it to put back
        return chain
    turns = list(find_orphans(graph, chain, SDK, set(uuids), empty=False,
                              chain_facts=chain_facts))
    if not turns:
        return chain
    item_of = partial(dict.__getitem__, nodes)  # a row as stored (a ``Pending`` stays so)
    # the stamps of every part sorted (a turn's rows, then its results: two or more), read
    # in one pass; when all are ASCII strings of one format, each part sorts by string order
    sorting = [part for turn in turns for part in (turn.siblings, turn.results) if len(part) > 1]
    stamps = list(map(stamp_of, map(item_of, joined.from_iterable(sorting))))
    plain = _one_format(stamps)
    inserts: dict[str, list[str]] = {}
    put_back: list[str] = []  # the recovered rows' uuids, in the order they are put back
    details: list[str] = []  # each one's finding
    at = 0  # where the next sorted part's stamps start
    try:
        for turn in turns:
            recovered: list[str] = []
            for part in (turn.siblings, turn.results):
                if len(part) < 2:
                    recovered += part
                    continue
                own = stamps[at : at + len(part)]
                at += len(part)
                order = sorted(range(len(part)), key=own.__getitem__) if plain else \
                    sorted_by_timestamp(list(range(len(part))), own)
                recovered += map(part.__getitem__, order)
            inserts[turn.last] = recovered
            put_back += recovered
            details += repeat(f"off the walked path; put back after {turn.last} "
                              f"(line {graph.line[turn.last]}) by orphan recovery",
                              len(recovered))
    finally:  # a reader error keeps the findings of the turns before it
        graph.diagnostics += findings(list(map(graph.line.__getitem__, put_back)),
                                      "recovered", details)
    out: list[Json | Pending] = []
    out_uuids: list[str] = []
    for row, uuid in zip(stored_rows(chain), uuids, strict=True):
        out.append(row)
        out_uuids.append(uuid)
        if uuid in inserts:
            recovered = inserts[uuid]
            out += map(item_of, recovered)
            out_uuids += recovered
    return LazyChain(out, out_uuids) if type(chain) is LazyChain else out  # type: ignore[return-value]


def _one_format(stamps: list[Any]) -> bool:
    """Whether every stamp is an ASCII string and they differ only in digits (one
    format): collation is then string order (settled in C)."""
    return set(map(type, stamps)) <= _STRINGS and all(map(str.isascii, stamps)) and \
        len(set(map(str.translate, stamps, repeat(_DIGITS_TO_ZERO)))) <= 1


__all__ = ["SDK", "recover_orphans", "sorted_by_timestamp"]
