"""What the later stages need to know about each entry, gathered once while it is hot.

A 100 MB transcript parses to a few hundred MB of dicts, far more than the CPU
caches hold, and each Python operation per entry costs a measurable share of
the load. So the parser takes these few facts right after ``JSON.parse`` of
each line, and the whole-file passes (leaf choice, the recovery scan,
relinks, the left-out diagnostics) read the small ``Facts`` tuples instead of
the entries; entries are touched again only where a stage acts on them.
Profiles whose parser does not gather them get them computed from the index
on first use (``Graph.facts``): same answers, without the speed-up.

A ``Facts`` is a plain tuple (building one costs a third of a NamedTuple) in
the order ``UUID, KIND, PARENT, ELIGIBLE, MESSAGE_ID, CALLS, ANSWERS, SOURCE,
WRITER``; stages index it with these names. ``SOURCE`` and ``WRITER`` let orphan
recovery file a tool result under its source row without decoding either row.
Every field but ``PARENT`` follows from the entry alone; ``PARENT`` changes with
compaction relinks, and the stage that relinks updates it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rechain.reference.js.values import UNDEFINED, truthy
from rechain.reference.model import Json

if TYPE_CHECKING:
    from rechain.reference.lazyrows import Glance

# uuid, type, parentUuid (UNDEFINED when absent; relinks update it), may end the conversation
# (the SDK's leaf filter), message.id of an assistant row (a string, else None), the tool_use
# ids of an assistant row, the tool_result ids of a row (None when it has no tool_result block),
# sourceToolAssistantUUID when a string (else None), the writer's identity (``writer``)
Facts = tuple[str, Any, Any, bool, "str | None", tuple[str, ...], "tuple[str, ...] | None",
              "str | None", Any]
UUID, KIND, PARENT, ELIGIBLE, MESSAGE_ID, CALLS, ANSWERS, SOURCE, WRITER = range(9)
# the writer of a row with neither isSidechain nor agentId, by far the most common
MAIN_WRITER = (False, UNDEFINED)
KINDS = {kind: kind for kind in ("user", "assistant", "progress", "system", "attachment")}


def writer(side: Any, agent: Any) -> Any:
    """What ``rows.same_writer`` compares, as a value that is equal for two rows exactly
    when it holds; None when the fields' shapes need the rows themselves (``===`` on
    numbers, objects and arrays).

    ``side`` and ``agent`` are ``isSidechain`` and ``agentId`` (``UNDEFINED`` when absent).
    """
    if side is None or side is UNDEFINED:
        side = False
    elif type(side) is not bool and type(side) is not str:
        return None
    if agent is UNDEFINED or agent is None or type(agent) is str:
        return MAIN_WRITER if side is False and agent is UNDEFINED else (side, agent)
    return None


def facts_of(entry: Json, previous: str | None = None) -> Facts:
    """The facts of one indexed entry (a dict with a string ``uuid``).

    Facts outlive the rows of a glancing parser (a million of them on a long chain), so
    they share strings where they can: the row types are the module's own, and a parent
    equal to ``previous`` (the uuid of the row before, usually the parent) is that string.
    """
    get = entry.get
    kind = get("type")
    if type(kind) is str:
        kind = KINDS.get(kind, kind)
    parent = get("parentUuid", UNDEFINED)
    if parent == previous:
        parent = previous
    side, team = get("isSidechain"), get("teamName")
    eligible = (side is None or side is False or not truthy(side)) and (
        team is None or not truthy(team)
    )
    if kind == "progress":
        eligible = False
    elif kind == "attachment" and eligible:
        attachment = get("attachment")
        eligible = not (type(attachment) is dict and attachment.get("type") == "fork_briefing")
    message_id: str | None = None
    calls: tuple[str, ...] = ()
    answers: list[str] | None = None
    message = get("message")
    if type(message) is dict:
        if kind == "assistant":
            found = message.get("id")
            message_id = found if type(found) is str else None
        content = message.get("content")
        if type(content) is list:
            for block in content:
                if type(block) is not dict:
                    continue
                block_type = block.get("type")
                if block_type == "tool_result":
                    if answers is None:
                        answers = []
                    value = block.get("tool_use_id")
                    if type(value) is str:
                        answers.append(value)
                elif block_type == "tool_use" and kind == "assistant":
                    value = block.get("id")
                    if type(value) is str:
                        calls += (value,)
    source = get("sourceToolAssistantUUID")
    return (
        entry["uuid"],
        kind,
        parent,
        eligible,
        message_id,
        calls,
        None if answers is None else tuple(answers),
        source if type(source) is str else None,
        MAIN_WRITER if (side is None or side is False) and "agentId" not in entry
        else writer(side, get("agentId", UNDEFINED)),
    )


def glance_facts(seen: Glance, previous: str | None = None) -> Facts:
    """``facts_of`` of a row the parser only glanced at (``lazyrows.Glance``), read from
    its fields: the same facts as from the decoded row (``tests/test_reference_lazy.py``),
    sharing strings as ``facts_of`` does."""
    kind = seen.type
    if type(kind) is str:
        kind = KINDS.get(kind, kind)
    parent = seen.parent_uuid
    if parent == previous:
        parent = previous
    side, team = seen.is_sidechain, seen.team_name
    eligible = (side is None or side is False or not truthy(side)) and (
        team is None or not truthy(team)
    )
    if kind == "progress":
        eligible = False
    elif kind == "attachment" and eligible:
        attachment = seen.attachment
        eligible = not (attachment is not None and attachment.type == "fork_briefing")
    message_id: str | None = None
    calls: tuple[str, ...] = ()
    answers: list[str] | None = None
    message = seen.message
    if message is not None:
        if kind == "assistant":
            found = message.id
            message_id = found if type(found) is str else None
        content = message.content
        if type(content) is list:
            for block in content:
                block_type = block.type
                if block_type == "tool_result":
                    if answers is None:
                        answers = []
                    value = block.tool_use_id
                    if type(value) is str:
                        answers.append(value)
                elif block_type == "tool_use" and kind == "assistant":
                    value = block.id
                    if type(value) is str:
                        calls += (value,)
    source, agent = seen.source, seen.agent_id
    return (
        seen.uuid,
        kind,
        parent,
        eligible,
        message_id,
        calls,
        None if answers is None else tuple(answers),
        source if type(source) is str else None,
        MAIN_WRITER if (side is None or side is False) and agent is UNDEFINED
        else writer(side, agent),
    )
