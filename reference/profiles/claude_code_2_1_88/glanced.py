"""2.1.88's loader keeps a user or assistant row as its bytes and the few fields it reads.

A decoded row costs several times its line; the loader itself reads only a row's uuid,
type, parent and ``isSidechain``, and its resume a few facts of the content (the
recovery's message id and tool results, the deserialisation filters' verdicts). So the
loader glances at each line as the SDK's parser does (``lazyrows.Glance``, with the
fields those filters need) and keeps a ``Glanced`` row: a ``Pending`` span of the buffer
with those facts. Any other field read from it decodes the line again (the exact
``JSON.parse`` value, not kept). A line whose glance cannot decide a field exactly
(a value of an unexpected shape, a snip, a permission mode the resume rewrites, a
non-string tool id) is parsed at once, as before.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from rechain.reference.facts import (
    ANSWERS,
    CALLS,
    KIND,
    KINDS,
    MAIN_WRITER,
    MESSAGE_ID,
    PARENT,
    UUID,
    Facts,
    writer,
)
from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.lazyrows import (
    _JSON_NAMES,
    Block,
    Glance,
    GlancedMessage,
    Pending,
    kept_stamp,
    stamp_of,
)
from rechain.reference.model import Json

_EMPTY = msgspec.Raw()
PERMISSION_MODES = frozenset({"acceptEdits", "bypassPermissions", "default", "dontAsk", "plan"})
THINKING = ("thinking", "redacted_thinking")
# the first character of a JSON string that ``trim()`` keeps: printable ASCII, no escape
_VISIBLE = frozenset(range(0x21, 0x7F)) - {ord('"'), ord("\\")}


class SeedBlock(Block, gc=False):
    """A content block's fields the resume reads (``text`` left undecoded)."""

    name: Any = None
    text: msgspec.Raw = _EMPTY


class SeedMessage(GlancedMessage, gc=False):
    """``message`` with the resume's block fields."""

    content: list[SeedBlock] | str | None = None


class SeedGlance(Glance, gc=False,
                 rename={**_JSON_NAMES, "permission_mode": "permissionMode",
                         "snip": "snipMetadata"}):
    """``lazyrows.Glance`` with what 2.1.88's resume reads of a row (``isSidechain``
    absent told from ``null``: the loader's readers pass it on)."""

    is_sidechain: Any = UNDEFINED
    message: SeedMessage | None = None
    permission_mode: Any = UNDEFINED
    snip: msgspec.Raw = _EMPTY


SEED_GLANCE = msgspec.json.Decoder(SeedGlance)


class LightGlance(msgspec.Struct, gc=False, rename=_JSON_NAMES):
    """The four fields the loader reads of a row before the last compact boundary, which
    the preserved-segment prune most likely drops (the rest of the line is skipped)."""

    uuid: Any = None
    type: Any = None
    parent_uuid: Any = UNDEFINED
    is_sidechain: Any = UNDEFINED


LIGHT_GLANCE = msgspec.json.Decoder(LightGlance)


# Glanced.flags: a message object; a tool_result block; kept by the blank-assistant filter
# unless thinking-only; no TodoWrite call for ``extract_todos``; an assistant's non-empty
# content of thinking blocks only; one with a block that is not thinking
HAS_MESSAGE, RESULTS, PLAIN, TODO_FREE, THINKING_ONLY, OTHER = 1, 2, 4, 8, 16, 32


