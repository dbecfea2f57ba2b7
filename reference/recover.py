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

from rechain.reference.collate import locale_key
from rechain.reference.graph import Graph, ReaderError
from rechain.reference.js import UNDEFINED, key, nullish, prop, strict_equal, to_string, truthy
from rechain.reference.model import Diagnostic, Json
from rechain.reference.parse import is_tool_result_entry


def message_id(entry: Json) -> str | None:
    """``message.id`` of an assistant row (``Oh``); None when absent or not a string."""
    if entry.get("type") != "assistant":
        return None
    value = prop(entry.get("message"), "id")
    return value if type(value) is str else None


def block_ids(entry: Json, kind: str, field: str) -> Iterator[str]:
    """String ``field`` of each ``kind`` block in ``message.content`` (``ip``)."""
    content = prop(entry.get("message"), "content")
    if type(content) is not list:
        return
    for block in content:
        if type(block) is dict and block.get("type") == kind:
            value = block.get(field)
            if type(value) is str:
                yield value


def _same_writer(a: Json, b: Json) -> bool:
    """Equal ``isSidechain`` (null counts as false) and equal ``agentId``."""
    side_a, side_b = a.get("isSidechain"), b.get("isSidechain")
    side_a = False if nullish(side_a) else side_a
    side_b = False if nullish(side_b) else side_b
    return strict_equal(side_a, side_b) and strict_equal(
        a.get("agentId", UNDEFINED), b.get("agentId", UNDEFINED)
    )


_DIGITS_TO_ZERO = str.maketrans("123456789", "000000000")


def _sorted_by_timestamp(rows: list[Json]) -> list[Json]:
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
    """The chain with recovered siblings and results inserted after their anchors."""
    assistants = [row for row in chain if row.get("type") == "assistant"]
    if not assistants:
        return chain
    nodes = graph.nodes
    anchor_of: dict[str, Json] = {}
    for row in assistants:
        mid = message_id(row)
        if mid:
            anchor_of[mid] = row
    on_chain = {row["uuid"] for row in chain}
    # one pass sorts the file's messages: results off the chain (results on it are never
    # recovered) and assistants; owners are needed only for calls those results answer
    results: list[Json] = []
    others: list[Json] = []
    for entry in nodes.values():
        kind = entry.get("type")
        if kind == "assistant":
            others.append(entry)
        elif (
            kind == "user"
            and entry["uuid"] not in on_chain
            and is_tool_result_entry(entry, entry.get("parentUuid"))
        ):
            results.append(entry)
    wanted = {c for row in results for c in block_ids(row, "tool_result", "tool_use_id")}
    groups: dict[str, list[Json]] = {}
    owner: dict[str, Json | None] = {}
    for entry in others:
        message = entry.get("message")
        mid = message.get("id") if type(message) is dict else None
        if type(mid) is not str or not mid:
            continue
        if mid in anchor_of:
            groups.setdefault(mid, []).append(entry)
        if not wanted:
            continue
        content = message.get("content")  # type: ignore[union-attr]
        if type(content) is not list:
            continue
        for block in content:
            if type(block) is dict and block.get("type") == "tool_use":
                call = block.get("id")
                if type(call) is str and call in wanted:
                    known = owner.get(call, UNDEFINED)
                    claimed = known is UNDEFINED or (known is not None and message_id(known) == mid)
                    owner[call] = entry if claimed else None

    filed: dict[tuple[str, Any], list[Json]] = {}
    tags: set[str] = set()

    def file_under(parent: Any, row: Json) -> None:
        tag = to_string(parent) + "\n" + row["uuid"]
        if tag in tags:
            return
        tags.add(tag)
        parent_key = key(parent)
        if parent_key is not None:
            filed.setdefault(parent_key, []).append(row)

    for row in results:
        parent = row.get("parentUuid", UNDEFINED)
        file_under(parent, row)
        source = row.get("sourceToolAssistantUUID")
        if type(source) is str and not strict_equal(source, parent):
            assistant = nodes.get(source)
            if assistant is not None and _same_writer(row, assistant):
                file_under(assistant["uuid"], row)
        for call in block_ids(row, "tool_result", "tool_use_id"):
            assistant = owner.get(call)
            if assistant is not None and _same_writer(row, assistant):
                file_under(assistant["uuid"], row)

    answered_on_chain = {c for row in chain for c in block_ids(row, "tool_result", "tool_use_id")}
    order: dict[str, int] = {}
    done: set[str] = set()
    inserts: dict[str, list[Json]] = {}
    for row in assistants:
        mid = message_id(row)
        if not mid or mid in done:
            continue
        done.add(mid)
        group = groups.get(mid) or [row]
        if len(group) == 1 and ("s", row["uuid"]) not in filed:
            continue  # one fragment, already walked, nothing filed under it
        members = {m["uuid"] for m in group}
        siblings = [m for m in group if m["uuid"] not in on_chain]
        direct: list[Json] = []
        strays: list[Json] = []
        taken: set[str] = set()
        for member in group:
            for result in filed.get(("s", member["uuid"]), ()):
                if result["uuid"] in on_chain or result["uuid"] in taken:
                    continue
                taken.add(result["uuid"])
                parent = result.get("parentUuid")
                (direct if type(parent) is str and parent in members else strays).append(result)
        if strays:
            # calls answered on the chain or by this group's direct results; the chain's
            # set is shared, not copied per group (that copy made recovery quadratic)
            answered: set[str] = set()
            for result in direct:
                answered.update(block_ids(result, "tool_result", "tool_use_id"))
            if not order:
                order = {u: i for i, u in enumerate(nodes)}
            strays.sort(key=lambda r: order.get(r["uuid"], 2**53))
            for result in strays:
                calls = list(block_ids(result, "tool_result", "tool_use_id"))
                if not any(
                    c not in answered
                    and c not in answered_on_chain
                    and (o := owner.get(c)) is not None
                    and o["uuid"] in members
                    for c in calls
                ):
                    continue
                answered.update(calls)
                direct.append(result)
        if not siblings and not direct:
            continue
        recovered = _sorted_by_timestamp(siblings) + _sorted_by_timestamp(direct)
        on_chain.update(r["uuid"] for r in recovered)
        anchor = anchor_of[mid]
        inserts[anchor["uuid"]] = recovered
        for r in recovered:
            graph.diagnostics.append(
                Diagnostic(
                    graph.line[r["uuid"]],
                    "recovered",
                    f"off the walked path; put back after {anchor['uuid']} "
                    f"(line {graph.line[anchor['uuid']]}) by orphan recovery",
                )
            )
    if not inserts:
        return chain
    out: list[Json] = []
    for row in chain:
        out.append(row)
        extra = inserts.get(row["uuid"])
        if extra:
            out.extend(extra)
    return out


__all__ = ["block_ids", "message_id", "recover_orphans", "truthy"]
