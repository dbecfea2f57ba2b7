"""Corruptions: byte- and graph-level damage, each with a declared effect on lines.

A corruption never guesses what a reader will do. Each :class:`Mutation` declares what it
did to the file's lines (``EFFECTS``): a line stops being an entry, a parent changes, a
line moves or is copied, or nothing that matters changes. The expected conversation is
then re-derived from the remaining lines by :mod:`rechain.strategies.conversation`,
which is how "a corruption loses only what its declared effect says" is checked.

Mutations are a separate list that shrinks to empty; each targets a line counted back
from the end (``at`` shrinks to the last line) and takes one small argument (``arg``
shrinks to the simplest variant: the shortest cut, the nearest copy, ...).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import orjson
from hypothesis import event
from hypothesis import strategies as st

from rechain.strategies import ids
from rechain.strategies.conversation import Undetermined, expected, is_entry
from rechain.strategies.records import Record
from rechain.strategies.transcript import Transcript, dumps

MutationKind = Literal[
    "truncate_last", "tear", "drop", "duplicate", "swap", "shuffle", "crlf", "bom",
    "lone_cr", "invalid_utf8", "nan", "non_object", "unknown_type", "dangling_parent",
    "self_loop", "cycle", "duplicate_uuid", "missing_uuid", "huge_line",
]

#: What each mutation declares it does to lines (what readers must make of it follows).
EFFECTS: dict[str, str] = {
    "truncate_last": "the last line is cut short without its newline: it is no entry",
    "tear": "a line is cut short (a torn write); the next line starts fresh: it is no entry",
    "drop": "a line is gone",
    "duplicate": "an exact copy of a line is written later; the copy's position counts",
    "swap": "two adjacent lines change places",
    "shuffle": "a window of up to 10 lines is permuted",
    "crlf": "every line ends with CR LF: nothing changes",
    "bom": "a UTF-8 BOM starts the file: the first line is no entry",
    "lone_cr": "two lines are joined by a lone CR: neither is an entry",
    "invalid_utf8": "invalid UTF-8 inside a string value (cwd): nothing in the chain changes",
    "nan": "a bare NaN number is added to a line: strict JSON rejects it, it is no entry",
    "non_object": "a line holding JSON that is not an object is inserted: nothing changes",
    "unknown_type": "a line's type becomes unknown: it is no entry",
    "dangling_parent": "an entry's parentUuid names a uuid that is nowhere in the file",
    "self_loop": "an entry's parentUuid is its own uuid",
    "cycle": "an entry's parentUuid names one of its descendants",
    "duplicate_uuid": "an altered copy of an entry (same uuid) is written right after it",
    "missing_uuid": "an entry loses its uuid: it is no entry",
    "huge_line": "a metadata line of 256 KiB to 1 MiB is inserted: nothing changes",
}
KINDS: tuple[str, ...] = tuple(EFFECTS)
BOM = b"\xef\xbb\xbf"


@dataclass(frozen=True, slots=True)
class Mutation:
    """One piece of damage: ``kind`` at the line ``at`` back from the end, with ``arg``."""

    kind: MutationKind
    at: int = 0
    arg: int = 0


@dataclass(slots=True)
class _Cell:
    value: object  # the parsed line (None when unreadable)
    data: bytes
    record: Record | None
    torn: bool = False  # no newline after it (the next line glues on)


@dataclass(frozen=True, eq=False)
class CorruptedTranscript:
    """A damaged transcript: the clean one, the damage, the bytes and what they still mean.

    ``intended`` is the expected conversation (uuids, reader order) after the damage, or
    None when ``undetermined`` says why the lines leave it to a reader's tie-breaking.
    """

    clean: Transcript
    mutations: tuple[Mutation, ...]
    data: bytes
    intended: tuple[str, ...] | None
    undetermined: str | None = None
    lines: tuple[object, ...] = field(default=())

    def to_bytes(self) -> bytes:
        """The damaged file."""
        return self.data

    @property
    def session_id(self) -> str:
        """The clean transcript's session id."""
        return self.clean.session_id

    def entry(self, uuid: str) -> dict[str, Any]:
        """The last readable *entry* line with this uuid (what a reader keeps for it)."""
        found = None
        for line in self.lines:
            if is_entry(line) and line["uuid"] == uuid:  # type: ignore[index]
                found = line
        if found is None:
            raise KeyError(uuid)
        return found  # type: ignore[return-value]

    def __repr__(self) -> str:
        return f"CorruptedTranscript(clean={self.clean!r}, mutations={list(self.mutations)!r})"


