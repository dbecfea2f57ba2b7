"""The exact answer a contract asks of a transcript, from the chosen profile's graph.

Pure: bytes in, an ``Answer`` out. ``chain`` is the conversation the profile resumes
(its walked and recovered chain, showing what the profile shows plus the row kinds
the contract turns on, minus those it turns off); ``archive`` every row in scope
once (the last copy of a uuid, at its first place), parents before children;
``file-order`` every row in scope once, in file order; ``usage`` the token totals
of the assistant rows, each API response once.

Which rows count once for usage (``docs/protocol.md``): Claude Code writes one
assistant row per content block of a streamed response, each carrying the same
``message.id`` and ``requestId`` and the response's usage; those rows are one
response and count once (the last-written copy, which holds the final usage).
A row without ``message.id`` or ``requestId`` cannot be matched with others and
counts on its own; rows of every branch and of sidechains count (they were billed).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rechain.conformance.contracts.model import USAGE_FIELDS, Contract
from rechain.reference.model import Json, Options

#: the UTF-8 byte order mark
BOM = b"\xef\xbb\xbf"
UNSHOWN_TYPES = frozenset({"user", "assistant", "system", "progress", "summary"})
COMMAND_OUTPUT = ("<local-command-stdout>", "<local-command-stderr>")


@dataclass(frozen=True, slots=True)
class Row:
    """One row of the file a contract puts in scope."""

    uuid: str
    kind: str  # message | meta | system | summary | compact-summary | progress | sidechain
    #            | command-output | queued-command
    role: str  # the entry's type (user, assistant, system, …)
    line: int
    parent: str | None  # nearest ancestor in scope (None: a root)
    fragments: tuple[str, ...] = ()  # texts, tool calls and results the row holds


@dataclass(frozen=True, slots=True)
class Answer:
    """What a contract's reader must show: rows in order, or usage totals."""

    rows: tuple[Row, ...] = ()
    usage: dict[str, int] = field(default_factory=dict)
    live: frozenset[str] = frozenset()  # uuids on the resumed chain (for wrong-branch)
    sidechain: frozenset[str] = frozenset()
    entries: dict[str, Json] = field(default_factory=dict)  # every indexed uuid -> entry
    presented: dict[str, Json] = field(default_factory=dict)  # scope chain: as the SDKs show it
    #: a row in scope written more than once (one uuid, read once) -> each line and what it
    #: shows (``pairing.copies_of``): a reader without uuids that shows each line shows it
    #: again
    copies: dict[str, tuple[tuple[int, tuple[str, ...]], ...]] = field(default_factory=dict)

    @property
    def uuids(self) -> list[str]:
        return [row.uuid for row in self.rows]


def row_kind(entry: Json) -> str:
    """Which kind of row an entry is, for ``Rows.shown`` (``other``: never shown)."""
    kind = entry.get("type")
    attachment = entry.get("attachment")
    if entry.get("isSidechain") is True:
        return "sidechain"
    if kind == "attachment" and isinstance(attachment, dict) and (
            attachment.get("type") == "queued_command"):
        return "queued-command"
    if kind not in UNSHOWN_TYPES:
        return "other"
    if kind in ("system", "summary", "progress"):
        return str(kind)
    if entry.get("isCompactSummary") is True:
        return "compact-summary"
    if entry.get("isMeta") is True:
        return "meta"
    if kind == "user" and _command_output(entry):
        return "command-output"
    return "message"


def _command_output(entry: Json) -> bool:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return isinstance(content, str) and content.lstrip().startswith(COMMAND_OUTPUT)


def fragments(entry: Json) -> tuple[str, ...]:
    """The texts, tool calls (``tool_use:ID``) and results (``tool_result:ID``) of a row."""
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        return (content,) if content.strip() else ()
    found: list[str] = []
    for block in content if isinstance(content, list) else ():
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            found.append(block["text"])
        elif kind == "tool_use":
            found.append(f"tool_use:{block.get('id')}")
        elif kind == "tool_result":
            found.append(f"tool_result:{block.get('tool_use_id')}")
    return tuple(found)


