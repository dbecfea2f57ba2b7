"""Host rows: tool calls a host ran on the model's behalf, shown or hidden as the SDK does.

An assistant row can name tool calls its host ran (``hostHiddenToolUseIds``)
or be such a call itself (``ranByToolUseId``); ``host-row`` lines carry the
blocks. The TS SDK keeps virtual rows that hang below such assistants, adds
the host's calls and results as virtual rows, and hides the calls the host
asked to hide. Rows travel with their line numbers as ``(row, line)`` pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rechain.reference.js.values import UNDEFINED, key, prop, strict_equal
from rechain.reference.model import Json

Row = tuple[Json, int]


def is_host_assistant(row: Any) -> bool:
    """An assistant row that carries host tool calls."""
    return (
        type(row) is dict
        and ("hostHiddenToolUseIds" in row or "ranByToolUseId" in row)
        and row.get("type") == "assistant"
        and (
            type(row.get("hostHiddenToolUseIds")) is list or type(row.get("ranByToolUseId")) is str
        )
    )


def _is_block(value: Any, kind: str) -> bool:
    return type(value) is dict and value.get("type") == kind


def _content(message: Any) -> list[Any]:
    content = prop(message, "content")
    return content if type(content) is list else []


def keep_virtual_followers(chain: list[Row], entries: list[Json], lines: list[int]) -> list[Row]:
    """Virtual host rows hanging below a host assistant join the chain."""
    if not any(is_host_assistant(row) for row, _ in chain):
        return chain
    taken = {row["uuid"] for row, _ in chain}
    parents = {p for row, _ in chain if type(p := row.get("parentUuid")) is str}
    child_of: dict[str, Row] = {}
    for entry, line in zip(entries, lines, strict=True):
        if entry["uuid"] not in taken and type(parent := entry.get("parentUuid")) is str:
            child_of[parent] = (entry, line)
    out: list[Row] = []
    for row, line in chain:
        out.append((row, line))
        follower = child_of.get(row["uuid"])
        if row.get("isVirtual") is True or follower is None:
            continue
        if is_host_assistant(row) and follower[0].get("type") == "user":
            taken.add(follower[0]["uuid"])
            follower = child_of.get(follower[0]["uuid"])
        elif follower[0].get("type") == "attachment" and (
            row.get("type") != "user" or row["uuid"] in parents
        ):
            continue
        while follower is not None and follower[0]["uuid"] not in taken:
            candidate = follower[0]
            taken.add(candidate["uuid"])
            if candidate.get("isVirtual") is True and (
                is_host_assistant(candidate)
                or (candidate.get("type") == "user" and is_host_assistant(out[-1][0]))
            ):
                out.append(follower)
            elif candidate.get("type") != "attachment":
                break
            follower = child_of.get(candidate["uuid"])
    return out


def add_host_calls(
    rows: list[Row], entries: list[Json], host_rows: list[Json], host_lines: list[int]
) -> list[Row]:
    """The host's own tool calls and results, as virtual rows after their assistant."""
    if not host_rows:
        return rows
    known = {e["uuid"] for e in entries}
    withheld: set[Any] = set()
    results: dict[tuple[str, Any], tuple[Json, int]] = {}
    calls: dict[tuple[str, Any], list[tuple[Json, int]]] = {}
    for host, line in zip(host_rows, host_lines, strict=True):
        block = host.get("block")
        row_uuid = host.get("rowUuid")
        if host.get("withheld") is True:
            withheld.add(key(host.get("ranByToolUseId")))
        elif type(row_uuid) is not str or row_uuid in known:
            continue
        elif _is_block(block, "tool_result"):
            block_key = key(block.get("tool_use_id", UNDEFINED))
            if block_key is not None:
                results[block_key] = (host, line)
        elif _is_block(block, "tool_use"):
            known.add(row_uuid)
            calls.setdefault(key(host.get("ranByToolUseId")), []).append((host, line))  # type: ignore[arg-type]
    out: list[Row] = []
    for row, line in rows:
        out.append((row, line))
        hidden = row.get("hostHiddenToolUseIds")
        if row.get("isVirtual") is True or type(hidden) is not list:
            continue
        for tool_use_id in hidden:
            ran_by = key(tool_use_id)
            found = [] if ran_by in withheld else calls.get(ran_by, [])  # type: ignore[arg-type]
            calls.pop(ran_by, None)  # type: ignore[arg-type]
            for host, host_line in found:
                out.append((_virtual(row, host, "assistant"), host_line))
                answer = results.get(key(host["block"].get("id", UNDEFINED)))  # type: ignore[arg-type]
                if answer is not None:
                    out.append((_virtual(row, answer[0], "user"), answer[1]))
    return out


def _virtual(owner: Json, host: Json, role: str) -> Json:
    row: Json = {"type": role, "uuid": host["rowUuid"], "parentUuid": None}
    row["sessionId"] = owner.get("sessionId", UNDEFINED)
    stamp = host.get("timestamp")
    row["timestamp"] = stamp if type(stamp) is str else UNDEFINED
    row["isVirtual"] = True
    row["ranByToolUseId"] = host.get("ranByToolUseId", UNDEFINED)
    row["message"] = {"role": role, "content": [host.get("block")]}
    return row