def _cells(transcript: Transcript) -> list[_Cell]:
    return [_Cell(line, dumps(line), record)
            for line, record in zip(transcript.lines, transcript.records, strict=True)]


def _target(cells: list[_Cell], at: int) -> int:
    return len(cells) - 1 - at % len(cells)


def _rewrite(cell: _Cell, value: dict[str, Any]) -> _Cell:
    return replace(cell, value=value, data=dumps(value))


def _unreadable(cell: _Cell, data: bytes) -> _Cell:
    return replace(cell, value=None, data=data)


def _children(cells: list[_Cell], uuid: str) -> list[str]:
    return [c.value["uuid"] for c in cells if is_entry(c.value)  # type: ignore[index]
            and c.value.get("parentUuid") == uuid]  # type: ignore[union-attr]


def _graph(cells: list[_Cell], i: int, m: Mutation, salt: int) -> None:
    """Change one entry's parent (dangling, self loop, or a descendant)."""
    value = cells[i].value
    if not is_entry(value):
        return
    assert isinstance(value, dict)
    uuid = value["uuid"]
    if m.kind == "dangling_parent":
        parent = ids.uuid4_text(salt ^ 0x5EED, 10_000 + i)
    elif m.kind == "self_loop":
        parent = uuid
    else:
        node = uuid
        for _ in range(m.arg % 4 + 1):
            kids = _children(cells, node)
            if not kids:
                break
            node = kids[0]
        if node == uuid:
            return
        parent = node
    cells[i] = _rewrite(cells[i], {**value, "parentUuid": parent})


def _apply(cells: list[_Cell], m: Mutation, salt: int, state: dict[str, bool]) -> None:
    """Apply one mutation in place (``state`` holds file-wide flags such as CRLF)."""
    if not cells:
        return
    i = _target(cells, m.at)
    cell = cells[i]
    kind = m.kind
    if kind == "truncate_last":
        last = cells[-1]
        cut = 1 + m.arg % max(len(last.data) - 1, 1)
        cells[-1] = replace(_unreadable(last, last.data[:cut]), torn=True)
    elif kind == "tear":
        cut = 1 + m.arg % max(len(cell.data) - 1, 1)
        cells[i] = _unreadable(cell, cell.data[:cut])
    elif kind == "drop":
        del cells[i]
    elif kind == "duplicate":
        cells.insert(i + 1 + m.arg % (len(cells) - i), replace(cell, torn=False))
    elif kind == "swap":
        j = i - 1 if i == len(cells) - 1 else i
        if j >= 0:
            cells[j], cells[j + 1] = cells[j + 1], cells[j]
    elif kind == "shuffle":
        window = cells[i: i + 2 + m.arg % 9]
        random.Random(m.arg).shuffle(window)
        cells[i: i + len(window)] = window
    elif kind == "crlf":
        state["crlf"] = True
    elif kind == "bom":
        cells[0] = _unreadable(cells[0], BOM + cells[0].data)
    elif kind == "lone_cr":
        if i + 1 < len(cells):
            cells[i: i + 2] = [_unreadable(cell, cell.data + b"\r" + cells[i + 1].data)]
    elif kind == "invalid_utf8":
        if b'"cwd":"' in cell.data:
            cells[i] = replace(cell, data=cell.data.replace(b'"cwd":"', b'"cwd":"\xff\xfe', 1))
    elif kind == "nan":
        if cell.data.endswith(b"}") and len(cell.data) > 2:
            cells[i] = _unreadable(cell, cell.data[:-1] + b',"costUSD":NaN}')
    elif kind == "non_object":
        junk = (b"null", b"[1,2]", b'"text"', b"42")[m.arg % 4]
        cells.insert(i, _Cell(orjson.loads(junk), junk, None))
    elif kind in ("unknown_type", "missing_uuid", "duplicate_uuid"):
        _entry_edit(cells, i, kind)
    elif kind in ("dangling_parent", "self_loop", "cycle"):
        _graph(cells, i, m, salt)
    elif kind == "huge_line":
        size = 256 * 1024 * (1 + m.arg % 4)
        line = {"type": "file-history-snapshot", "messageId": "huge",
                "snapshot": {"messageId": "huge", "trackedFileBackups": {"big.txt": "x" * size}},
                "isSnapshotUpdate": True}
        cells.insert(i, _Cell(line, dumps(line), None))


