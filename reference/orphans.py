"""Orphan recovery's skeleton: what the walk missed of each API message on the chain.

Claude Code writes one assistant row per content block (same ``message.id``)
and parents each tool result through ``sourceToolAssistantUUID``, so the walk
from the leaf misses sibling rows and the results hanging off them. The TS SDK
and the CLI both find, for each API message on the chain: its rows off the
chain, then the results filed under its rows (their direct children first,
then "strays" filed under a row through the source link or the tool_use id,
kept only when they answer a call of the message nobody answered yet).

What differs between readers is data: which rows group into a message, which
results are filed, which also look beyond their parent, when two filings are
the same (``Rules``). Where the found rows go into the chain is each reader's
own stage (``recover.recover_orphans``, the CLI profile's ``recover_cli``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Container, Hashable, Iterator
from dataclasses import dataclass
from itertools import chain as joined
from itertools import compress, filterfalse, repeat
from operator import and_, is_not, itemgetter, ne, not_
from typing import Any, NamedTuple

from rechain.reference.facts import (
    ANSWERS,
    CALLS,
    KIND,
    MESSAGE_ID,
    PARENT,
    SOURCE,
    UUID,
    WRITER,
    Facts,
)
from rechain.reference.graph import Graph
from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.model import Json
from rechain.reference.rows import any_key, same_writer

# rows of messages: (uuid, message id, tool_use ids) each, in file order
Group = list[tuple[str, Any, tuple[str, ...]]]
_FIRST, _THIRD = itemgetter(0), itemgetter(2)
_UUID_OF, _MESSAGE_OF, _CALLS_OF, _ANSWERS_OF, _PARENT_OF, _SOURCE_OF = (
    itemgetter(UUID), itemgetter(MESSAGE_ID), itemgetter(CALLS), itemgetter(ANSWERS),
    itemgetter(PARENT), itemgetter(SOURCE))
_STRINGS = {str}
_NONES = repeat(None)


def _any_caller(uuid: str) -> bool:
    return True


def _not_known_apart(uuids: list[str]) -> bool:
    return False


def tags_hold_uuid(uuids: list[str]) -> bool:
    """``Rules.tags_apart`` of a tag that holds the result's uuid as a part of its own
    (a tuple): two results' tags always differ."""
    return True


@dataclass(frozen=True, slots=True)
class Rules:
    """What a reader decides its own way while it looks for orphans."""

    # the message id an assistant row groups by; None when it groups with no other row
    message: Callable[[Facts, dict[str, Json]], Any]
    # a tool-result row (a user row with a tool_result block) that is filed under its
    # parent; the second argument is the uuids already on the chain
    is_result: Callable[[Facts, set[str]], bool]
    # a filed result that is also filed under its source row and the rows that made its calls
    looks_further: Callable[[Facts, dict[str, Facts]], bool]
    # (row it is filed under, result uuid) -> what makes two filings the same one
    tag: Callable[[Any, str], Hashable]
    # whether a stray result is found through the row (its uuid key) that made its call
    # (the CLI: not when that uuid is falsy, as a lookup by it finds nothing)
    finds_caller: Callable[[str], bool] = _any_caller
    # ``message`` is the row's ``Facts[MESSAGE_ID]`` when a non-empty string, else None: the
    # scan then passes over, without a call each, the rows of no message on the chain
    # that made no call (most assistant rows of a long file)
    by_message_id: bool = False
    # ``is_result`` is: off the chain, with a parent (a non-empty string or any truthy
    # value): the scan tests it without a call each
    results_off_chain: bool = False
    # whether no two of these results (their uuids) can be filed under the same ``tag``
    # wherever they are filed: the filings of results filed once each need no tag then
    tags_apart: Callable[[list[str]], bool] = _not_known_apart


class Turn(NamedTuple):
    """One API message on the chain and what the walk missed of it (uuids).

    A ``NamedTuple``: built in C, where a frozen dataclass sets each of its eight
    fields with a call (a long chain's recovering turns are thousands)."""

    message: Any  # its message id, as its first row on the chain has it
    first: str  # its first row on the chain
    last: str  # its last row on the chain
    rows: list[str]  # all its rows, in file order
    filed: list[str]  # the results filed under its rows, each once, recovered or not
    siblings: list[str]  # its rows it recovers, in file order
    results: list[str]  # the results it recovers: direct children, then strays
    strays: list[str]  # those of ``results`` found through a source link or call id


