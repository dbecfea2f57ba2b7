"""The CLI's transcript load: rows into a uuid map, checkpoints, repairs, the leaf, the walk.

Claude Code 2.1.332 (``claude --resume <id>``) differs from the SDK readers in
ways that change what the model sees: it loads rows whatever their uuid is,
drops user and assistant rows whose ``message`` is unusable (and re-parents
their children), bridges legacy progress rows, honours ``last-prompt``
checkpoints, picks the *last written* main-chain row as the tip, and repairs a
missing or cyclic parent with a 5-second timestamp bridge.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from itertools import chain, compress, filterfalse, islice, repeat
from operator import eq, itemgetter
from typing import Any

import orjson

from rechain.reference.facts import (
    CALLS,
    KIND,
    KINDS,
    MAIN_WRITER,
    PARENT,
    facts_of,
    glance_facts,
    writer,
)
from rechain.reference.graph import Graph
from rechain.reference.js.jsonl import Consecutive, Skipped, join_lines, read_values
from rechain.reference.js.values import UNDEFINED, describe, truthy
from rechain.reference.lazyrows import LazyEntries, Pending
from rechain.reference.model import Diagnostic, Json, findings
from rechain.reference.parse import Parsed, rewrite_voice_call
from rechain.reference.profiles.claude_code_2_1_332.glance import (
    CLI_GLANCE,
    CliGlance,
    kept_as_written,
)
from rechain.reference.profiles.claude_code_2_1_332.read import Guessed
from rechain.reference.profiles.claude_code_2_1_332.release import LATEST, CliRelease
from rechain.reference.read import SNAPSHOT_PREFIX
from rechain.reference.rows import is_boundary

STATE = "claude-code"
NULL_LINE_ERROR = "Failed to resume session: null is not an object"
PRESERVED_ERROR = ("Failed to resume session: undefined is not an object (evaluating "
                   "'w.preserved.uuids.length')")
ROW_TYPES = frozenset({"user", "assistant", "attachment", "system"})
BRIDGE_MS = 5000
PROGRESS_FINDING = "legacy progress row: its children are re-parented"


@dataclass(slots=True)
class LoadState:
    """What the CLI's loader remembers while it reads rows in file order."""

    last_row: str | None = None  # the last main-chain row written
    newest_row: str | None = None  # the main-chain row with the greatest timestamp string
    newest_stamp: str = ""
    checkpoint: Any = None  # the last last-prompt leafUuid
    explicit: bool = False  # that checkpoint was explicit and nothing was written since
    ever_explicit: bool = False  # some checkpoint was explicit
    saw_checkpoint: bool = False  # some last-prompt entry carried a leafUuid
    cleared: bool = False  # an explicit empty checkpoint ends the file
    trailing_snapshots: int = 0  # file_snapshot rows written since the last main-chain row
    dropped: dict[str, Any] = field(default_factory=dict)  # unusable rows: uuid -> parent
    relink_tail: str | None = None  # the tail of the preserved segment, when relinked
    # rows that hold a tool_use block though their facts name no call
    odd_calls: set[str] = field(default_factory=set)
    # some assistant row's ``message.id`` is truthy but not a string (so not in its facts)
    odd_ids: bool = False
    # user and assistant rows recovery may put back as asides: virtual ones, meta user rows
    asides: set[str] = field(default_factory=set)
    # (place among the rows loaded, uuid) of each system and attachment row, in file order
    sides: list[tuple[int, str]] = field(default_factory=list)
    failure: str | None = None  # why this release's resume fails on the file (exit 1)


def key_of(value: Any, place: str) -> str:
    """The uuid index key: strings as they are, other JSON values tagged (a JS ``Map`` key).

    An object or array is a key by identity, never found again; ``place`` (the field and
    line it was read from) makes that key unique and the same in every run.
    """
    if type(value) is str:
        return value
    if value is UNDEFINED:
        return "\x00undefined"
    if type(value) in (dict, list):
        return f"\x00object:{place}"
    return "\x00" + orjson.dumps(value).decode()


