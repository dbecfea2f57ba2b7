"""Queued commands that trail the leaf: typed after the last reply, never answered.

They are not on the chain (nothing hangs off them), so the TS SDK looks for
non-message rows below the leaf, depth first in timestamp order, and keeps the
``queued_command`` attachments that do not lead on to a later conversation.
"""

from __future__ import annotations

from operator import itemgetter

from rechain.reference.facts import KIND, Facts
from rechain.reference.graph import Graph
from rechain.reference.js.collate import code_unit_key
from rechain.reference.js.values import truthy
from rechain.reference.lazyrows import chain_uuids
from rechain.reference.model import Json
from rechain.reference.rows import queued_attachment


def trailing_queued_commands(
    entries: list[Json],
    graph: Graph,
    chain: list[Json],
    leaf: Json | None,
    facts: list[Facts] | None = None,
) -> list[Json]:
    """Queued-command attachments hanging below the leaf, in the order the SDK emits them.

    ``facts``, parallel to ``entries`` when the parser gathered them, spare reading
    every entry just to learn that the file has no attachment at all.
    """
    if leaf is None:
        return []
    if facts is not None:
        if "attachment" not in map(_KIND_OF, facts):  # most files: settled in C
            return []
        attachments = (entries[at] for at, f in enumerate(facts) if f[KIND] == "attachment")
    else:
        attachments = (e for e in entries if e.get("type") == "attachment")
    if not any(queued_attachment(e) is not None for e in attachments):
        return []
    below: dict[str, list[Json]] = {}
    for entry in entries:
        if entry.get("type") in ("user", "assistant"):
            continue
        relinked = graph.nodes.get(entry["uuid"])
        original = entry.get("parentUuid")
        current = relinked.get("parentUuid") if relinked is not None else None
        for parent in (original, current) if current != original else (original,):
            if type(parent) is str and parent:  # only a string can match a uuid
                below.setdefault(parent, []).append(entry)
    visited = set(chain_uuids(chain))
    latest = {e["uuid"]: e for e in entries}
    leads_on: set[str] = set()
    for entry in entries:
        if entry.get("type") not in ("user", "assistant"):
            continue
        if truthy(entry.get("isSidechain")) or truthy(entry.get("teamName")):
            continue
        if entry["uuid"] in visited:
            continue
        parent = entry.get("parentUuid")
        current = latest.get(parent) if type(parent) is str and parent else None
        while current is not None and current["uuid"] not in visited:
            if current["uuid"] in leads_on:
                break
            leads_on.add(current["uuid"])
            parent = current.get("parentUuid")
            current = latest.get(parent) if type(parent) is str and parent else None
    found: list[Json] = []
    stack: list[Json] = [leaf]
    while stack:
        row = stack.pop()
        if row is not leaf:
            if row["uuid"] in visited:
                continue
            visited.add(row["uuid"])
            if queued_attachment(row) is not None and row["uuid"] not in leads_on:
                found.append(row)
        children = below.get(row["uuid"], [])
        if len(children) > 1:
            children = sorted(children, key=lambda c: code_unit_key(c.get("timestamp")))
        for child in reversed(children):
            if child["uuid"] not in visited:
                stack.append(child)
    return found


_KIND_OF = itemgetter(KIND)