def shown_fragments(entry: Json, contract: Contract) -> tuple[str, ...]:
    """The fragments of a row its reader renders: tool results left out when it hides them."""
    found = fragments(entry)
    if contract.results == "hidden":
        return tuple(f for f in found if not f.startswith("tool_result:"))
    return found


def visible(entry: Json, contract: Contract) -> bool:
    """Whether a row in scope is a row of the reader's at all: with ``results: hidden`` a row
    of tool results only is none, with ``blank: hidden`` a row with nothing to render is none
    (text viewers render a row's texts and calls, so they skip one that has neither)."""
    if contract.results != "hidden" and contract.blank == "shown":
        return True
    if shown_fragments(entry, contract):
        return True
    return contract.blank == "shown" and not fragments(entry)


def answer(data: bytes, contract: Contract, profile: str = "sdk",
           options: Options | None = None) -> Answer:
    """The answer ``contract`` asks of ``data`` under ``profile``."""
    from rechain.reference.walked import walked

    options = options or Options()
    data = as_read(data, contract)
    seen = walked(data, profile, options)
    entries = seen.graph.nodes.copy()  # decoded rows (dict() would keep lazy ones as kept)
    live = frozenset(e["uuid"] for e in seen.chain)
    side = frozenset(u for u, e in entries.items() if row_kind(e) == "sidechain")
    if contract.scope == "usage":
        return Answer(usage=usage_totals(seen.entries, contract), live=live, sidechain=side,
                      entries=entries)
    line_of = dict(seen.graph.line)
    in_scope = {u for u, e in entries.items()
                if contract.rows.shown(row_kind(e)) and visible(e, contract)}
    presented: dict[str, Json] = {}
    calls: dict[str, str] = {}  # a tool result's row -> the row of its call (beside-call)
    if contract.scope == "chain":
        from rechain.reference import rebuild

        presented = {m["uuid"]: m for m in rebuild(data, profile, options).messages}
        order = _chain_order(presented, seen.chain, contract)
    else:
        first = sorted(seen.graph.position, key=seen.graph.position.__getitem__)
        order = [u for u in first if u in in_scope]
        if contract.results == "beside-call":
            calls = calls_of(order, entries)
            order = beside_calls(order, calls)
        if contract.scope == "archive":
            order = parents_first(order, {u: calls.get(u) or _parent_in(u, entries, in_scope)
                                          for u in order})
    rows = tuple(Row(u, row_kind(entries[u]), str(entries[u].get("type")), line_of.get(u, 0),
                     calls.get(u) or _parent_in(u, entries, in_scope),
                     shown_fragments(entries[u], contract)) for u in order)
    from rechain.conformance.contracts.pairing import copies_of

    return Answer(rows=rows, live=live, sidechain=side, entries=entries, presented=presented,
                  copies=copies_of(seen.entries, seen.lines, order))


def as_read(data: bytes, contract: Contract) -> bytes:
    """``data`` as a reader that declares it reads a line past its byte order mark sees it
    (``bom``): the marks it passes over taken out, each line where it was, so the profile
    parses the line; the SDKs' JSON parser drops such a line (``line-dropped``)."""
    if contract.bom == "first-line-read" and data.startswith(BOM):
        return data[len(BOM):]
    if contract.bom == "every-line-read" and BOM in data:
        return (b"\n" + data).replace(b"\n" + BOM, b"\n")[1:]
    return data


def _chain_order(presented: dict[str, Json], chain: tuple[Json, ...],
                 contract: Contract) -> list[str]:
    """The chain as the profile presents it, plus rows the contract turns on, minus those off."""
    order: list[str] = []
    for entry in chain:
        uuid, kind = entry["uuid"], row_kind(entry)
        if uuid in order or kind == "other" or not contract.rows.shown(kind) or not visible(
                entry, contract):
            continue
        if uuid in presented or kind not in ("message", "queued-command"):
            order.append(uuid)
    return order