def key_text(key: str) -> str:
    """A key as a diagnostic names it: a string uuid as itself, any other value described."""
    if not key.startswith("\x00"):
        return key
    if key.startswith("\x00object:"):
        return "an object or array uuid"
    return describe(raw_uuid(key))


def raw_uuid(key: str) -> Any:
    """The uuid value a key stands for (None for a missing uuid or an object)."""
    if not key.startswith("\x00"):
        return key
    if key == "\x00undefined" or key.startswith("\x00object:"):
        return None
    return orjson.loads(key[1:])


def state_of(graph: Graph) -> LoadState:
    """The loader state the parse stage left for the later stages."""
    state = graph.extras.get(STATE)
    return state if isinstance(state, LoadState) else LoadState()


def _usable_message(row: Json, release: CliRelease = LATEST) -> Json | None:
    """The row, a repaired copy, or None when the CLI drops it."""
    message = row.get("message")
    if type(message) is not dict:
        return None
    content = message.get("content")
    if type(content) is str:
        if row["type"] != "assistant" or not release.assistant_text_content_read:
            return row
        if content.strip() == "":
            return None
        return {**row, "message": {**message, "content": [{"type": "text", "text": content}]}}
    if type(content) is not list:
        return None
    kept = [b for b in content if type(b) is dict and type(b.get("type")) is str]
    if len(kept) == len(content):
        return row
    if not kept:
        return None
    return {**row, "message": {**message, "content": kept}}


def is_snapshot_row(row: Json) -> bool:
    """A ``file_snapshot`` system row (never the tip, never a bridge target)."""
    return row.get("type") == "system" and row.get("subtype") == "file_snapshot"


def _forks(row: Json) -> bool:
    attachment = row.get("attachment")
    return (
        row.get("type") == "attachment"
        and type(attachment) is dict
        and attachment.get("type") == "fork_briefing"
    )


def parse_cli(lines: Iterable[tuple[int, bytes]], release: CliRelease = LATEST,
              glance: Callable[[memoryview], CliGlance] | None = CLI_GLANCE) -> Parsed:
    """Stage 2 for the CLI: the JSONL reader, then the loader's per-row dispatch.

    A line that is one object is glanced at (``glance.py``; ``glance=None`` decodes
    every line): a conversation row the loader keeps as written stays undecoded
    (``lazyrows.Pending``) with its facts, and a line of another type is only accounted
    for; any other is decoded and dispatched.
    """
    if isinstance(lines, Guessed):
        if glance is not None:  # the guess is checked on the glances
            found = _parse(lines, release, glance, lines)
            if found is not None:
                return found
        # a line was not glanced, or is a snapshot the guess does not decide: read as the
        # exact read would (from the last plain boundary found before it, if any)
        source = lines.exact()
        found = _parse(source.numbered_lines(), release, glance, None)
        lines.sink[:] = source.diagnostics  # its snapshots' too, found while split
        return found  # type: ignore[return-value]
    return _parse(lines, release, glance, None)  # type: ignore[return-value]