def find_orphans(graph: Graph, chain: list[Json], rules: Rules, seen: set[str], *,
                 empty: bool = True, chain_facts: list[Facts] | None = None
                 ) -> Iterator[Turn]:
    """Each API message on the chain, in chain order, with the rows it recovers.

    ``seen`` holds the uuids on the chain (at least); a turn's recovered rows join
    it before the turn is yielded, and rows a caller adds between turns are not
    recovered again. The scan of the whole file reads the entries' ``Facts``.
    Without ``empty``, a turn that recovers nothing is not yielded (most turns of a
    long chain); ``chain_facts``, when the caller has them, are the chain rows' facts.
    """
    if chain_facts is None:
        facts = graph.facts()
        chain_facts = [facts[row["uuid"]] for row in chain]
    on_chain = _messages_on_chain(chain_facts, rules, graph.nodes)
    if not on_chain:
        return
    found = _index(graph, chain_facts, rules, seen, on_chain)
    homes, groups, nothing = found.homes, found.groups, repeat(())
    # ``seen`` only grows: without ``empty``, a message none of whose rows is off the
    # chain or has a result filed under it recovers nothing, and is not looked at
    for key in on_chain if empty else _loose(found, rules, seen, on_chain):
        first, last, message = on_chain[key]
        group = groups[key]
        if len(group) == 1 and first not in homes:  # walked, nothing filed under it
            if empty:
                yield Turn(message, first, last, [first], [], [], [], [])
            continue
        rows = group  # each message's list is read by its turn alone
        siblings = list(filterfalse(seen.__contains__, rows))
        if found.direct_only:  # each filed once, under its parent: a child, not seen yet
            filed = list(joined.from_iterable(map(homes.get, rows, nothing)))
            direct, strays = list(filterfalse(seen.__contains__, filed)), []
        else:
            filed = list(dict.fromkeys(joined.from_iterable(map(homes.get, rows, nothing))))
            direct, strays = _results(found, set(rows), filed, seen) if filed else ([], [])
        if not (empty or siblings or direct or strays):
            continue  # nothing recovered, nothing to add to ``seen``
        seen.update(siblings)
        seen.update(direct)
        seen.update(strays)
        yield Turn(message, first, last, rows, filed, siblings, direct + strays, strays)


def _loose(found: _Index, rules: Rules, seen: set[str],
           on_chain: dict[Any, list[Any]]) -> list[Any]:
    """The keys of the messages, in chain order, with a row off the chain or a row
    results are filed under: the only ones that can recover a row."""
    members = found.members
    rows = members.keys() - seen
    rows.update(filter(members.__contains__, found.homes))
    keys = set(map(members.__getitem__, rows))
    return [key for key in on_chain if key in keys]


@dataclass(frozen=True, slots=True)
class _Index:
    """What the scan of the whole file found, for every turn to look up."""

    facts: dict[str, Facts]
    groups: dict[Any, list[str]]  # message key -> its rows, in file order
    members: dict[str, Any]  # the rows of the messages on the chain -> their message's key
    homes: dict[str, list[str]]  # row uuid -> the results filed under it
    callers: dict[str, str | None]  # tool_use id -> the row that made the call
    answered_on_chain: set[str]  # tool_use ids the chain's results answer (none asked: empty)
    # uuid -> place in the file, filled when a stray is first sorted (only a result that
    # looks further can be a stray, the one thing sorted by file position)
    position: dict[str, int]
    nodes: dict[str, Json]
    # every result filed under a row of a message on the chain is filed under that row
    # alone, its parent: a turn's filed results are then its direct children
    direct_only: bool = False


