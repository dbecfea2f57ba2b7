"""Stage 7, orphan recovery: put back what streaming and parallel tools left off the walk.

Claude Code writes one assistant row per content block (same ``message.id``)
and parents each tool result through ``sourceToolAssistantUUID``, so the walk
from the leaf misses sibling rows and the results hanging off them. The TS SDK
re-inserts, after the last on-chain row of each API message: the group's
off-chain rows, then their results (direct children first, then "stray"
results found through the source link or the tool_use id, only when they
answer a call nobody answered yet), each part sorted by timestamp.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rechain.reference.facts import ANSWERS, KIND, MESSAGE_ID, PARENT, UUID, Facts
from rechain.reference.graph import Graph, ReaderError
from rechain.reference.js.collate import locale_key
from rechain.reference.js.values import (
    UNDEFINED,
    key,
    nullish,
    prop,
    strict_equal,
    to_string,
    truthy,
)
from rechain.reference.model import Diagnostic, Json
from rechain.reference.rows import same_writer


def block_ids(entry: Json, kind: str, field: str) -> Iterator[str]:
    """String ``field`` of each ``kind`` block in ``message.content``."""
    content = prop(entry.get("message"), "content")
    if type(content) is not list:
        return
    for block in content:
        if type(block) is dict and block.get("type") == kind:
            value = block.get(field)
            if type(value) is str:
                yield value


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


def sorted_by_timestamp(rows: list[Json]) -> list[Json]:
    """``localeCompare`` on timestamps, throwing where the SDK's comparator throws."""
    if len(rows) < 2:
        return rows
    stamps = [row.get("timestamp") for row in rows]
    for stamp in stamps[1:]:
        if not nullish(stamp) and type(stamp) is not str:
            raise ReaderError("timestamp.localeCompare is not a function (TypeError)")
    if all(type(s) is str and s.isascii() for s in stamps):
        shapes = {s.translate(_DIGITS_TO_ZERO) for s in stamps}  # type: ignore[union-attr]
        if len(shapes) == 1:  # one format, only digits differ: collation is string order
            return sorted(rows, key=lambda r: r["timestamp"])
    return sorted(rows, key=lambda r: locale_key(r.get("timestamp")))