def _parse(lines: Iterable[tuple[int, bytes]], release: CliRelease,
           glance: Callable[[memoryview], CliGlance] | None, guess: Guessed | None
           ) -> Parsed | None:
    """``parse_cli`` of the lines; with ``guess``, None as soon as a line is not glanced
    at or is a snapshot the exact read decides. A plain compact boundary found on the way
    starts the load over at its line, in the same pass: the lines before it are not read
    (the exact read's lines are those from the last one on); an attribution snapshot is
    held, the one held before dropped, and read after every other line."""
    parsed, state = _fresh()
    data, end, numbers = join_lines(lines)
    # a whole buffer's pieces are not counted to know there are some (``Consecutive``)
    if not (data if isinstance(numbers, Consecutive) else numbers):
        return parsed
    seen: set[str] = set()
    bridge: dict[str, Any] = {}
    # the lines where nothing starts, found as the gaps between the pieces read (items come
    # in the pieces' order, which a moved snapshot line makes another than the lines'): no
    # set of every line read
    blank: list[range] = []
    read_to = -1  # the last piece read
    pieces = {} if isinstance(numbers, Consecutive) else {n: i for i, n in enumerate(numbers)}
    piece = (numbers.piece if isinstance(numbers, Consecutive)
             else lambda number: pieces.get(number, len(numbers)))
    # a whole buffer's piece of a line is its number less the first (``Consecutive.piece``)
    first = numbers.first if isinstance(numbers, Consecutive) else None
    # the hot loop of a large file: its lookups bound once
    entries, kept_lines, facts = parsed.entries, parsed.lines, parsed.facts
    keep, known, odd, asides = list.append, seen.add, state.odd_calls, state.asides
    previous: str | None = None  # the last glanced row's uuid: most rows' parent
    prefixed = data.startswith
    text_read = release.assistant_text_content_read
    # the progress rows' and ignored lines' numbers (by type): their findings are made at once
    progress: list[int] = []
    ignored: dict[str, list[int]] = {}
    # with ``guess``: the last attribution snapshot met, read after every other line, and
    # the lines of those before it (dropped)
    held: list[Any] = []
    dropped: list[int] = []
    for item in chain(read_values(data, numbers, end, glance), _last(held)):
        if type(item) is tuple:
            number, glanced, start = item
            at = number - first if first is not None else piece(number)
            if guess is not None:
                if prefixed(SNAPSHOT_PREFIX, start):
                    if held and item is held[-1]:
                        at = read_to  # read last: its line was accounted for when met
                    elif (start and data[start - 1] != 0x0A) \
                            or glanced.subtype == "compact_boundary":
                        return None  # after spaces or a BOM, or a boundary too: the exact read
                    else:
                        dropped += [held[-1][0]] if held else []
                        held[:] = [item]
                        if at > read_to + 1:
                            blank.append(range(read_to + 1, at))
                        read_to = at
                        continue
                elif glanced.subtype == "compact_boundary" and guess.plain_at(start, number):
                    # the load starts over at this line, as if the file began there
                    parsed, state = _fresh()
                    seen, bridge, blank, read_to, previous = set(), {}, [], at - 1, None
                    progress, ignored = [], {}
                    held.clear()  # in place: the snapshot read last is taken from this list
                    dropped.clear()
                    entries, kept_lines, facts = parsed.entries, parsed.lines, parsed.facts
                    known, odd, asides = seen.add, state.odd_calls, state.asides
            if at > read_to + 1:
                blank.append(range(read_to + 1, at))
            read_to = at
            kind = glanced.type
            if type(kind) is not str or kind not in ROW_TYPES:
                if kind == "progress" and type(uuid := glanced.uuid) is str:
                    # ``_glanced_other`` of the most common line of another type, its
                    # finding made with the others of its kind at the end
                    parent = glanced.parent_uuid
                    parent = None if parent is UNDEFINED else parent
                    bridge[uuid] = (bridge.get(parent) if truthy(parent) and type(parent) is str
                                    and parent in bridge else parent)
                    keep(progress, number)
                    continue
                if type(kind) is str and kind != "last-prompt":
                    keep(ignored.setdefault(kind, []), number)
                    continue
                if not _glanced_other(parsed, bridge, number, glanced):
                    _dispatch(parsed, state, seen, bridge, number,
                              Pending(data, start).fresh(), release)
                continue
            uuid, parent, message = glanced.uuid, glanced.parent_uuid, glanced.message
            # most rows are loaded here, their facts with them (``kept_as_written``,
            # ``glance_facts`` and ``_loaded`` written out: one pass over the blocks, no
            # call per row): a main-chain user or assistant row with a string uuid, a
            # string parent no progress row bridged or none, no ``sentAsUuid``, and blocks
            # typed by strings or a string the release keeps as it is
            if glanced.is_sidechain is False and type(uuid) is str and message is not None \
                    and (kind == "assistant" or (kind == "user" and glanced.sent_as is None)) \
                    and (parent is None or (type(parent) is str
                                            and not (bridge and parent and parent in bridge))):
                content = message.content
                calls: tuple[str, ...] = ()
                answers: tuple[str, ...] | None = None
                made = False  # a tool_use block, whether its id is a string or not
                if type(content) is list:
                    typed = True
                    for block in content:
                        block_type = block.type
                        if type(block_type) is not str:
                            typed = False
                            break
                        if block_type == "tool_result":
                            answers = () if answers is None else answers
                            if type(value := block.tool_use_id) is str:
                                answers += (value,)
                        elif block_type == "tool_use":
                            made = True
                            if kind == "assistant" and type(value := block.id) is str:
                                calls += (value,)
                else:
                    typed = type(content) is str and (kind == "user" or not text_read)
                if typed:
                    message_id = None
                    if kind == "assistant":
                        if type(found := message.id) is str:
                            message_id = found
                        elif found is not None and truthy(found):
                            state.odd_ids = True
                    if parent == previous:
                        parent = previous
                    team, source, agent = glanced.team_name, glanced.source, glanced.agent_id
                    known(uuid)
                    keep(entries, Pending(data, start))
                    keep(kept_lines, number)
                    keep(facts, (uuid, KINDS[kind], parent, team is None or not truthy(team),
                                 message_id, calls, answers,
                                 source if type(source) is str else None,
                                 MAIN_WRITER if agent is UNDEFINED else writer(False, agent)))
                    previous = uuid
                    if made and not calls:
                        odd.add(uuid)
                    if glanced.virtual is True or (kind == "user" and glanced.is_meta is True):
                        asides.add(uuid)
                    state.last_row = uuid
                    state.trailing_snapshots = 0
                    stamp = glanced.timestamp
                    if type(stamp) is str and stamp > state.newest_stamp:
                        state.newest_row, state.newest_stamp = uuid, stamp
                    state.explicit = state.cleared = False
                    continue
            if not kept_as_written(glanced, seen, bridge, release):
                _dispatch(parsed, state, seen, bridge, number,
                          Pending(data, start).fresh(), release)
                continue
            known(uuid)
            keep(entries, Pending(data, start))
            keep(kept_lines, number)
            fact = glance_facts(glanced, previous)
            keep(facts, fact)
            previous = uuid
            if message is not None:
                if not fact[CALLS] and type(message.content) is list:
                    for block in message.content:
                        if block.type == "tool_use":
                            odd.add(uuid)
                            break
                if kind == "assistant" and type(found := message.id) is not str \
                        and found is not None and truthy(found):
                    state.odd_ids = True
            if glanced.virtual is True or (kind == "user" and glanced.is_meta is True):
                asides.add(uuid)
            if kind == "system" or kind == "attachment":
                state.sides.append((len(entries) - 1, uuid))
            _loaded(state, glanced, kind, uuid, release)
            continue
        if guess is not None:  # not glanced: what its line holds is left to the exact read
            return None
        at = piece(item.line)
        if at > read_to + 1:
            blank.append(range(read_to + 1, at))
        read_to = max(read_to, at)
        if isinstance(item, Skipped):
            kind = "text-after-value" if item.after_value else "invalid-json"
            parsed.diagnostics.append(Diagnostic(item.line, kind, item.reason))
            continue
        _dispatch(parsed, state, seen, bridge, item.line, item.value, release)
        if item.last > item.line:
            parsed.diagnostics.append(Diagnostic(
                item.line + 1, "continued", f"the rest of the value that starts on line "
                f"{item.line}", item.last))
            read_to = max(read_to, piece(item.last))
    if len(numbers) > read_to + 1:
        blank.append(range(read_to + 1, len(numbers)))
    if dropped and guess is not None:
        guess.dropped(dropped)
    parsed.diagnostics += findings(progress, "progress", PROGRESS_FINDING)
    for kind, numbered in ignored.items():
        parsed.diagnostics += findings(numbered, "ignored-type",
                                       f"type {kind!r} is not a conversation row")
    parsed.diagnostics.extend(Diagnostic(numbers[at], "blank",
                                         "only whitespace: no value starts here")
                              for gap in blank for at in gap)
    return parsed