def _blocks(entry: Json) -> list[Json]:
    message = entry.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def calls_of(order: list[str], entries: dict[str, Json]) -> dict[str, str]:
    """Each shown user row holding a tool result -> the shown assistant row holding its
    call (by ``tool_use_id``; a row of several results goes with its first result's call)."""
    call_row: dict[str, str] = {}
    for uuid in order:
        if entries[uuid].get("type") == "assistant":
            for block in _blocks(entries[uuid]):
                if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                    call_row.setdefault(block["id"], uuid)
    out: dict[str, str] = {}
    for uuid in order:
        if entries[uuid].get("type") != "user":
            continue
        ids = [b.get("tool_use_id") for b in _blocks(entries[uuid])
               if b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str)]
        if ids and call_row.get(ids[0], uuid) != uuid:
            out[uuid] = call_row[ids[0]]
    return out


def beside_calls(order: list[str], calls: dict[str, str]) -> list[str]:
    """``order`` with each tool result moved right after its call (results of one call in
    their own order), as a viewer that pairs a call with its output shows them."""
    after: dict[str, list[str]] = {}
    for uuid in order:
        if uuid in calls:
            after.setdefault(calls[uuid], []).append(uuid)
    out: list[str] = []
    for uuid in order:
        if uuid not in calls:
            out.append(uuid)
            out.extend(after.get(uuid, ()))
    return out


def _parent_in(uuid: str, entries: dict[str, Json], in_scope: set[str]) -> str | None:
    """The nearest ancestor of ``uuid`` that is in scope (rows out of scope are bridged)."""
    seen = {uuid}
    parent = entries[uuid].get("parentUuid")
    while isinstance(parent, str) and parent in entries and parent not in seen:
        if parent in in_scope:
            return parent
        seen.add(parent)
        parent = entries[parent].get("parentUuid")
    return None


def parents_first(order: list[str], parent: dict[str, str | None]) -> list[str]:
    """``order`` rearranged so each row follows its parent (stable; cycles kept in order)."""
    placed: set[str] = set()
    out: list[str] = []
    waiting: dict[str, list[str]] = {}

    def place(uuid: str) -> None:
        stack = [uuid]
        while stack:
            current = stack.pop()
            if current in placed:
                continue
            placed.add(current)
            out.append(current)
            stack.extend(reversed(waiting.pop(current, [])))

    positions = {u: i for i, u in enumerate(order)}
    for uuid in order:
        up = parent.get(uuid)
        if up is not None and up not in placed and positions.get(up, -1) > positions[uuid] \
                and not _descends(up, uuid, parent):
            waiting.setdefault(up, []).append(uuid)
            continue
        place(uuid)
    for rest in list(waiting.values()):
        for uuid in rest:
            place(uuid)
    return out


def _descends(child: str, ancestor: str, parent: dict[str, str | None]) -> bool:
    """Whether ``ancestor`` is above ``child`` (a cycle when the edge points back)."""
    seen: set[str] = set()
    current = parent.get(child)
    while current is not None and current not in seen:
        if current == ancestor:
            return True
        seen.add(current)
        current = parent.get(current)
    return False


def usage_totals(entries: tuple[Json, ...], contract: Contract) -> dict[str, int]:
    """Token totals over assistant rows, each response (``message.id``+``requestId``) once."""
    last: dict[Any, Json] = {}
    for at, entry in enumerate(entries):
        if entry.get("type") != "assistant":
            continue
        message = entry.get("message")
        if not isinstance(message, dict) or not isinstance(message.get("usage"), dict):
            continue
        mid, rid = message.get("id"), entry.get("requestId")
        key = (mid, rid) if isinstance(mid, str) and isinstance(rid, str) else ("row", at)
        last[key] = message["usage"]
    wanted = contract.fields or frozenset(USAGE_FIELDS)
    totals = {name: 0 for name in USAGE_FIELDS if name in wanted}
    for usage in last.values():
        for name in totals:
            value = usage.get(name)
            if isinstance(value, int) and not isinstance(value, bool):
                totals[name] += value
    return totals
