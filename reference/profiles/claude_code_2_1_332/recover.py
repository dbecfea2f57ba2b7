"""The CLI's orphan recovery and the rows appended below the tip.

Like the SDK, the CLI puts back, for each API message on the chain, its other
streamed fragments and the tool results hanging off them. Unlike the SDK, it
orders what it recovers by *file position* and interleaves it with the chain
rows of the same turn, and it also recovers the system, attachment and meta
rows that hang off a fragment or a result in a single line. Finally the
system and attachment rows below the tip are appended, oldest timestamp first.
"""

from __future__ import annotations

from typing import Any

from rechain.reference.graph import Graph
from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.model import Diagnostic, Json
from rechain.reference.profiles.claude_code_2_1_332.chain import BY_CHECKPOINT, sidechain_key
from rechain.reference.rows import any_key, message_id, same_writer


def _blocks(row: Json, kind: str, field: str) -> list[str]:
    content = row.get("message")
    content = content.get("content") if type(content) is dict else None
    if type(content) is not list:
        return []
    return [b[field] for b in content
            if type(b) is dict and b.get("type") == kind and type(b.get(field)) is str]


def _has_block(row: Json, kind: str) -> bool:
    content = row.get("message")
    content = content.get("content") if type(content) is dict else None
    return type(content) is list and any(type(b) is dict and b.get("type") == kind
                                         for b in content)


RECOVERED = "claude-code:recovered"


def is_aside(row: Json) -> bool:
    """Attachments, non-boundary system rows and meta user rows without results."""
    kind = row.get("type")
    if kind == "attachment":
        return True
    if kind == "system":
        return row.get("subtype") != "compact_boundary"
    return kind == "user" and row.get("isMeta") is True and not _has_block(row, "tool_result")


def _is_virtual_call(row: Json) -> bool:
    """A virtual assistant call or virtual user result."""
    kind = row.get("type")
    if kind not in ("assistant", "user") or row.get("isVirtual") is not True:
        return False
    return _has_block(row, "tool_use" if kind == "assistant" else "tool_result")


def _in_turn(row: Json, turn_id: Any) -> bool:
    """A row that belongs to the turn of ``turn_id`` when it follows it."""
    kind = row.get("type")
    if kind == "assistant":
        return turn_id is not None and message_id(row) == turn_id
    if kind == "user":
        return row.get("isMeta") is True or _has_block(row, "tool_result")
    if kind == "attachment":
        return True
    if kind == "system":
        return row.get("subtype") != "compact_boundary"
    return False


def recover_cli(graph: Graph, chain: list[Json]) -> list[Json]:
    """The chain with recovered rows, then the tip's system and attachment descendants."""
    seen: set[str] = graph.extras.get("claude-code:seen") or {r["uuid"] for r in chain}
    out = _recover_orphans(graph, chain, seen)
    if chain and not graph.extras.get(BY_CHECKPOINT):
        out = out + _below_tip(graph, chain[-1], seen)
    return out