def _last(held: list[Any]) -> Iterator[Any]:
    """The last item of ``held`` as it is once every item before has been read."""
    yield from held[-1:]


def _fresh() -> tuple[Parsed, LoadState]:
    """An empty load: no row read yet."""
    parsed = Parsed(entries=LazyEntries(), facts=[])
    state = LoadState()
    parsed.extras[STATE] = state
    return parsed, state


def _glanced_other(parsed: Parsed, bridge: dict[str, Any], number: int,
                   glanced: CliGlance) -> bool:
    """``_dispatch`` of a glanced line that is not a row kept as written, from its fields;
    False: it needs decoding (a conversation row the loader rewrites or drops, a
    checkpoint)."""
    kind = glanced.type
    if (type(kind) is str and kind in ROW_TYPES) or kind == "last-prompt":
        return False
    if kind == "progress" and type(glanced.uuid) is str:
        parent = glanced.parent_uuid
        parent = None if parent is UNDEFINED else parent
        bridge[glanced.uuid] = (bridge.get(parent) if truthy(parent) and type(parent) is str
                                and parent in bridge else parent)
        parsed.diagnostics.append(Diagnostic(number, "progress", PROGRESS_FINDING))
        return True
    detail = f"type {kind!r} is not a conversation row" if type(kind) is str else "no type"
    parsed.diagnostics.append(Diagnostic(number, "ignored-type", detail))
    return True