def _entry_edit(cells: list[_Cell], i: int, kind: str) -> None:
    value = cells[i].value
    if not isinstance(value, dict):
        return
    if kind == "unknown_type":
        cells[i] = _rewrite(cells[i], {**value, "type": f"x-unknown-{value.get('type')}"})
    elif kind == "missing_uuid":
        cells[i] = _rewrite(cells[i], {k: v for k, v in value.items() if k != "uuid"})
    elif is_entry(value):
        cells.insert(i + 1, _rewrite(cells[i], _altered(value)))


def _altered(value: dict[str, Any]) -> dict[str, Any]:
    """The same entry with different words (k8: the later copy's content wins)."""
    message = value.get("message")
    if not isinstance(message, dict):
        return {**value, "content": "DUPLICATE"}
    content: Any = "DUPLICATE"
    if value.get("type") == "assistant" or isinstance(message.get("content"), list):
        blocks = message.get("content") or [{}]
        first = blocks[0] if isinstance(blocks[0], dict) else {}
        if first.get("type") == "tool_result":
            content = [{**first, "content": "DUPLICATE"}]
        elif first.get("type") == "tool_use":
            content = [{**first, "input": {"command": "echo DUPLICATE"}}]
        else:
            content = [{"type": "text", "text": "DUPLICATE"}]
    return {**value, "message": {**message, "content": content}}


def damage(transcript: Transcript, mutations: tuple[Mutation, ...] | list[Mutation],
           salt: int = 0) -> CorruptedTranscript:
    """Apply ``mutations`` in order and derive what the damaged file still means."""
    cells = _cells(transcript)
    state = {"crlf": False}
    for m in mutations:
        _apply(cells, m, salt, state)
    newline = b"\r\n" if state["crlf"] else b"\n"
    chunks: list[bytes] = []
    seen: list[tuple[object, Record | None]] = []
    glued = False
    for index, cell in enumerate(cells):
        chunks.append(cell.data)
        last = index == len(cells) - 1
        if not (cell.torn and not last):
            chunks.append(b"" if cell.torn else newline)
        seen.append((None if glued else cell.value, cell.record))
        glued = cell.torn
    if glued and seen:
        seen[-1] = (None, seen[-1][1])
    outcome = expected(seen)
    undetermined = outcome.reason if isinstance(outcome, Undetermined) else None
    intended = None if isinstance(outcome, Undetermined) else tuple(outcome)
    return CorruptedTranscript(transcript, tuple(mutations), b"".join(chunks), intended,
                               undetermined, tuple(v for v, _ in seen))


def mutations(kinds: tuple[str, ...] = KINDS) -> st.SearchStrategy[Mutation]:
    """One mutation; kinds shrink toward the first (a truncated last line)."""
    return st.builds(Mutation, kind=st.sampled_from(kinds), at=st.integers(0, 200),
                     arg=st.integers(0, 1000))


def corrupted(strategy: st.SearchStrategy[Transcript], *, max_mutations: int = 4,
              min_mutations: int = 0,
              kinds: tuple[str, ...] = KINDS) -> st.SearchStrategy[CorruptedTranscript]:
    """Transcripts from ``strategy`` with a list of mutations applied (shrinks to none)."""

    @st.composite
    def build(draw: st.DrawFn) -> CorruptedTranscript:
        transcript = draw(strategy)
        damage_list = draw(st.lists(mutations(kinds), min_size=min_mutations,
                                    max_size=max_mutations))
        result = damage(transcript, damage_list)
        for m in damage_list:
            event(f"corruption: {m.kind}")
        if result.undetermined is not None:
            event("corruption: expectation undetermined")
        elif result.intended != transcript.intended:
            event("corruption: conversation changed")
        return result

    return build()
