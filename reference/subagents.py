"""Subagent transcripts rebuilt as each reader does: the TS SDK and Claude Code 2.1.88.

A subagent writes ``<project>/<session>/subagents/**/agent-<id>.jsonl`` (plus
``agent-<id>.meta.json``). The readers differ: the SDK's
``getSubagentMessages`` loads user/assistant/attachment rows only and walks
from the last user/assistant row in the file; 2.1.88's ``getAgentTranscript``
loads the file like a session, keeps the rows of that agent that are
sidechains, and walks from the newest leaf by timestamp. Pure: bytes in.
"""

from __future__ import annotations

import re
from typing import Any

from rechain.reference import hostrows
from rechain.reference.js.jsonparse import JsonError, parse_text
from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.model import Diagnostic, Json, Options, Rebuild
from rechain.reference.parse import parse_sdk
from rechain.reference.view import mark_queued_and_local, page, session_message

SDK_PROFILE = "agent-sdk@0.3.332"
SEED_PROFILE = "claude-code@2.1.88"
SUBAGENT_TYPES = frozenset({"user", "assistant", "attachment"})
_TOOL_USE_ID = re.compile(r"[A-Za-z0-9_.:-]{1,128}")
_AGENT_ID = re.compile(r"[A-Za-z0-9_-]{1,128}")


def sidecar_ids(meta_text: str | None) -> tuple[Any, Any]:
    """(toolUseId, parentAgentId) from ``agent-<id>.meta.json``; UNDEFINED when unreadable."""
    if meta_text is None:
        return UNDEFINED, UNDEFINED
    try:
        value = parse_text(meta_text)
    except (JsonError, RecursionError):
        return UNDEFINED, UNDEFINED
    if value is None:
        return UNDEFINED, UNDEFINED  # ``null.toolUseId`` throws inside the SDK's try
    if type(value) is not dict:
        return UNDEFINED, UNDEFINED
    return value.get("toolUseId", UNDEFINED), value.get("parentAgentId", UNDEFINED)


def _chain_from_last(entries: list[Json]) -> list[Json]:
    """Walk parents from the last user/assistant row; a repeat ends the walk."""
    by_uuid = {entry["uuid"]: entry for entry in entries}
    leaf = next((e for e in reversed(entries) if e.get("type") in ("user", "assistant")), None)
    chain: list[Json] = []
    seen: set[str] = set()
    current = leaf
    while current is not None:
        if current["uuid"] in seen:
            break
        seen.add(current["uuid"])
        chain.append(current)
        parent = current.get("parentUuid")
        current = by_uuid.get(parent) if truthy(parent) and type(parent) is str else None
    chain.reverse()
    return chain


def sdk_subagent_messages(
    data: bytes, meta_text: str | None = None, options: Options | None = None
) -> Rebuild:
    """``getSubagentMessages`` over one agent file's bytes and its sidecar text."""
    options = options or Options()
    if not data:
        return Rebuild(SDK_PROFILE, None, None, ())
    parsed = parse_sdk(_numbered(data))
    keep = [i for i, e in enumerate(parsed.entries) if e.get("type") in SUBAGENT_TYPES]
    entries = [parsed.entries[i] for i in keep]
    lines = [parsed.lines[i] for i in keep]
    line_of = {id(e): n for e, n in zip(entries, lines, strict=True)}
    chain = _chain_from_last(entries)
    rows = [(row, line_of[id(row)]) for row in chain]
    rows = hostrows.keep_virtual_followers(rows, entries, lines)
    rows = hostrows.add_host_calls(rows, entries, parsed.host_rows, parsed.host_lines)
    marked = mark_queued_and_local([row for row, _ in rows], set(), {}, keep_meta=True)
    rows = [
        (row, line)
        for row, (_, line) in zip(marked, rows, strict=True)
        if row.get("type") in ("user", "assistant")
    ]
    rows = hostrows.hide_host_calls(rows)
    tool_use_id, parent_agent = sidecar_ids(meta_text)
    messages: list[Json] = []
    for row, line in page(rows, options):
        message = session_message(row)
        if type(tool_use_id) is str and _TOOL_USE_ID.fullmatch(tool_use_id):
            message["parent_tool_use_id"] = tool_use_id
        if type(parent_agent) is str and _AGENT_ID.fullmatch(parent_agent):
            message["parent_agent_id"] = parent_agent
        message["line"] = line
        messages.append(message)
    leaf = chain[-1]["uuid"] if chain else None
    diagnostics = tuple(d for d in parsed.diagnostics if d.kind != "ignored-type")
    return Rebuild(SDK_PROFILE, None, leaf, tuple(messages), diagnostics)


def _numbered(data: bytes) -> list[tuple[int, bytes]]:
    pieces = data.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()
    return list(enumerate(pieces, 1))


def seed_agent_transcript(data: bytes, agent_id: str, options: Options | None = None) -> Rebuild:
    """``getAgentTranscript`` of 2.1.88: that agent's sidechain rows, newest leaf, its chain."""
    from rechain.reference.js import date_v8
    from rechain.reference.profiles.claude_code_2_1_88.load import mkey
    from rechain.reference.profiles.claude_code_2_1_88.pipeline import load_bytes
    from rechain.reference.profiles.claude_code_2_1_88.resume import latest, recover, walk

    options = options or Options()
    try:
        loaded = load_bytes(data, options)
    except Exception as error:  # getAgentTranscript returns null on any failure
        return Rebuild(SEED_PROFILE, None, None, (), (), error=str(error))
    mine = [
        e
        for e in loaded.messages.values()
        if e.get("agentId", UNDEFINED) == agent_id and truthy(e.get("isSidechain"))
    ]
    diagnostics = list(loaded.diagnostics)
    if not mine:
        diagnostics.append(Diagnostic(None, "no-agent-rows", f"no sidechain rows of {agent_id}"))
        return Rebuild(SEED_PROFILE, None, None, (), tuple(diagnostics), error="no-conversation")
    parents = {mkey(e.get("parentUuid", UNDEFINED)) for e in mine}
    terminals = [e for e in mine if mkey(e.get("uuid", UNDEFINED)) not in parents]
    leaf = latest(terminals, date_v8.parse, float("-inf"))
    if leaf is None:
        return Rebuild(SEED_PROFILE, None, None, (), tuple(diagnostics), error="no-conversation")
    chain, seen = walk(loaded, leaf)
    try:
        chain = recover(loaded, chain, seen)
    except Exception as error:
        return Rebuild(SEED_PROFILE, None, None, (), tuple(diagnostics), error=str(error))
    messages = []
    for entry in chain:
        if entry.get("agentId", UNDEFINED) != agent_id:
            continue
        shown = {k: v for k, v in entry.items() if k not in ("isSidechain", "parentUuid")}
        shown["line"] = loaded.line_of(entry)
        messages.append(shown)
    return Rebuild(SEED_PROFILE, None, leaf.get("uuid"), tuple(messages), tuple(loaded.diagnostics))