def _loaded(state: LoadState, glanced: CliGlance, kind: str, uuid: str,
            release: CliRelease) -> None:
    """What a row kept as written tells the loader (``_add_row``'s bookkeeping)."""
    side, subtype = glanced.is_sidechain, glanced.subtype
    if kind == "system" and subtype == "file_snapshot":  # ``is_snapshot_row``
        state.trailing_snapshots += 1
    elif (side is False or side is None or not truthy(side)) and not (
            kind == "attachment" and release.fork_briefing_passed_over
            and glanced.attachment is not None and glanced.attachment.type == "fork_briefing"):
        state.last_row = uuid
        state.trailing_snapshots = 0
        stamp = glanced.timestamp
        if type(stamp) is str and stamp > state.newest_stamp:
            state.newest_row, state.newest_stamp = uuid, stamp
        state.explicit = False
        state.cleared = False
    if kind == "system" and subtype == "compact_boundary":  # ``is_boundary``
        state.checkpoint = None
        state.explicit = state.ever_explicit = False


def _dispatch(
    parsed: Parsed,
    state: LoadState,
    seen: set[str],
    bridge: dict[str, Any],
    number: int,
    value: Any,
    release: CliRelease,
) -> None:
    if type(value) is not dict:
        kind = "null" if value is None else type(value).__name__
        if value is None and not release.null_line_ignored and state.failure is None:
            state.failure = NULL_LINE_ERROR
        parsed.diagnostics.append(Diagnostic(number, "not-an-object", f"JSON {kind} is not a row"))
        return
    kind = value.get("type")
    row = value
    if kind == "system" and release.voice_call_talk_rows:  # only a system row is rewritten
        row = rewrite_voice_call(value)
        kind = row.get("type")
    sent_as = row.get("sentAsUuid")
    if kind == "user" and type(sent_as) is str and sent_as and sent_as not in seen:
        row = {k: v for k, v in row.items() if k != "sentAsUuid"} | {"uuid": sent_as}
    if kind == "progress" and type(row.get("uuid")) is str:
        parent = row.get("parentUuid")
        bridge[row["uuid"]] = (bridge.get(parent) if truthy(parent) and type(parent) is str
                               and parent in bridge else parent)
        parsed.diagnostics.append(Diagnostic(number, "progress", PROGRESS_FINDING))
        return
    if type(kind) is str and kind in ROW_TYPES:
        _add_row(parsed, state, seen, bridge, number, row, release)
    elif kind == "last-prompt":
        _checkpoint(state, row, number)
        parsed.diagnostics.append(Diagnostic(
            number, "metadata", "a last-prompt checkpoint: the tip may come from it"))
    else:
        detail = f"type {kind!r} is not a conversation row" if type(kind) is str else "no type"
        parsed.diagnostics.append(Diagnostic(number, "ignored-type", detail))


