"""Rows kept as their line's bytes until a stage reads them: the parse below the floor.

Most of a long transcript's lines are never shown (abandoned branches, history
before a compaction, progress rows): building their dicts is the largest cost
of a load. So the SDK parser first *glances* at a line: ``msgspec`` decodes it
into a ``Struct`` naming only the fields the graph needs (uuid, type,
parent, the leaf filter's flags, ``message.id``, the content blocks' ids, the
tool result's source row and the writer's ``agentId``),
validating the rest of the line without building it. A row then stays a
``Pending`` (the buffer and the line's span) in ``LazyEntries`` / ``LazyNodes``
until a stage reads it, when it gets the exact ``JSON.parse`` decode it would
have had eagerly.

Exactness: the glance is trusted only where it cannot differ from
``JSON.parse``. msgspec refuses everything ``JSON.parse`` refuses but invalid
UTF-8 in a skipped string: such a row is decoded exactly when read (orjson refuses
it, the exact parser replaces the bytes) and its line reported when the diagnostics
are read (``utf8.py``), unless the caller knows the buffer is not UTF-8 (parsed
eagerly); what msgspec refuses (lone surrogate escapes, nesting deeper than it
allows, a field of an unexpected shape, a line that is not an object) is
parsed eagerly. Numbers it accepts that orjson does not (``1e400``) are in
skipped fields, and the full decode goes to the exact parser. Duplicate keys:
the last one wins in the glance as in ``JSON.parse``.
"""

from __future__ import annotations

import codecs
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, overload

import msgspec
import orjson

from rechain.reference.js.jsonparse import parse_line
from rechain.reference.js.values import UNDEFINED
from rechain.reference.model import EqualToItems, Json


class Block(msgspec.Struct, gc=False):
    """A content block's graph fields (None when absent)."""

    type: Any = None
    id: Any = None
    tool_use_id: Any = None


class GlancedMessage(msgspec.Struct, gc=False):
    """``message``'s graph fields (None when absent)."""

    id: Any = None
    content: list[Block] | str | None = None


_JSON_NAMES = {"parent_uuid": "parentUuid", "is_sidechain": "isSidechain", "team_name": "teamName",
               "source": "sourceToolAssistantUUID", "agent_id": "agentId", "is_meta": "isMeta",
               "quiet": "closesQuietTurn", "host_hidden": "hostHiddenToolUseIds",
               "ran_by": "ranByToolUseId"}


class GlancedAttachment(msgspec.Struct, gc=False):
    """``attachment.type`` (None when absent)."""

    type: Any = None


class Glance(msgspec.Struct, gc=False, rename=_JSON_NAMES):
    """The graph's fields of one line: None when absent, but for the two whose absence
    the stages tell from ``null`` (``UNDEFINED``).

    A ``Struct``, not a dict: decoding one builds no key and reading a field is an
    attribute read (about a third less time per line than a ``TypedDict``). msgspec
    keeps the last of duplicate keys and matches escaped key names, as ``JSON.parse``.
    """

    uuid: Any = None
    type: Any = None
    parent_uuid: Any = UNDEFINED
    subtype: Any = None
    is_sidechain: Any = None
    team_name: Any = None
    message: GlancedMessage | None = None
    attachment: GlancedAttachment | None = None
    source: Any = None
    agent_id: Any = UNDEFINED
    # what the SDK view filters on besides the type (``Pending.plain``)
    is_meta: Any = None
    quiet: Any = None
    host_hidden: Any = None
    ran_by: Any = None
    # what a tool result keeps for the leaf choice and the recovery sort (``Pending.stamp``):
    # left as its bytes, so that no value of it (``1e400``, a lone surrogate) refuses the line
    timestamp: msgspec.Raw = msgspec.Raw()


GLANCE = msgspec.json.Decoder(Glance)
_loads = orjson.loads  # ``glance`` without the call, for the parser's loop
# 64 KiB: a chunk's decoded text (up to 4 bytes a character) stays in the CPU's cache; a
# MiB at a time made a 100 MB buffer with accents or emoji cost 0.09-0.15 s, not 0.04-0.05
_UTF8_CHUNK = 1 << 16


def glance(raw: bytes | memoryview) -> Glance | None:
    """The graph's fields of one line, or None: parse it eagerly."""
    try:
        return GLANCE.decode(raw)
    except (msgspec.DecodeError, RecursionError):
        return None


def valid_utf8(data: bytes, offset: int = 0) -> bool:
    """Whether the buffer from ``offset`` on is UTF-8 (decoded a chunk at a time: no copy of
    it kept)."""
    if offset == 0 and data.isascii():
        return True
    decoder = codecs.getincrementaldecoder("utf-8")("strict")
    view = memoryview(data)
    try:
        for start in range(offset, len(data), _UTF8_CHUNK):
            decoder.decode(view[start : start + _UTF8_CHUNK])
        decoder.decode(b"", final=True)
    except UnicodeDecodeError:
        return False
    return True