def _recover_orphans(graph: Graph, chain: list[Json], seen: set[str]) -> list[Json]:
    assistants = [r for r in chain if r.get("type") == "assistant"]
    if not assistants:
        return chain
    nodes = graph.nodes
    groups: dict[Any, list[Json]] = {}
    results_by_parent: dict[Any, list[Json]] = {}
    results: list[Json] = []
    for row in nodes.values():
        kind = row.get("type")
        if kind == "assistant" and truthy(message_id(row)):
            groups.setdefault(any_key(message_id(row)), []).append(row)
        elif kind == "user" and _has_block(row, "tool_result"):
            results.append(row)
    filed: set[tuple[Any, str]] = set()

    def file_under(parent: Any, row: Json) -> None:
        tag = (any_key(parent), row["uuid"])
        if tag not in filed:
            filed.add(tag)
            results_by_parent.setdefault(any_key(parent), []).append(row)

    strays: list[Json] = []
    for row in results:
        parent = row.get("parentUuid")
        if truthy(parent):
            file_under(parent, row)
        owner = nodes.get(parent) if type(parent) is str else None
        calls = set(_blocks(owner, "tool_use", "id")) if owner is not None and \
            owner.get("type") == "assistant" else set()
        answers = _blocks(row, "tool_result", "tool_use_id")
        if answers and all(a in calls for a in answers):
            continue
        strays.append(row)
    caller: dict[str, Json | None] = {}
    if strays:
        for group in groups.values():
            for member in group:
                for call in _blocks(member, "tool_use", "id"):
                    known = caller.get(call, UNDEFINED)
                    caller[call] = member if known is UNDEFINED or (
                        known is not None and message_id(known) == message_id(member)) else None
    for row in strays:
        source = row.get("sourceToolAssistantUUID")
        assistant = nodes.get(source) if type(source) is str and source != row.get(
            "parentUuid") else None
        if assistant is not None and same_writer(row, assistant):
            file_under(assistant["uuid"], row)
        for call in _blocks(row, "tool_result", "tool_use_id"):
            owner = caller.get(call)
            if owner is not None and owner["uuid"] != row.get("parentUuid") \
                    and same_writer(row, owner):
                file_under(owner["uuid"], row)
    on_chain_answers = {a for r in chain for a in _blocks(r, "tool_result", "tool_use_id")}
    late: dict[str, float] = {}
    position = {u: i for i, u in enumerate(nodes)}
    at_chain = {r["uuid"]: i for i, r in enumerate(chain)}
    children: dict[Any, list[Json]] | None = None
    done: set[Any] = set()
    spans: list[tuple[int, int, list[Json], dict[str, list[Json]]]] = []
    for row in assistants:
        mid = message_id(row)
        if not truthy(mid) or any_key(mid) in done:
            continue
        done.add(any_key(mid))
        group = groups.get(any_key(mid)) or [row]
        siblings = [m for m in group if m["uuid"] not in seen]
        direct: list[Json] = []
        others: list[Json] = []
        taken: set[str] = set()
        members = {m["uuid"] for m in group}
        for member in group:
            for result in results_by_parent.get(any_key(member["uuid"]), ()):
                if result["uuid"] in seen or result["uuid"] in taken:
                    continue
                taken.add(result["uuid"])
                parent = result.get("parentUuid")
                (direct if type(parent) is str and parent in members else others).append(result)
        if others:
            answered = set(on_chain_answers)
            for result in direct:
                answered.update(_blocks(result, "tool_result", "tool_use_id"))
            others.sort(key=lambda r: (late.get(r["uuid"], position.get(r["uuid"], 1 << 53)),
                                       position.get(r["uuid"], 1 << 53)))
            last_member = max(position.get(m["uuid"], 1 << 53) for m in group)
            for result in others:
                answers = _blocks(result, "tool_result", "tool_use_id")
                if not any(a not in answered and (o := caller.get(a)) is not None
                           and o["uuid"] in members for a in answers):
                    continue
                answered.update(answers)
                late[result["uuid"]] = max(position.get(result["uuid"], 1 << 53),
                                           last_member + 0.5)
                direct.append(result)
        recovered = siblings + direct
        seen.update(r["uuid"] for r in recovered)
        start = at_chain[row["uuid"]]
        end = start + 1
        for member in group:
            at = at_chain.get(member["uuid"])
            if at is not None and at >= end:
                end = at + 1
        while end < len(chain) and _in_turn(chain[end], mid):
            end += 1
        anchored: dict[str, list[Json]] = {}
        if any(m.get("type") == "assistant" and _has_block(m, "tool_use") for m in group):
            if children is None:
                children = _children(nodes)
            owners = list(group)
            members = {m["uuid"] for m in group}
            for member in group:
                for result in results_by_parent.get(any_key(member["uuid"]), ()):
                    if result["uuid"] in seen and result["uuid"] not in members:
                        members.add(result["uuid"])
                        owners.append(result)
            for owner in owners:
                recovered += _asides_below(owner, children, seen)
            for on_chain in chain[start + 1:end]:
                if is_aside(on_chain):
                    extra = _asides_below(on_chain, children, seen)
                    if extra:
                        anchored[on_chain["uuid"]] = extra
        if not recovered and not anchored:
            continue
        recovered.sort(key=lambda r: (late.get(r["uuid"], position.get(r["uuid"], 1 << 53)),
                                      position.get(r["uuid"], 1 << 53)))
        spans.append((start, end, recovered, anchored))
        graph.extras.setdefault(RECOVERED, set()).update(r["uuid"] for r in recovered)
        for r in recovered:
            graph.diagnostics.append(Diagnostic(
                graph.line[r["uuid"]], "recovered",
                f"off the walked path; put back in the turn of {row['uuid']} by orphan recovery"))
    if not spans:
        return chain
    spans.sort(key=lambda s: s[0])
    merged: list[tuple[int, int, list[Json], dict[str, list[Json]]]] = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            start, end, recovered, anchored = merged[-1]
            rows = sorted(recovered + span[2], key=lambda r: (
                late.get(r["uuid"], position.get(r["uuid"], 1 << 53)),
                position.get(r["uuid"], 1 << 53)))
            joined = dict(anchored)
            for k, v in span[3].items():
                joined[k] = joined.get(k, []) + v
            merged[-1] = (start, max(end, span[1]), rows, joined)
        else:
            merged.append(span)
    out: list[Json] = []
    done_to = 0
    for start, end, recovered, anchored in merged:
        out.extend(chain[done_to:start + 1])
        taken_at = 0
        for on_chain in chain[start + 1:end]:
            here = position.get(on_chain["uuid"], 1 << 53)
            while taken_at < len(recovered) and late.get(
                    recovered[taken_at]["uuid"],
                    position.get(recovered[taken_at]["uuid"], 1 << 53)) < here:
                out.append(recovered[taken_at])
                taken_at += 1
            out.append(on_chain)
            out.extend(anchored.get(on_chain["uuid"], ()))
        out.extend(recovered[taken_at:])
        done_to = end
    out.extend(chain[done_to:])
    return out