def _add_row(
    parsed: Parsed,
    state: LoadState,
    seen: set[str],
    bridge: dict[str, Any],
    number: int,
    row: Json,
    release: CliRelease = LATEST,
) -> None:
    # most rows have a string uuid and a string or null parent that no progress row
    # bridged: nothing to change, no key to make
    raw = row.get("uuid", UNDEFINED)
    uuid = raw if type(raw) is str else key_of(raw, f"uuid@{number}")
    parent = row.get("parentUuid", UNDEFINED)
    changes: Json | None = None if type(raw) is str else {"uuid": uuid}
    if type(parent) is str:
        if bridge and parent and parent in bridge:
            changes = (changes or {}) | {"parentUuid": bridge[parent]}
    elif parent is not None and parent is not UNDEFINED and truthy(parent):
        changes = (changes or {}) | {"parentUuid": key_of(parent, f"parentUuid@{number}")}
    if changes:
        row = {**row, **changes}
    kind = row["type"]
    if kind == "user" or kind == "assistant":
        usable = _usable_message(row, release)
        if usable is None:
            if uuid not in seen:
                state.dropped[uuid] = row.get("parentUuid")
            parsed.diagnostics.append(
                Diagnostic(number, "unusable-message", "message or content unusable: row dropped")
            )
            return
        row = usable
    seen.add(uuid)
    if kind == "system" or kind == "attachment":
        state.sides.append((len(parsed.entries), uuid))
    parsed.entries.append(row)
    parsed.lines.append(number)
    fact = facts_of(row)  # now, while it is hot
    parsed.facts.append(fact)  # type: ignore[union-attr]
    message = row.get("message")
    if type(message) is dict:  # what recovery cannot tell from the facts (``LoadState``)
        content = message.get("content")
        if not fact[CALLS] and type(content) is list and any(
                type(b) is dict and b.get("type") == "tool_use" for b in content):
            state.odd_calls.add(uuid)
        found = message.get("id")
        if kind == "assistant" and type(found) is not str and truthy(found):
            state.odd_ids = True
    if row.get("isVirtual") is True or (kind == "user" and row.get("isMeta") is True):
        state.asides.add(uuid)
    side = row.get("isSidechain")
    if kind == "system" and row.get("subtype") == "file_snapshot":  # ``is_snapshot_row``
        state.trailing_snapshots += 1
    elif (side is False or side is None or not truthy(side)) \
            and not (kind == "attachment" and release.fork_briefing_passed_over
                     and _forks(row)):
        state.last_row = uuid
        state.trailing_snapshots = 0
        stamp = row.get("timestamp")
        if type(stamp) is str and stamp > state.newest_stamp:
            state.newest_row, state.newest_stamp = uuid, stamp
        state.explicit = False
        state.cleared = False
    if kind == "system" and is_boundary(row):
        state.checkpoint = None
        state.explicit = state.ever_explicit = False