def _index(graph: Graph, chain_facts: list[Facts], rules: Rules, seen: set[str],
           on_chain: dict[Any, list[Any]]) -> _Index:
    """The file's messages and results, each result filed under the rows it may belong to
    (only those that may be filed under a row of a message on the chain)."""
    facts, nodes = graph.facts(), graph.nodes
    groups, makers, messages, results, members, made = _scan(facts, rules, nodes, seen, on_chain)
    # a call's row is looked up only to be compared with ``members``: the calls a member
    # made are the only ones whose row can be one (a call rows of two messages made is
    # nobody's, so every row that made such a call is still looked at)
    callers = _callers(makers, made, messages)
    if rules.finds_caller is not _any_caller:
        callers = {call: row if row is None or rules.finds_caller(row) else None
                   for call, row in callers.items()}
    homes, direct_only = _filings(nodes, facts, results, callers, rules, members)
    # what the chain's results answer is asked of strays alone: none when all are direct
    answered_on_chain = set() if direct_only else \
        set(joined.from_iterable(filter(None, map(_ANSWERS_OF, chain_facts))))
    return _Index(facts, groups, members, homes, callers, answered_on_chain, {}, nodes,
                  direct_only)


def _results(
    found: _Index, members: set[str], filed: list[str], seen: set[str]
) -> tuple[list[str], list[str]]:
    """The filed results a turn recovers: its rows' children, then the strays (in file
    order) that answer a call one of its rows made and nobody answered yet."""
    facts = found.facts
    direct: list[str] = []
    strays: list[Facts] = []
    for uuid in filed:
        if uuid not in seen:
            fact = facts[uuid]
            parent = fact[PARENT]
            if type(parent) is str and parent in members:
                direct.append(uuid)
            else:
                strays.append(fact)
    if not strays:
        return direct, []
    kept: list[str] = []
    # the chain's answers are one shared set, never copied per turn (that was quadratic)
    answered = {call for uuid in direct for call in facts[uuid][ANSWERS]}  # type: ignore[union-attr]
    if not found.position:
        found.position.update((uuid, at) for at, uuid in enumerate(found.nodes))
    strays.sort(key=lambda fact: found.position.get(fact[UUID], 2**53))
    for fact in strays:
        calls: tuple[str, ...] = fact[ANSWERS]  # type: ignore[assignment]
        if any(c not in answered and c not in found.answered_on_chain
               and found.callers.get(c) in members for c in calls):
            answered.update(calls)
            kept.append(fact[UUID])
    return direct, kept


def _key(message: Any) -> Any:
    """A message's key in ``groups``."""
    return message if type(message) is str else any_key(message)


def _messages_on_chain(
    chain_facts: list[Facts], rules: Rules, nodes: dict[str, Json]
) -> dict[Any, list[Any]]:
    """Message key -> [first row, last row, message id] on the chain, in chain order."""
    found: dict[Any, list[Any]] = {}
    by_id = rules.by_message_id
    for fact in chain_facts:
        if fact[KIND] != "assistant":
            continue
        message = (fact[MESSAGE_ID] or None) if by_id else rules.message(fact, nodes)
        if message is None:
            continue
        key = message if type(message) is str else any_key(message)
        known = found.get(key)
        if known is None:
            found[key] = [fact[UUID], fact[UUID], message]
        else:
            known[1] = fact[UUID]
    return found