def _children(nodes: dict[str, Json]) -> dict[Any, list[Json]]:
    """Rows by truthy parent, in index order."""
    out: dict[Any, list[Json]] = {}
    for row in nodes.values():
        parent = row.get("parentUuid")
        if truthy(parent):
            out.setdefault(any_key(parent), []).append(row)
    return out


def _asides_below(owner: Json, children: dict[Any, list[Json]], seen: set[str]) -> list[Json]:
    """From each child: a single line of same-side aside rows, else nothing."""
    found: list[Json] = []
    for child in children.get(any_key(owner["uuid"]), ()):
        line: list[Json] = []
        current: Json | None = child
        while current is not None:
            if current["uuid"] in seen or not _same_side_aside(current, owner):
                line = []
                break
            line.append(current)
            following = [c for c in children.get(any_key(current["uuid"]), ())
                         if c["uuid"] not in seen]
            if len(following) > 1:
                line = []
                break
            current = following[0] if following else None
        for row in line:
            seen.add(row["uuid"])
        found.extend(line)
    return found


def _same_side_aside(row: Json, owner: Json) -> bool:
    same = sidechain_key(row.get("isSidechain")) == sidechain_key(owner.get("isSidechain"))
    return same and (is_aside(row) or _is_virtual_call(row))


def _below_tip(graph: Graph, tip: Json, seen: set[str]) -> list[Json]:
    """System and attachment rows below the tip, breadth first, by timestamp."""
    below: dict[Any, list[Json]] = {}
    for row in graph.nodes.values():
        parent = row.get("parentUuid")
        if truthy(parent) and row.get("type") not in ("user", "assistant"):
            below.setdefault(any_key(parent), []).append(row)
    found: list[Json] = []
    queue = [tip["uuid"]]
    while queue:
        uuid = queue.pop(0)
        for row in below.get(any_key(uuid), ()):
            if row["uuid"] in seen:
                continue
            seen.add(row["uuid"])
            found.append(row)
            queue.append(row["uuid"])
    if len(found) > 1:
        found.sort(key=_stamp_key)
    for row in found:
        graph.diagnostics.append(Diagnostic(
            graph.line[row["uuid"]], "appended", "below the tip: appended after the chain"))
    return found


def _stamp_key(row: Json) -> Any:
    stamp = row.get("timestamp")
    return (0, stamp) if type(stamp) is str else (1, "")