def _checkpoint(state: LoadState, row: Json, number: int) -> None:
    """A ``last-prompt`` entry: its ``leafUuid`` is a checkpoint the tip may come from."""
    leaf = row.get("leafUuid", UNDEFINED)
    explicit = row.get("explicit") is True
    if leaf is not UNDEFINED:
        state.saw_checkpoint = True
    if truthy(leaf):
        same = state.checkpoint is not None and leaf == state.checkpoint
        state.explicit = explicit or (state.explicit and same)
        state.ever_explicit = explicit or (state.ever_explicit and same)
        state.checkpoint = key_of(leaf, f"leafUuid@{number}")
        state.cleared = False
    elif leaf is None and explicit:
        state.cleared = True
        state.checkpoint = None
        state.explicit = state.ever_explicit = False


# --- after the last row: repairs and compaction ------------------------------------------


def relink_cli(graph: Graph, release: CliRelease = LATEST) -> None:
    """Children of dropped rows re-parented, then the compaction relink and prune."""
    state = state_of(graph)
    nodes = graph.nodes
    if state.dropped:
        # the parents read from the facts: no row decoded to find those of dropped rows
        for uuid, fact in list(graph.facts().items()):
            parent = fact[PARENT]
            if parent is not None and parent is not UNDEFINED and type(parent) is str \
                    and parent not in nodes and parent in state.dropped:
                _set_parent(graph, uuid, _resolve_dropped(parent, nodes, state.dropped))
                graph.diagnostics.append(Diagnostic(
                    graph.line[uuid], "relinked",
                    f"parent {parent} was dropped (unusable message): linked past it"))
    state.relink_tail = _relink_preserved(graph, release)


def _set_parent(graph: Graph, uuid: str, parent: Any) -> None:
    """The row re-parented (a copy: the parsed row stays as it was), its facts with it."""
    graph.nodes[uuid] = {**graph.nodes[uuid], "parentUuid": parent}
    facts = graph.facts()
    fact = facts[uuid]
    facts[uuid] = (*fact[:PARENT], parent, *fact[PARENT + 1:])  # type: ignore[assignment]


def _resolve_dropped(parent: str, nodes: dict[str, Json], dropped: dict[str, Any]) -> Any:
    seen: set[str] = set()
    current: Any = parent
    while current is not None and type(current) is str and current not in nodes \
            and current in dropped:
        if current in seen:
            return None
        seen.add(current)
        current = dropped[current]
        if current is UNDEFINED:
            current = None
    return current