def _scan(
    facts: dict[str, Facts], rules: Rules, nodes: dict[str, Json], seen: set[str],
    on_chain: dict[Any, list[Any]],
) -> _Scanned:
    """The file's assistant rows and results, in file order: the rows of each message on
    the chain, every row with a message that made calls, and the results to file.

    With ``by_message_id`` one pass reads every entry's facts, calling no rule for an
    assistant row; else each kind is picked out by a comprehension first."""
    is_result = rules.is_result
    if rules.by_message_id:
        groups: dict[Any, list[str]] = {key: [] for key in on_chain}
        calling: list[Facts] = []
        results: list[Facts] = []
        members: dict[str, Any] = {}
        made: set[str] = set()
        group_of = groups.get
        inline = rules.results_off_chain
        for fact in facts.values():
            kind = fact[KIND]
            if kind == "assistant":
                message = fact[MESSAGE_ID]
                group = group_of(message)  # type: ignore[arg-type]
                if group is not None:
                    group.append(fact[UUID])
                    members[fact[UUID]] = message
                    if fact[CALLS]:
                        made.update(fact[CALLS])
                if fact[CALLS] and message:
                    calling.append(fact)
            elif kind == "user" and fact[ANSWERS] is not None:
                if inline:
                    parent = fact[PARENT]
                    if fact[UUID] not in seen and (
                            parent != "" if type(parent) is str else truthy(parent)):
                        results.append(fact)
                elif is_result(fact, seen):
                    results.append(fact)
        return _Scanned(groups, calling, None, results, members, made)
    values = facts.values()
    assistants = [fact for fact in values if fact[KIND] == "assistant"]
    answering = [fact for fact in values if fact[ANSWERS] is not None and fact[KIND] == "user"]
    rows_of: dict[Any, Group] = {key: [] for key in on_chain}
    makers: list[Facts] = []
    messages: list[Any] = []
    message_of = rules.message
    for fact in assistants:
        message = message_of(fact, nodes)
        if message is not None:
            row = (fact[UUID], message, fact[CALLS])
            key = _key(message)
            found = rows_of.get(key)
            if found is not None:
                found.append(row)
            if row[2]:
                makers.append(fact)
                messages.append(message)
    keyed = {row[0]: key for key, found in rows_of.items() for row in found}
    rows = list(joined.from_iterable(rows_of.values()))
    return _Scanned({key: list(map(_FIRST, found)) for key, found in rows_of.items()}, makers,
                    messages, [fact for fact in answering if is_result(fact, seen)],
                    keyed, set(joined.from_iterable(map(_THIRD, rows))))


class _Scanned(NamedTuple):
    """What ``_scan`` found."""

    groups: dict[Any, list[str]]  # message key -> its rows' uuids, in file order
    makers: list[Facts]  # the rows with a message that made calls, in file order
    messages: list[Any] | None  # their message ids (None: each row's ``Facts[MESSAGE_ID]``)
    results: list[Facts]  # the results to file, in file order
    members: dict[str, Any]  # the rows of the messages on the chain -> their message's key
    made: set[str]  # the calls they made


def _callers(makers: list[Facts], wanted: set[str],
             messages: list[Any] | None = None) -> dict[str, str | None]:
    """tool_use id -> the row that made the call; None when rows of two messages made it
    (rows of one message: the last). Only the ``wanted`` calls are looked up; ``makers``
    are the rows that made calls, in file order, and ``messages`` their message ids
    (None: each row's ``Facts[MESSAGE_ID]``)."""
    callers: dict[str, str | None] = {}
    by_call: dict[str, Any] = {}  # call -> the message id of its caller
    if wanted:  # the rows that made a wanted call, picked out in C
        hits = map(not_, map(wanted.isdisjoint, map(_CALLS_OF, makers)))  # type: ignore[arg-type]
        for at in compress(range(len(makers)), hits):
            fact = makers[at]
            message = fact[MESSAGE_ID] if messages is None else messages[at]
            for call in fact[CALLS]:
                if call in wanted:
                    known = callers.get(call, UNDEFINED)
                    claimed = known is UNDEFINED or (known is not None
                                                     and by_call[call] == message)
                    callers[call] = fact[UUID] if claimed else None
                    by_call[call] = message
    return callers