class Glanced(msgspec.Struct, gc=False, eq=False):
    """A user or assistant row the loader glanced at: the row the SDK's parser keeps
    undecoded (``row``, with its ``facts``: both handed on as they are, so the chain is
    glanced once), and what the resume reads. ``get`` answers the loader's fields from
    them, any other from the line decoded again (not kept)."""

    row: Pending
    facts: Facts
    line: int
    side: Any  # isSidechain: a bool, None, or UNDEFINED when absent
    flags: int

    @property
    def uuid(self) -> str:
        return self.facts[UUID]

    @property
    def kind(self) -> str:
        return self.facts[KIND]  # type: ignore[no-any-return]

    @property
    def mid(self) -> str | None:
        """An assistant's ``message.id`` when a string."""
        return self.facts[MESSAGE_ID]

    @property
    def calls(self) -> tuple[str, ...]:
        """The ids of its tool_use blocks (a user row holding one is not glanced)."""
        return self.facts[CALLS]  # type: ignore[no-any-return]

    @property
    def answers(self) -> tuple[str, ...]:
        """The tool_use_id of each of its tool_result blocks."""
        return self.facts[ANSWERS] or ()

    def fresh(self) -> Json:
        """The row decoded (not kept)."""
        return self.row.fresh()

    def get(self, key: str, default: Any = None) -> Any:
        """``row.get``; the glanced fields without decoding."""
        if key == "uuid":
            return self.facts[UUID]
        if key == "type":
            return self.facts[KIND]
        if key == "parentUuid":
            parent = self.facts[PARENT]
            return default if parent is UNDEFINED else parent
        if key == "isSidechain":
            return default if self.side is UNDEFINED else self.side
        if key == "timestamp":  # a tool result's kept from its glance (``Pending.stamp``)
            return stamp_of(self.row, default)
        return self.fresh().get(key, default)

    def __getitem__(self, key: str) -> Any:
        return self.fresh()[key]

    def __contains__(self, key: object) -> bool:
        return key in self.fresh()

    def items(self) -> Any:
        return self.fresh().items()

    def keys(self) -> Any:
        return self.fresh().keys()

    def __iter__(self) -> Iterator[str]:
        return iter(self.fresh())


class Progress(msgspec.Struct, gc=False, eq=False):
    """A progress row the loader glanced at: all its bridge reads (``uuid`` a string,
    ``parentUuid`` a string, null or absent: ``UNDEFINED``). Only a release that bridges
    progress rows or does not load them is handed one (``parse_values``' ``progress``)."""

    uuid: str
    parent: Any


def progress(seen: SeedGlance | LightGlance) -> Progress | None:
    """The progress row's bridge fields, or None when the row must be decoded."""
    parent = seen.parent_uuid
    if seen.type != "progress" or type(seen.uuid) is not str or not (
            parent is None or parent is UNDEFINED or type(parent) is str):
        return None
    return Progress(seen.uuid, parent)


class Light(msgspec.Struct, gc=False, eq=False):
    """A user or assistant row before the last compact boundary, glanced at for what the
    dispatch and the prune read (uuid, type, parent, ``isSidechain``: the latter two
    ``UNDEFINED`` when absent). A row the prune keeps is read again in full
    (``parse.upgrade``) before any later pass sees it; ``get`` of another field decodes
    the line (not kept)."""

    uuid: str
    kind: str
    parent: Any
    side: Any
    line: int
    data: bytes
    start: int

    def __repr__(self) -> str:
        """The row's place, never its buffer (the whole file)."""
        return f"Light(line={self.line}, start={self.start})"

    def fresh(self) -> Json:
        """The row decoded (not kept)."""
        return Pending(self.data, self.start, False).fresh()

    def get(self, key: str, default: Any = None) -> Any:
        """``row.get``; the glanced fields without decoding."""
        if key == "uuid":
            return self.uuid
        if key == "type":
            return self.kind
        if key == "parentUuid":
            return default if self.parent is UNDEFINED else self.parent
        if key == "isSidechain":
            return default if self.side is UNDEFINED else self.side
        return self.fresh().get(key, default)


def light(data: bytes, start: int, line: int, seen: LightGlance,
          previous: str | None = None) -> Light | None:
    """The row's light glance, or None when the loader must read it in full now (not a
    user or assistant row with a string uuid, a parent and ``isSidechain`` of the shapes
    ``Glanced`` keeps). Its type is the module's string, and a parent equal to
    ``previous`` (the row before's uuid, most rows' parent) is that string: the rows are
    held until the prune, a third less memory."""
    kind, uuid, parent, side = seen.type, seen.uuid, seen.parent_uuid, seen.is_sidechain
    if (kind != "user" and kind != "assistant") or type(uuid) is not str:
        return None
    if parent is not None and parent is not UNDEFINED and type(parent) is not str:
        return None
    if side is not None and side is not UNDEFINED and type(side) is not bool:
        return None
    return Light(uuid, KINDS[kind], parent if parent != previous else previous, side, line,
                 data, start)


def as_dict(entry: Json | Glanced | Light) -> Json:
    """A stored row as a dict (a ``Glanced`` or ``Light`` one decoded, not kept)."""
    if type(entry) is Glanced:
        return entry.row.fresh()  # type: ignore[union-attr,no-any-return]
    return entry.fresh() if type(entry) is Light else entry  # type: ignore[union-attr,return-value]