def _host_copy(row: Json, block: Json, field: str) -> list[Any] | None:
    """The row's ``hostContent`` when it holds exactly this block's twin."""
    host = row.get("hostContent")
    content = host if type(host) is list else []
    kind = block.get("type")
    same = [b for b in content if _is_block(b, kind if type(kind) is str else str(kind))]
    if (
        len(same) == 1
        and strict_equal(same[0].get(field, UNDEFINED), block.get(field, UNDEFINED))
        and strict_equal(same[0].get("name", UNDEFINED), block.get("name", UNDEFINED))
    ):
        return content
    return None


@dataclass(frozen=True, slots=True)
class _Hiding:
    """What ``hide_host_calls`` learns row by row and later rows ask about."""

    repeated: set[Any]  # keys of tool_use ids two assistant blocks carry: never hidden
    hidden_message: dict[str, Any]  # hidden call id -> its message
    replacement: dict[Any, Row]  # call key -> the host's twin row, waiting for the result
    virtual_calls: set[Any]  # keys of virtual host calls


def hide_host_calls(rows: list[Row]) -> list[Row]:
    """Remove hidden host calls and their results; show host content where due."""
    if not any(is_host_assistant(row) for row, _ in rows):
        return list(rows)
    hiding = _Hiding(_repeated_calls(rows), {}, {}, set())
    out: list[Row] = []
    for row, line in rows:
        message = row.get("message")
        if type(message) is not dict:
            out.append((row, line))
        elif is_host_assistant(row):
            out += _host_assistant(row, line, message, hiding)
        elif row.get("type") == "user":
            out += _host_answer(row, line, message, hiding)
        else:
            out.append((row, line))
    return out


def _repeated_calls(rows: list[Row]) -> set[Any]:
    """Keys of the tool_use ids that more than one assistant block carries."""
    seen: set[Any] = set()
    repeated: set[Any] = set()
    for row, _ in rows:
        message = row.get("message")
        if row.get("type") == "assistant" and type(message) is dict:
            for block in _content(message):
                if _is_block(block, "tool_use"):
                    block_key = key(block.get("id", UNDEFINED))
                    (repeated if block_key in seen else seen).add(block_key)
    return repeated


def _host_assistant(row: Json, line: int, message: Json, hiding: _Hiding) -> list[Row]:
    """A host assistant without its hidden calls (a lone hidden call's host twin waits for
    its result), or a virtual host call shown with the host's content."""
    content = _content(message)
    hidden = row.get("hostHiddenToolUseIds")
    hidden_ids = hidden if type(hidden) is list else []
    kept = []
    for block in content:
        if _is_block(block, "tool_use") and type(block.get("id")) is str \
                and block["id"] in hidden_ids and ("s", block["id"]) not in hiding.repeated:
            hiding.hidden_message[block["id"]] = message
        else:
            kept.append(block)
    first = content[0] if content else UNDEFINED
    if len(kept) < len(content):
        host = row.get("hostContent")
        twin = host[0] if type(host) is list and host else UNDEFINED
        if len(content) == 1 and _is_block(first, "tool_use") and _is_block(twin, "tool_use") \
                and strict_equal(twin.get("id", UNDEFINED), first.get("id", UNDEFINED)):
            hiding.replacement[key(first.get("id", UNDEFINED))] = (
                {**row, "message": {**message, "content": [twin]}}, line)
        return [({**row, "message": {**message, "content": kept}}, line)] if kept else []
    if type(row.get("ranByToolUseId")) is not str or row.get("isVirtual") is not True \
            or len(content) != 1 or not _is_block(first, "tool_use"):
        return [(row, line)]
    hiding.virtual_calls.add(key(first.get("id", UNDEFINED)))
    base = hiding.hidden_message.get(row["ranByToolUseId"], message)
    shown = _host_copy(row, first, "id")
    return [({**row, "message": {**base, "content": shown if shown is not None else content}},
             line)]


def _host_answer(row: Json, line: int, message: Json, hiding: _Hiding) -> list[Row]:
    """A user row: the host's content for the result of a host call (after the call's
    waiting twin), without the results of hidden calls (dropped when that is all)."""
    content = _content(message)
    results = [b for b in content if _is_block(b, "tool_result")]
    single = results[0] if len(results) == 1 else None
    single_key = key(single.get("tool_use_id", UNDEFINED)) if single is not None else None
    pending = hiding.replacement.get(single_key) if single_key is not None else None
    shown_content = None
    if single is not None and (
        single.get("is_error") is True
        if pending is not None
        else row.get("isVirtual") is True and single_key in hiding.virtual_calls
    ):
        shown_content = _host_copy(row, single, "tool_use_id")
    if shown_content is not None:
        updated = ({**row, "message": {**message, "content": shown_content}}, line)
        if single_key is not None:
            hiding.replacement.pop(single_key, None)
        return [updated] if pending is None else [pending, updated]
    dropped = [b for b in results
               if type(b.get("tool_use_id")) is str and b["tool_use_id"] in hiding.hidden_message]
    if not dropped:
        return [(row, line)]
    if len(dropped) == len(results):
        return []
    remaining = [b for b in content if not any(b is d for d in dropped)]
    trimmed = {**row, "message": {**message, "content": remaining}}
    trimmed["toolDenialKind"] = UNDEFINED
    trimmed["toolDenialUnanswered"] = UNDEFINED
    return [(trimmed, line)]