def _filings(
    nodes: dict[str, Json],
    facts: dict[str, Facts],
    results: list[Facts],
    callers: dict[str, str | None],
    rules: Rules,
    members: Container[str],
) -> tuple[dict[str, list[str]], bool]:
    """Row uuid -> the results filed under it: under its parent, and for a result that
    looks further under its source row and its calls' rows when written by the same writer;
    and whether each result is filed under its parent alone.

    Only ``members`` (the rows of the messages on the chain) are ever looked up, so a
    result none of whose places can be one is passed over (a filing's tag holds the
    result's uuid: leaving it out changes no other result's filings), and whether a
    result looks further is asked only of one that has such a place if it does."""
    # the calls whose row is a member: a result answering one may be filed under it
    reaching = {call for call, row in callers.items() if row in members}
    # picked out by a comprehension: most of a long file's results have no such place
    kept = [fact for fact in results
            if (type(fact[PARENT]) is str and fact[PARENT] in members)
            or fact[SOURCE] in members or not reaching.isdisjoint(fact[ANSWERS])]  # type: ignore[arg-type]
    parents = list(map(_PARENT_OF, kept))
    if _under_parents_alone(kept, parents, callers, members) and \
            rules.tags_apart(list(map(_UUID_OF, kept))):
        return _under_parents(parents, list(map(_UUID_OF, kept))), True
    homes: dict[str, list[str]] = {}
    tags: set[Hashable] = set()
    tag_of, looks_further = rules.tag, rules.looks_further
    for fact in kept:
        uuid, parent = fact[UUID], fact[PARENT]
        further_too = looks_further(fact, facts)
        if type(parent) is str:
            if not further_too and parent not in members:
                continue
            places = [parent] if parent else []
        else:
            if not further_too:
                continue
            places = [parent] if truthy(parent) else []
        if further_too:
            places += _further_homes(nodes, facts, fact, callers)
        for place in places:
            tag = tag_of(place, uuid)
            if tag not in tags:
                tags.add(tag)
                if type(place) is str:
                    homes.setdefault(place, []).append(uuid)
    return homes, False


def _under_parents_alone(kept: list[Facts], parents: list[Any],
                         callers: dict[str, str | None], members: Container[str]) -> bool:
    """Whether each result's one place is its parent, a member: a non-empty string whose
    source row is none or the parent, and every call it answers made by the parent or by
    no row known (the common case: the parent made the call). Its further places, if it
    looks further, are then the parent again: it is filed there alone, whatever the rules.

    Settled in C over all the results: the Python steps of filing one were most of the
    filing's cost."""
    if not set(map(type, parents)) <= _STRINGS or "" in parents or \
            not all(map(members.__contains__, parents)):
        return False
    sources = list(map(_SOURCE_OF, kept))
    if any(map(and_, map(is_not, sources, _NONES), map(ne, sources, parents))):
        return False
    answers: list[tuple[str, ...]] = list(map(_ANSWERS_OF, kept))  # type: ignore[arg-type]
    made_by = list(map(callers.get, joined.from_iterable(answers)))
    asked = joined.from_iterable(map(repeat, parents, map(len, answers)))
    return not any(map(and_, map(is_not, made_by, _NONES), map(ne, made_by, asked)))


def _under_parents(parents: list[str], uuids: list[str]) -> dict[str, list[str]]:
    """Each result filed under its parent alone, in file order (built in C)."""
    homes: dict[str, list[str]] = {}
    deque(map(list.append, map(homes.setdefault, parents, map(list, repeat((), len(parents)))),
              uuids), 0)
    return homes


def _further_homes(
    nodes: dict[str, Json], facts: dict[str, Facts], fact: Facts,
    callers: dict[str, str | None]
) -> list[str]:
    """The result's source row and the rows that made its calls, by the same writer.

    Decided from the rows' facts: a row read here would be decoded for nothing when
    it is not returned (most results of an abandoned branch)."""
    parent, source = fact[PARENT], fact[SOURCE]
    places: list[str] = []
    if source is not None and source != parent:
        assistant = facts.get(source)
        if assistant is not None and _same_writer(nodes, fact, assistant):
            places.append(source)
    for call in fact[ANSWERS]:  # type: ignore[union-attr]
        caller = callers.get(call)
        # filing under the source or the parent again would change nothing
        if caller is not None and caller != source and caller != parent \
                and _same_writer(nodes, fact, facts[caller]):
            places.append(caller)
    return places


def _same_writer(nodes: dict[str, Json], a: Facts, b: Facts) -> bool:
    """``rows.same_writer`` of two rows from their facts; from the rows themselves when a
    writer field has a shape the facts leave to them."""
    first, second = a[WRITER], b[WRITER]
    if first is None or second is None:
        return same_writer(nodes[a[UUID]], nodes[b[UUID]])
    return first == second  # type: ignore[no-any-return]


__all__ = ["Rules", "Turn", "find_orphans", "tags_hold_uuid"]