#: ``Pending.stamp`` of a row whose timestamp was not kept
UNKEPT = msgspec.UNSET


class Pending(msgspec.Struct, gc=False, eq=False):
    """A row not decoded yet: its buffer and where its line starts (after the bytes the
    reader skips; it ends at the next LF, found again when the row is read: a million
    rows kept undecoded are a million fewer ints); decoded once, on first read.

    A ``Struct`` (compared by identity) rather than a class with slots: built in C, a
    fifth of the time, and 48 bytes instead of 64 (no cyclic-GC header).
    """

    data: bytes
    start: int
    # the SDK view may decide the row from its type alone: no ``isMeta``, quiet-turn
    # close, host field, sidechain or team (each absent, null or false; anything else
    # is left to the decoded row), so it is no queued command, local-command mark or
    # host assistant, and it is shown when a user or assistant row
    plain: bool = False
    value: Any = None  # the decoded row, once ``decoded`` kept it
    # a tool result's ``timestamp`` from its glance (``kept_stamp``), else ``UNKEPT``: the
    # leaf choice and the recovery sort read the stamps of results, most of a long file's
    # leaves and orphans, and reading one from the line decodes the whole line again
    stamp: Any = UNKEPT

    def __repr__(self) -> str:
        """The row's place, never its buffer (the whole file)."""
        return f"Pending(start={self.start}, plain={self.plain})"

    def raw(self) -> bytes:
        """The row's bytes."""
        data, start = self.data, self.start
        stop = data.find(b"\n", start)
        return data[start : stop if stop >= 0 else len(data)]

    def decoded(self) -> Json:
        """The row as ``JSON.parse`` gives it (the glance established that it parses)."""
        value = self.value
        if value is None:
            raw = self.raw()
            try:
                value = orjson.loads(raw)
            except (orjson.JSONDecodeError, RecursionError):
                value, _ = parse_line(raw)
            self.value = value
        return value  # type: ignore[return-value]

    def fresh(self) -> Json:
        """The row decoded for one reader, not kept: a chain row is read once to present it
        and once more when its message is written out, never held decoded in between."""
        value = self.value
        if value is not None:
            return value
        data, start = self.data, self.start  # ``raw`` written out: once per message read
        stop = data.find(b"\n", start)
        raw = data[start:stop] if stop >= 0 else data[start:]
        try:
            return _loads(raw)  # type: ignore[no-any-return]
        except (orjson.JSONDecodeError, RecursionError):
            return parse_line(raw)[0]  # type: ignore[no-any-return]


def kept_stamp(raw: msgspec.Raw) -> Any:
    """What a row keeps of a glanced ``timestamp`` (its bytes; empty when absent): a string,
    null or absent as ``JSON.parse`` reads it; any other value, or a string orjson refuses,
    is left to the line (``UNKEPT``)."""
    if not raw:
        return UNDEFINED
    try:
        stamp = _loads(memoryview(raw))
    except orjson.JSONDecodeError:
        return UNKEPT
    return stamp if stamp is None or type(stamp) is str else UNKEPT


class Stamped(msgspec.Struct, gc=False):
    """A row's ``timestamp`` alone (``UNDEFINED`` when absent)."""

    timestamp: Any = UNDEFINED


_STAMP = msgspec.json.Decoder(Stamped)


def stamp_of(item: Json | Pending, default: Any = None) -> Any:
    """``row.get("timestamp", default)`` of a stored row. A row kept undecoded is glanced
    at (its line decodes as the glance established), and decoded, not kept, only when the
    stamp is neither a string, null nor absent (``JSON.parse`` decides such values)."""
    if type(item) is not Pending or item.value is not None:
        return row_of(item).get("timestamp", default)
    kept = item.stamp
    if kept is not UNKEPT:
        return default if kept is UNDEFINED else kept
    try:
        stamp = _STAMP.decode(item.raw()).timestamp
    except (msgspec.DecodeError, RecursionError):
        return item.fresh().get("timestamp", default)
    if stamp is None or type(stamp) is str:
        return stamp
    return default if stamp is UNDEFINED else item.fresh().get("timestamp", default)


def row_of(item: Json | Pending) -> Json:
    """A stored row as a reader sees it (a ``Pending`` decoded, not kept)."""
    return item.fresh() if type(item) is Pending else item  # type: ignore[union-attr,return-value]


