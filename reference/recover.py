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
from itertools import accumulate, compress, islice, repeat
from itertools import chain as joined
from operator import attrgetter, gt, is_not, itemgetter, or_
from typing import Any, TypeVar

from rechain.reference.facts import MESSAGE_ID, PARENT, UUID, Facts
from rechain.reference.graph import Graph, ReaderError, walked_facts
from rechain.reference.js.collate import locale_key
from rechain.reference.js.values import nullish, to_string, truthy
from rechain.reference.lazyrows import LazyChain, Pending, stamp_of, stored_rows
from rechain.reference.model import Json, findings
from rechain.reference.orphans import Rules, Turn, find_orphans

_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")
_STRINGS = {str}
_UUID_OF = itemgetter(UUID)
_KEPT, _VALUE = attrgetter("stamp"), attrgetter("value")
_PENDING = {Pending}
_PUT_BACK = "off the walked path; put back after {} (line {}) by orphan recovery"
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


def _no_line_feed(uuids: list[str]) -> bool:
    """``Rules.tags_apart`` of ``_joined``: ``${parent}\\n${uuid}`` ends with the uuid
    after its last LF when the uuid holds none, so two such results' tags differ."""
    return "\n" not in "".join(uuids)


SDK = Rules(message=_string_id, is_result=_off_chain_with_parent, looks_further=_always,
            tag=_joined, by_message_id=True, results_off_chain=True, tags_apart=_no_line_feed)


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
    stamps = _stamps(list(map(item_of, joined.from_iterable(sorting))))
    plain = _one_format(stamps)
    inserts: dict[str, list[str]] = {}  # a turn's last row on the chain -> its rows put back
    try:
        if plain and _in_order(stamps, sorting):  # no part needs sorting (file order is time's)
            inserts.update((turn.last, turn.siblings + turn.results) for turn in turns)
        else:
            _put_in_order(turns, stamps, plain, inserts)
    finally:  # a reader error keeps the findings of the turns before it
        put_back = list(joined.from_iterable(inserts.values()))
        graph.diagnostics += findings(list(map(graph.line.__getitem__, put_back)),
                                      "recovered", _details(graph, inserts))
    return _inserted(chain, uuids, inserts, item_of)


def _put_in_order(turns: list[Turn], stamps: list[Any], plain: bool,
                  inserts: dict[str, list[str]]) -> None:
    """Each turn's rows put back, each part sorted by its stamps (``stamps``: those of
    the parts of two or more rows, in turn order), into ``inserts`` a turn at a time."""
    at = 0  # where the next sorted part's stamps start
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


def _in_order(stamps: list[str], parts: list[list[str]]) -> bool:
    """Whether each part's stamps (strings, the parts' in a row) already run in string
    order, so that a stable sort would leave every part as it is: every place where the
    stamps step down is where a part starts. Rows are written as they happen, so this is
    the common case, settled in C for all the parts at once."""
    starts = set(accumulate(map(len, parts)))
    return starts.issuperset(compress(range(1, len(stamps)),
                                      map(gt, stamps, islice(stamps, 1, None))))


def _stamps(items: list[Json | Pending]) -> list[Any]:
    """``stamp_of`` each row. Rows kept undecoded keep a result's stamp (``Pending.stamp``):
    those are read by one attribute read each in C, and ``stamp_of`` reads the others (a
    stamp not kept as a string, a row decoded since)."""
    if set(map(type, items)) != _PENDING:
        return list(map(stamp_of, items))
    stamps = list(map(_KEPT, items))
    for at in compress(range(len(items)), map(or_, map(is_not, map(type, stamps), repeat(str)),
                                              map(is_not, map(_VALUE, items), repeat(None)))):
        stamps[at] = stamp_of(items[at])
    return stamps


def _details(graph: Graph, inserts: dict[str, list[str]]) -> list[str]:
    """The finding of each row put back, in order: one text a turn (formatted in C)."""
    lasts = list(inserts)
    texts = map(_PUT_BACK.format, lasts, map(graph.line.__getitem__, lasts))
    return list(joined.from_iterable(map(repeat, texts, map(len, inserts.values()))))


def _inserted(chain: list[Json], uuids: list[str], inserts: dict[str, list[str]],
              item_of: Callable[[str], Json | Pending]) -> list[Json]:
    """The chain with each turn's rows after its last row, rows kept undecoded staying so."""
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
    format): collation is then string order. False also for two or more stamps of which
    one holds an LF (a stamp never does): the exact collation sorts them.

    Settled on the stamps joined by LFs, in a few C calls over one string: every stamp
    is a string (else the join refuses), none holds an LF (so the pieces are the
    stamps), and with its digits made 0 the text is the first one's shape repeated."""
    if len(stamps) < 2:
        return all(map(str.isascii, stamps)) if set(map(type, stamps)) <= _STRINGS else False
    try:
        text = "\n".join(stamps)
    except TypeError:
        return False
    shape = stamps[0].translate(_DIGITS_TO_ZERO)
    return text.isascii() and text.count("\n") == len(stamps) - 1 and \
        text.translate(_DIGITS_TO_ZERO) == "\n".join(repeat(shape, len(stamps)))


__all__ = ["SDK", "recover_orphans", "sorted_by_timestamp"]