def recover_orphans(graph: Graph, chain: list[Json]) -> list[Json]:
    """The chain with recovered siblings and results inserted after their anchors.

    The scan of the whole file reads the entries' ``Facts`` (``facts.py``);
    entries themselves are read only for the results and rows it recovers.
    """
    facts = graph.facts()
    chain_facts = [facts[row["uuid"]] for row in chain]
    assistants = [f for f in chain_facts if f[KIND] == "assistant"]
    if not assistants:
        return chain
    nodes = graph.nodes
    anchor_of: dict[str, str] = {}  # message.id -> uuid of its last row on the chain
    for fact in assistants:
        if fact[MESSAGE_ID]:
            anchor_of[fact[MESSAGE_ID]] = fact[UUID]  # type: ignore[index]
    on_chain = {f[UUID] for f in chain_facts}
    # one pass sorts the file's messages: results off the chain (results on it are never
    # recovered) and assistants; owners are needed only for calls those results answer
    results: list[Facts] = []
    others: list[Facts] = []
    for fact in facts.values():
        kind = fact[KIND]
        if kind == "assistant":
            if fact[MESSAGE_ID]:
                others.append(fact)
        elif (
            kind == "user"
            and fact[ANSWERS] is not None  # a tool-result entry ...
            and truthy(fact[PARENT])  # ... with a parent
            and fact[UUID] not in on_chain
        ):
            results.append(fact)
    wanted = {c for fact in results for c in fact[ANSWERS]}  # type: ignore[union-attr]
    groups: dict[str, list[str]] = {}  # message.id -> uuids of its rows
    owner: dict[str, Facts | None] = {}  # tool_use id -> the row that made the call
    for fact in others:
        uuid, _, _, _, mid, calls, _ = fact
        if mid in anchor_of:
            groups.setdefault(mid, []).append(uuid)  # type: ignore[arg-type]
        if not wanted:
            continue
        for call in calls:
            if call in wanted:
                known = owner.get(call, UNDEFINED)
                claimed = known is UNDEFINED or (known is not None and known[MESSAGE_ID] == mid)
                owner[call] = fact if claimed else None  # type: ignore[assignment]

    filed: dict[tuple[str, Any], list[Facts]] = {}
    tags: set[str] = set()

    def file_under(parent: Any, row: Facts) -> None:
        if type(parent) is str:  # the usual case, without the general conversions
            tag, parent_key = parent + "\n" + row[UUID], ("s", parent)
        else:
            tag, parent_key = to_string(parent) + "\n" + row[UUID], key(parent)
        if tag in tags:
            return
        tags.add(tag)
        if parent_key is not None:
            filed.setdefault(parent_key, []).append(row)

    for fact in results:
        parent = fact[PARENT]
        file_under(parent, fact)
        row = nodes[fact[UUID]]
        source = row.get("sourceToolAssistantUUID")
        if type(source) is str and not strict_equal(source, parent):
            assistant = nodes.get(source)
            if assistant is not None and same_writer(row, assistant):
                file_under(source, fact)
        for call in fact[ANSWERS]:  # type: ignore[union-attr]
            caller = owner.get(call)
            # the source row itself was just filed (or refused): filing again changes nothing
            if caller is None or caller[UUID] == source:
                continue
            if same_writer(row, nodes[caller[UUID]]):
                file_under(caller[UUID], fact)

    answered_on_chain = {c for f in chain_facts if f[ANSWERS] for c in f[ANSWERS]}  # type: ignore[union-attr]
    order: dict[str, int] = {}
    done: set[str] = set()
    inserts: dict[str, list[Json]] = {}
    for fact in assistants:
        mid = fact[MESSAGE_ID]
        if not mid or mid in done:
            continue
        done.add(mid)
        group = groups.get(mid) or [fact[UUID]]
        if len(group) == 1 and ("s", fact[UUID]) not in filed:
            continue  # one fragment, already walked, nothing filed under it
        members = set(group)
        siblings = [nodes[m] for m in group if m not in on_chain]
        direct: list[Facts] = []
        strays: list[Facts] = []
        taken: set[str] = set()
        for member in group:
            for result in filed.get(("s", member), ()):
                if result[UUID] in on_chain or result[UUID] in taken:
                    continue
                taken.add(result[UUID])
                parent = result[PARENT]
                (direct if type(parent) is str and parent in members else strays).append(result)
        if strays:
            # calls answered on the chain or by this group's direct results; the chain's
            # set is shared, not copied per group (that copy made recovery quadratic)
            answered: set[str] = set()
            for result in direct:
                answered.update(result[ANSWERS])  # type: ignore[arg-type]
            if not order:
                order = {u: i for i, u in enumerate(nodes)}
            strays.sort(key=lambda r: order.get(r[UUID], 2**53))
            for result in strays:
                calls = result[ANSWERS]
                if not any(
                    c not in answered
                    and c not in answered_on_chain
                    and (o := owner.get(c)) is not None
                    and o[UUID] in members
                    for c in calls  # type: ignore[union-attr]
                ):
                    continue
                answered.update(calls)  # type: ignore[arg-type]
                direct.append(result)
        if not siblings and not direct:
            continue
        recovered = sorted_by_timestamp(siblings) + sorted_by_timestamp(
            [nodes[r[UUID]] for r in direct]
        )
        on_chain.update(r["uuid"] for r in recovered)
        anchor = anchor_of[mid]
        inserts[anchor] = recovered
        for r in recovered:
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[r["uuid"]],
                    "recovered",
                    f"off the walked path; put back after {anchor} "
                    f"(line {graph.line[anchor]}) by orphan recovery",
                )
            )
    if not inserts:
        return chain
    out: list[Json] = []
    for row, fact in zip(chain, chain_facts, strict=True):
        out.append(row)
        extra = inserts.get(fact[UUID])
        if extra:
            out.extend(extra)
    return out


__all__ = ["block_ids", "recover_orphans", "truthy"]