def glanced(data: bytes, start: int, line: int, seen: SeedGlance,
            previous: str | None) -> Glanced | None:
    """The row kept undecoded, or None when a field it must answer needs the decoded row.

    Its ``Pending`` and facts are those ``parse.glanced_row`` makes of the glance, taken in
    the same pass over the blocks as the resume's flags (half the rows of a long file
    come through here, and a second pass with a call per row cost a tenth of the load);
    ``tests/test_seed_lazy.py`` holds the two to each other."""
    kind, uuid, parent, side = seen.type, seen.uuid, seen.parent_uuid, seen.is_sidechain
    if (kind != "user" and kind != "assistant") or type(uuid) is not str:
        return None
    if parent is not None and parent is not UNDEFINED and type(parent) is not str:
        return None
    if side is not None and side is not UNDEFINED and type(side) is not bool:
        return None
    mode = seen.permission_mode
    if len(seen.snip) or (mode is not UNDEFINED and kind == "user" and not (
            type(mode) is str and mode in PERMISSION_MODES)):
        return None
    flags = PLAIN | TODO_FREE
    message_id = answers = None
    calls: tuple[str, ...] = ()
    message = seen.message
    if message is not None:
        flags |= HAS_MESSAGE
        if kind == "assistant":
            message_id = message.id
            if message_id is not None and type(message_id) is not str:
                return None
        content = message.content
        if type(content) is list:
            thinking_only = True  # every block a thinking one (in the same loop)
            for block in content:
                block_type = block.type
                if block_type == "tool_use":
                    # the facts keep an assistant's calls with string ids
                    if type(block.id) is not str or kind == "user":
                        return None
                    calls += (block.id,)
                    if block.name == "TodoWrite":
                        flags &= ~TODO_FREE
                elif block_type == "tool_result":
                    if type(block.tool_use_id) is not str:
                        return None
                    answers = (block.tool_use_id,) if answers is None \
                        else (*answers, block.tool_use_id)
                    flags |= RESULTS
                if thinking_only and block_type not in THINKING:
                    thinking_only = False
            if kind == "assistant" and content:
                if thinking_only:
                    flags |= THINKING_ONLY
                else:
                    flags |= OTHER
                    if not _not_blank(content):
                        flags &= ~PLAIN
        elif kind == "assistant":
            flags &= ~TODO_FREE  # extract_todos reads it (and throws on a string)
    elif kind == "assistant":
        flags &= ~TODO_FREE
    facts = _facts(seen, kind, parent if parent != previous else previous,
                   None if side is UNDEFINED else side, message_id, calls, answers)
    return Glanced(_pending(data, start, seen, side, answers), facts, line, side, flags)


def _facts(seen: SeedGlance, kind: str, parent: Any, side: bool | None, message_id: Any,
           calls: tuple[str, ...], answers: tuple[str, ...] | None) -> Facts:
    """``facts.glance_facts`` of a user or assistant row whose calls and answers the block
    pass gathered (``side``: an absent ``isSidechain`` read as null, as the SDK's glance)."""
    team, source, agent = seen.team_name, seen.source, seen.agent_id
    return (seen.uuid, KINDS[kind], parent,
            side is not True and (team is None or not truthy(team)),
            message_id, calls, answers, source if type(source) is str else None,
            MAIN_WRITER if side is not True and agent is UNDEFINED else writer(side, agent))


def _pending(data: bytes, start: int, seen: SeedGlance, side: Any,
             answers: tuple[str, ...] | None) -> Pending:
    """``parse.glanced_row``'s ``Pending`` of a user or assistant row."""
    meta = seen.is_meta
    plain = (meta is None or meta is False) and (side is None or side is UNDEFINED
                                                 or side is False) \
        and seen.quiet is None and seen.host_hidden is None and seen.ran_by is None \
        and seen.team_name is None
    if answers is None:
        return Pending(data, start, plain)
    return Pending(data, start, plain, None, kept_stamp(seen.timestamp))


def _not_blank(content: list[SeedBlock]) -> bool:
    """Whether ``hasOnlyWhitespaceTextContent`` is certainly false for this content, from
    its first block (one that is not text, or a text that clearly is not blank, settles
    it); False: let the exact filter decide."""
    block = content[0]
    if block.type != "text":
        return True
    head = memoryview(block.text)[:2]
    return len(head) == 2 and head[0] == 0x22 and head[1] in _VISIBLE
