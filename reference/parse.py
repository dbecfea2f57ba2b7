"""Stage 2, parsing: numbered lines to entries, with a reason for every line left out.

The TS SDK skips leading bytes up to 0x20, decodes UTF-8 with U+FFFD for bad
bytes, runs a strict ``JSON.parse`` and keeps objects whose ``type`` is a
conversation type and whose ``uuid`` is a string. ``voice_call_talk`` system
rows are rewritten to user (or queued-command) rows first. ``host-row`` lines
are kept aside, and ``queue-operation`` lines feed the "delivered" counts.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import msgspec
import orjson

from rechain.reference import queued
from rechain.reference.facts import (
    ANSWERS,
    KINDS,
    MAIN_WRITER,
    Facts,
    facts_of,
    glance_facts,
    writer,
)
from rechain.reference.js.jsonparse import JsonError, parse_line
from rechain.reference.js.values import UNDEFINED, prop, truthy
from rechain.reference.lazyrows import GLANCE as _GLANCE
from rechain.reference.lazyrows import UNKEPT, Glance, LazyEntries, Pending, kept_stamp
from rechain.reference.model import Diagnostic, Json
from rechain.reference.read import NumberedLines
from rechain.reference.utf8 import INVALID_UTF8, with_invalid_utf8

try:  # the glance at plain rows in C, when it was built (``_glance.c``)
    from rechain.reference import _glance as native_glance
except ImportError:  # pragma: no cover - an install without a C compiler
    native_glance = None
else:
    native_glance.configure(Pending, UNDEFINED, UNKEPT, MAIN_WRITER, KINDS)

MESSAGE_TYPES = frozenset({"user", "assistant", "progress", "system", "attachment"})
_LEADING = bytes(range(0x21))
_FIRST_CHUNK = 256
_LEADING_CHUNK = 1 << 16
# types a glance can keep undecoded: attachments and queue operations feed the delivery
# tally and host rows are kept whole, so those are parsed at once
_GLANCED = frozenset({"user", "assistant", "progress", "system"})
_PARSED_AT_ONCE = frozenset({"attachment", "host-row", "queue-operation"})


@dataclass(slots=True)
class Parsed:
    """Everything stage 2 hands on: entries in file order and their line numbers."""

    entries: list[Json] = field(default_factory=list)
    lines: list[int] = field(default_factory=list)
    host_rows: list[Json] = field(default_factory=list)
    host_lines: list[int] = field(default_factory=list)
    delivered: dict[str, int] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    # facts a profile's parser gathers for its own later stages (the CLI's checkpoints)
    extras: dict[str, Any] = field(default_factory=dict)
    # parallel to ``entries`` when the parser gathered them (``facts.py``); else None
    facts: list[Facts] | None = None
    # lines glanced at without a check of their bytes: which hold bytes that are not UTF-8
    # is worked out when the diagnostics are first asked for (``findings``)
    unchecked: NumberedLines | None = None

    def findings(self) -> list[Diagnostic]:
        """``diagnostics``, each glanced line whose bytes are not UTF-8 reported in its place
        (``utf8.with_invalid_utf8``) the first time they are asked for."""
        lines = self.unchecked
        if lines is not None:
            self.unchecked = None
            self.diagnostics[:] = with_invalid_utf8(lines, self.diagnostics)
        return self.diagnostics


def rewrite_voice_call(value: Any) -> Any:
    """A ``voice_call_talk`` system row as the user or queued-command row it stands for."""
    if type(value) is not dict or value.get("type") != "system":
        return value
    if value.get("subtype") != "voice_call_talk":
        return value
    rest = {
        k: v
        for k, v in value.items()
        if k not in ("subtype", "level", "msgV", "content", "blocks", "fold")
    }
    content = value.get("content")
    origin = rest.get("origin")
    if type(content) is not str or type(origin) is not dict or origin.get("kind") != "voice-call":
        return value
    blocks = value.get("blocks")
    body = blocks if type(blocks) is list else content
    if "fold" not in value:
        return {**rest, "type": "user", "message": {"role": "user", "content": body}}
    fold = value["fold"]
    if type(fold) is not dict or type(fold.get("command")) is not dict:
        return value
    without_meta = {k: v for k, v in rest.items() if k not in ("isMeta", "origin")}
    fold_rest = {k: v for k, v in fold.items() if k != "command"}
    attachment = {**fold["command"], "type": "queued_command", "prompt": body}
    attachment["origin"] = origin
    return {**fold_rest, **without_meta, "type": "attachment", "attachment": attachment}


def parse_sdk(lines: Iterable[tuple[int, bytes]], utf8: bool | None = None) -> Parsed:
    """The TS SDK's line parser, reporting each skipped line.

    Lines of a whole buffer (``NumberedLines``) are read in place, never copied, and
    each line is first glanced at (``lazyrows.py``): a conversation row is kept
    undecoded with its facts (short rows too: what a decoded row costs in memory,
    several times its line, is what a long chain cannot afford), a line of another type
    only reported; the rest, and every line of other inputs, is parsed at once.
    ``utf8``: whether that buffer is UTF-8, when the caller knows (False: every line is
    parsed at once); unknown, the lines with bytes that are not are reported when the
    diagnostics are read (``Parsed.findings``): the glance does not check the strings it
    skips, and such a row is decoded exactly when read.
    """
    facts: list[Facts] = []
    parsed = Parsed(facts=facts)
    buffer: bytes | None = None
    if isinstance(lines, NumberedLines) and utf8 is not False:
        buffer = lines.data
        parsed.entries = LazyEntries()
        if utf8 is None:
            parsed.unchecked = lines
    tally = queued.DeliveryTally()
    if buffer is None:
        numbered = lines.views() if isinstance(lines, NumberedLines) else \
            ((number, raw, 0) for number, raw in lines)
        for number, raw, start in numbered:
            _parse_line(parsed, tally, number, raw, start, None, None)
    elif native_glance is None or type(buffer) is not bytes:  # C reads ``bytes`` alone
        _glance_lines(parsed, tally, lines.views(), buffer)  # type: ignore[union-attr]
    else:  # plain rows in C, the rest by ``_parse_line``
        refused = partial(_parse_line, parsed, tally)
        spans = lines.in_order()  # type: ignore[union-attr]
        if spans is None:
            native_glance.glance_lines(lines.views(), buffer,  # type: ignore[union-attr]
                                       parsed.entries, parsed.lines, facts, refused)
        else:
            native_glance.glance_spans(buffer, spans[0], lines.first_line,  # type: ignore[union-attr]
                                       spans[1], parsed.entries, parsed.lines, facts, refused)
    parsed.delivered = tally.counts()
    return parsed


def _glance_lines(parsed: Parsed, tally: queued.DeliveryTally,
                  numbered: Iterable[tuple[int, bytes | memoryview, int]], buffer: bytes) -> None:
    """The hot loop of a large file: each line glanced at as it is, a conversation row kept
    as a ``Pending`` with its facts (``glanced_row`` and ``glance_facts`` written out here:
    one pass over the glance's fields, no call per row); a line the glance refuses (a
    leading byte up to 0x20 that is not JSON whitespace, an empty line, anything msgspec
    does not accept) goes through ``_parse_line``, as does any row the glance leaves to
    the decoded value."""
    entries, numbers, facts = parsed.entries, parsed.lines, parsed.facts
    peek, refused = _GLANCE.decode, (msgspec.DecodeError, RecursionError)
    keep, number_of, fact_of = entries.append, numbers.append, facts.append  # type: ignore[union-attr]
    kinds, main_writer, undefined = KINDS, MAIN_WRITER, UNDEFINED
    previous = None  # the last glanced row's uuid: most rows' parent
    for number, raw, start in numbered:
        try:
            seen = peek(raw)
        except refused:
            previous = _parse_line(parsed, tally, number, raw, start, buffer, previous)
            continue
        kind, uuid = seen.type, seen.uuid
        if type(uuid) is not str or type(kind) is not str or kind not in _GLANCED or (
                kind == "system" and seen.subtype == "voice_call_talk"):
            if not _glanced(parsed, number, seen):
                _parse_line(parsed, tally, number, raw, start, None, None)
            continue
        kind = kinds[kind]
        parent, side, team, agent = seen.parent_uuid, seen.is_sidechain, seen.team_name, \
            seen.agent_id
        if parent == previous:
            parent = previous
        if side is None or side is False:
            eligible = team is None or not truthy(team)
            main = True
        else:
            eligible = not truthy(side) and (team is None or not truthy(team))
            main = False
        message_id = answers = None
        calls: tuple[str, ...] = ()
        message = seen.message
        if message is not None:
            if kind == "assistant":
                found = message.id
                if type(found) is str:
                    message_id = found
            content = message.content
            if type(content) is list:
                for block in content:
                    block_type = block.type
                    if block_type == "tool_result":
                        if answers is None:
                            answers = ()
                        value = block.tool_use_id
                        if type(value) is str:
                            answers += (value,)
                    elif block_type == "tool_use" and kind == "assistant":
                        value = block.id
                        if type(value) is str:
                            calls += (value,)
        source = seen.source
        meta = seen.is_meta
        plain = main and team is None and (meta is None or meta is False) \
            and seen.quiet is None and seen.host_hidden is None and seen.ran_by is None
        keep(Pending(buffer, start, plain) if answers is None
             else Pending(buffer, start, plain, None, kept_stamp(seen.timestamp)))
        number_of(number)
        fact_of((uuid, kind, parent, False if kind == "progress" else eligible, message_id,
                 calls, answers, source if type(source) is str else None,
                 main_writer if main and agent is undefined else writer(side, agent)))
        previous = uuid


def _parse_line(parsed: Parsed, tally: queued.DeliveryTally, number: int,
                raw: bytes | memoryview, start: int, buffer: bytes | None,
                previous: str | None) -> str | None:
    """One line as the SDK parses it: leading bytes up to 0x20 skipped, then glanced at
    when ``buffer`` is the UTF-8 buffer the line lies in, else (or when the glance leaves
    it) decoded at once. Returns the uuid of the row it kept undecoded, else ``previous``."""
    entries, numbers, diagnostics, facts = parsed.entries, parsed.lines, parsed.diagnostics, \
        parsed.facts
    data = raw
    if raw and raw[0] <= 0x20:
        skipped = _leading(raw)
        data = raw[skipped:]
        start += skipped
    if not data:
        diagnostics.append(Diagnostic(number, "blank", "empty or whitespace-only line"))
        return previous
    if buffer is not None:
        try:
            seen = _GLANCE.decode(data)
        except (msgspec.DecodeError, RecursionError):
            seen = None
        if seen is not None:
            kept = glanced_row(buffer, start, seen, previous)
            if kept is not None:
                entries.append(kept[0])  # type: ignore[arg-type]
                numbers.append(number)
                facts.append(kept[1])  # type: ignore[union-attr]
                return seen.uuid  # type: ignore[no-any-return]
            if _glanced(parsed, number, seen):
                return previous
    try:
        value = orjson.loads(data)  # the fast path; parse_line handles what orjson refuses
    except (orjson.JSONDecodeError, RecursionError):
        try:
            value, replaced = parse_line(bytes(data))
        except JsonError as error:
            diagnostics.append(Diagnostic(number, "invalid-json", f"not JSON: {error}"))
            return previous
        if replaced:
            diagnostics.append(Diagnostic(number, "invalid-utf8", INVALID_UTF8))
    if type(value) is not dict:
        if value is None:
            diagnostics.append(Diagnostic(number, "not-an-object", "JSON null is not an entry"))
            return previous
        kind = type(value).__name__
        diagnostics.append(Diagnostic(number, "not-an-object", f"JSON {kind} is not an entry"))
        return previous
    kind = value.get("type")
    if type(kind) is not str:
        kind = None  # a list or object type is in no set (JS ``Set.has`` by identity)
    if kind == "system":
        value = rewrite_voice_call(value)
        kind = value.get("type")
    if kind in MESSAGE_TYPES and type(value.get("uuid")) is str:
        entries.append(value)
        numbers.append(number)
        facts.append(facts_of(value))  # type: ignore[union-attr]  # now, while it is in the cache
    elif kind == "host-row" and type(value.get("ranByToolUseId")) is str:
        parsed.host_rows.append(value)
        parsed.host_lines.append(number)
    elif kind in MESSAGE_TYPES:
        diagnostics.append(
            Diagnostic(number, "missing-uuid", f"{kind} entry without a string uuid")
        )
    else:
        diagnostics.append(_ignored(number, kind))
    if kind == "attachment" or kind == "queue-operation":
        tally.add(value)
    return previous


def glanced_row(buffer: bytes, start: int, seen: Glance,
                previous: str | None) -> tuple[Pending, Facts] | None:
    """A glanced line kept as a row undecoded (the ``Pending`` at ``start`` of ``buffer``
    and its facts), or None when the parser does not keep it so. The 2.1.88 loader's,
    whose glance of a row is the one the SDK's parser would make; the SDK parser's own
    loop (``_glance_lines``) writes the same steps out, and ``tests/test_reference_lazy.py``
    holds both to ``facts_of`` of the decoded row."""
    kind = seen.type
    if type(kind) is str and kind in _GLANCED and type(seen.uuid) is str and (
            kind != "system" or seen.subtype != "voice_call_talk"):
        meta, side = seen.is_meta, seen.is_sidechain
        facts = glance_facts(seen, previous)
        plain = (meta is None or meta is False) and (side is None or side is False) \
            and seen.quiet is None and seen.host_hidden is None and seen.ran_by is None \
            and seen.team_name is None
        if facts[ANSWERS] is None:
            return Pending(buffer, start, plain), facts
        return Pending(buffer, start, plain, None, kept_stamp(seen.timestamp)), facts
    return None


def _glanced(parsed: Parsed, number: int, seen: Glance) -> bool:
    """Account for a glanced line that is not a row kept undecoded (the loop keeps those);
    False: it needs parsing now.

    ``seen`` holds the line's graph fields (``lazyrows.glance``).
    """
    kind = seen.type
    if type(kind) is not str:
        kind = None
    if kind in _PARSED_AT_ONCE or (kind == "system" and seen.subtype == "voice_call_talk"):
        return False
    if kind not in _GLANCED:
        parsed.diagnostics.append(_ignored(number, kind))
    else:
        parsed.diagnostics.append(
            Diagnostic(number, "missing-uuid", f"{kind} entry without a string uuid")
        )
    return True


def _leading(raw: bytes | memoryview) -> int:
    """How many bytes up to 0x20 start the line (the SDK skips them), a chunk at a time:
    a line of a gigabyte of NUL bytes is never copied whole, and a chunk of nothing but
    such bytes is recognised by deleting them (``translate``, far faster than ``lstrip``)."""
    at, size = 0, _FIRST_CHUNK
    while at < len(raw):
        chunk = bytes(raw[at : at + size])
        if chunk.translate(None, _LEADING):
            return at + len(chunk) - len(chunk.lstrip(_LEADING))
        at += len(chunk)
        size = _LEADING_CHUNK
    return len(raw)


def _ignored(number: int, kind: Any) -> Diagnostic:
    if type(kind) is str:
        detail = f"type {kind!r} is not part of the conversation for this reader"
        return Diagnostic(number, "ignored-type", detail)
    return Diagnostic(number, "ignored-type", "entry without a string type")


def is_tool_result_entry(entry: Json, parent: Any) -> bool:
    """A user entry with a parent and at least one tool_result block."""
    if entry.get("type") != "user" or not truthy(parent):
        return False
    content = prop(entry.get("message"), "content")
    if type(content) is not list:
        return False
    return any(type(b) is dict and b.get("type") == "tool_result" for b in content)