def _relink_preserved(graph: Graph, release: CliRelease) -> str | None:
    """The last boundary with preserved rows relinks them and prunes what preceded it
    (before ``preserved_messages_relinked``, only a ``preservedSegment`` counts)."""
    nodes = graph.nodes
    meta: Json | None = None
    meta_at = last_at = -1
    facts = graph.facts()
    for at, uuid in _systems(graph):
        if is_boundary(row := nodes[uuid]):
            last_at = at
            candidate = row.get("compactMetadata")
            if type(candidate) is dict and not release.preserved_messages_relinked:
                candidate = {k: v for k, v in candidate.items() if k != "preservedMessages"}
            if type(candidate) is dict and (
                truthy(candidate.get("preservedMessages"))
                or truthy(candidate.get("preservedSegment"))
            ):
                meta, meta_at = candidate, at
    if meta is None:
        return None
    live = meta_at == last_at
    listed_meta = meta.get("preservedMessages")
    if live and not release.preserved_messages_checked and truthy(listed_meta) and not (
            type(listed_meta) is dict and type(listed_meta.get("uuids")) is list):
        state_of(graph).failure = state_of(graph).failure or PRESERVED_ERROR
    preserved = _preserved(meta, nodes) if live else None
    if live and preserved is None:
        return None
    listed = preserved if preserved is not None and preserved[1] else None
    # Map.has never matches a non-string key (and a list or object is unhashable here)
    if listed is not None and any(type(u) is not str or u not in nodes for u in listed[1]):
        return None
    uuids = listed[1] if listed else []
    keep = set(uuids)
    if listed is not None:
        anchor = listed[0]
        cursor = anchor
        for uuid in uuids:
            _set_parent(graph, uuid, cursor)
            cursor = uuid
        if type(anchor) is str:
            # the anchor's children picked out in C (a handful among the file's rows)
            facts = graph.facts()
            below = [*compress(facts, map(eq, map(itemgetter(PARENT), facts.values()),
                                          repeat(anchor)))]
            for uuid in below:
                if uuid != uuids[0]:
                    _set_parent(graph, uuid, uuids[-1])
    # relinks replace rows in their places: the first ``last_at`` are those before the
    # last boundary
    pruned = [*filterfalse(keep.__contains__, islice(nodes, max(last_at, 0)))]  # in C
    facts = graph.facts()
    graph.diagnostics += findings([*map(graph.line.__getitem__, pruned)], "pruned",
                                  "written before the last compact boundary: not loaded")
    for uuid in pruned:
        del nodes[uuid]
        del facts[uuid]
    if listed is not None and pruned:
        gone = set(pruned)
        # the rows whose parent was pruned picked out in C (only a string is in ``gone``)
        try:
            orphaned = [*compress(facts, map(gone.__contains__,
                                             map(itemgetter(PARENT), facts.values())))]
        except TypeError:  # a parent that does not hash (a relinked anchor): none is a string
            orphaned = [u for u, f in facts.items() if _in_strings(f[PARENT], gone)]
        for uuid in orphaned:
            if facts[uuid][KIND] in ("user", "assistant"):
                _set_parent(graph, uuid, uuids[-1])
    return uuids[-1] if uuids else None


def _systems(graph: Graph) -> Iterable[tuple[int, str]]:
    """(place in the index, uuid) of each system row, in index order: only a system row
    can be a boundary. The loader noted them as it kept them, which are their places when
    the index holds no uuid twice (``Graph.position`` is then ``Graph.line``); else the
    facts say which they are (picked in C)."""
    facts = graph.facts()
    if graph.position is graph.line:
        return [(at, uuid) for at, uuid in state_of(graph).sides if facts[uuid][KIND] == "system"]
    return compress(enumerate(facts), map(eq, map(itemgetter(KIND), facts.values()),
                                          repeat("system")))


def _in_strings(parent: Any, strings: set[str]) -> bool:
    """Whether ``parent`` is a string among ``strings`` (a parent of any other type never
    is one, nor is looked up: it may not hash)."""
    return type(parent) is str and parent in strings


def _preserved(meta: Json, nodes: dict[str, Json]) -> tuple[Any, list[Any]] | None:
    """(anchor, uuids) listed, or walked from tail to head; None when broken."""
    listed = meta.get("preservedMessages")
    if truthy(listed):
        if type(listed) is not dict:
            return (UNDEFINED, [])
        uuids = listed.get("uuids")
        return (listed.get("anchorUuid", UNDEFINED), list(uuids) if type(uuids) is list else [])
    segment = meta.get("preservedSegment")
    if type(segment) is not dict:
        return None
    head = segment.get("headUuid")
    seen: set[str] = set()
    walked: list[str] = []
    current = nodes.get(segment.get("tailUuid")) if type(segment.get("tailUuid")) is str else None
    while current is not None and current["uuid"] not in seen:
        seen.add(current["uuid"])
        walked.append(current["uuid"])
        if current["uuid"] == head:
            walked.reverse()
            return (segment.get("anchorUuid", UNDEFINED), walked)
        parent = current.get("parentUuid")
        current = nodes.get(parent) if truthy(parent) and type(parent) is str else None
    return None