class _LazyList(list):  # type: ignore[type-arg]
    """A list whose items may be kept undecoded: compared and shown as they are read."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        return [*self] == (other if type(other) is list else [*other])  # type: ignore[misc]

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return repr([*self])

    __hash__ = None  # type: ignore[assignment]

    def stored(self) -> Iterator[Json | Pending]:
        """The items as kept (decoded or not), for an index that must not decode them."""
        return list.__iter__(self)


class LazyEntries(_LazyList):
    """The parsed entries in file order; a ``Pending`` one is decoded when read."""

    def __getitem__(self, at: Any) -> Any:
        found = list.__getitem__(self, at)
        if type(at) is slice:
            return [item.decoded() if type(item) is Pending else item for item in found]
        return found.decoded() if type(found) is Pending else found

    def __iter__(self) -> Iterator[Json]:
        for item in list.__iter__(self):
            yield item.decoded() if type(item) is Pending else item


class LazyNodes(dict):  # type: ignore[type-arg]
    """uuid -> entry; a ``Pending`` entry is decoded (and kept decoded) when read."""

    def __getitem__(self, uuid: Any) -> Json:
        found = dict.__getitem__(self, uuid)
        if type(found) is Pending:
            found = found.decoded()
            dict.__setitem__(self, uuid, found)
        return found  # type: ignore[no-any-return]

    def get(self, uuid: Any, default: Any = None) -> Any:
        return self[uuid] if dict.__contains__(self, uuid) else default

    def values(self) -> Iterator[Json]:  # type: ignore[override]
        return (self[uuid] for uuid in dict.keys(self))

    def items(self) -> Iterator[tuple[str, Json]]:  # type: ignore[override]
        return ((uuid, self[uuid]) for uuid in dict.keys(self))

    def copy(self) -> dict[str, Json]:
        return dict(self.items())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, dict) and self.keys() == other.keys() and all(
            self[uuid] == other[uuid] for uuid in self
        )

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __repr__(self) -> str:
        return repr(self.copy())

    __hash__ = None  # type: ignore[assignment]


class LazyChain(_LazyList):
    """A walked chain whose rows may be undecoded: read, a row is decoded and not kept.

    ``uuids`` runs parallel to the rows, so that a stage can key the chain without
    decoding it.
    """

    __slots__ = ("uuids",)

    def __init__(self, rows: Iterable[Json | Pending] = (), uuids: Iterable[str] = ()) -> None:
        super().__init__(rows)
        self.uuids: list[str] = list(uuids)

    def __getitem__(self, at: Any) -> Any:
        found = list.__getitem__(self, at)
        if type(at) is slice:
            return [row_of(item) for item in found]
        return row_of(found)

    def __iter__(self) -> Iterator[Json]:
        return map(row_of, list.__iter__(self))




def chain_uuids(chain: list[Json]) -> list[str]:
    """The uuids of a chain's rows, in order, without decoding a row kept undecoded."""
    if type(chain) is LazyChain:
        return chain.uuids
    return [row["uuid"] for row in chain]


def stored_rows(chain: list[Json]) -> Iterable[Json | Pending]:
    """A chain's rows as kept: ``Pending`` for those not decoded (``row_of`` reads one)."""
    return chain.stored() if type(chain) is LazyChain else chain


class Messages(EqualToItems[Json]):
    """A rebuild's messages in order, each with its ``line``.

    With ``build``, ``items`` are the rows the messages show (decoded or ``Pending``) and
    each message is built from its row (``build``, then its line from ``lines``) each
    time it is read, and not kept: a rebuild of a million-row chain holds the rows (for
    the SDK profile, their bytes and facts) rather than a million message objects too.
    Without, ``items`` are the messages. Equal to a tuple or list of the same messages.
    """

    __slots__ = ("_build", "_items", "_lines")

    def __init__(self, items: Sequence[Json | Pending] = (), lines: Sequence[int] = (),
                 build: Callable[[Json], Json] | None = None) -> None:
        self._items = items
        self._lines = lines
        self._build = build

    def _made(self, item: Json | Pending, line: int) -> Json:
        build = self._build
        if build is None:
            return item  # type: ignore[return-value]
        message = build(item.fresh() if type(item) is Pending else item)  # type: ignore[union-attr]
        message["line"] = line
        return message

    @overload
    def __getitem__(self, at: int) -> Json: ...

    @overload
    def __getitem__(self, at: slice) -> tuple[Json, ...]: ...

    def __getitem__(self, at: int | slice) -> Json | tuple[Json, ...]:
        if type(at) is slice:
            return tuple(map(self._made, self._items[at], self._lines[at]))
        return self._made(self._items[at], self._lines[at])  # type: ignore[index]

    def __len__(self) -> int:
        return len(self._items)

    def __iter__(self) -> Iterator[Json]:
        return map(self._made, self._items, self._lines)
