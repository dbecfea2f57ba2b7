"""A toy transcript reader: the kind of code a reader's author tests with rechain's strategies.

It rebuilds the conversation of one Claude Code session file the way the TypeScript Agent
SDK's ``getSessionMessages`` does, for files without compactions and without streamed
responses split over several lines, and it does not bring back tool results left off the
walked path (``examples/test_toy_reader.py`` switches those features off, and the ``cycle``
corruption, which can leave a result off the path). Set ``RECHAIN_TOY_BUG=1`` to plant a
bug: the reader then returns ``isMeta`` rows (the caveat Claude Code writes before a local
slash command's output), which the SDK hides, and its property test catches it.
"""

from __future__ import annotations

import json
import os
from typing import Any

Row = dict[str, Any]
CHAIN_TYPES = ("user", "assistant", "system", "attachment", "progress")


def parse(data: bytes) -> list[Row]:
    """The entries of a JSONL file, in file order; any line that is not one is skipped."""
    rows = []
    for raw in data.split(b"\n"):
        text = raw.decode("utf-8", errors="replace")  # as JavaScript decodes: never fails
        try:
            row = json.loads(text, parse_constant=_reject)  # NaN is not JSON
        except ValueError:
            continue
        if (isinstance(row, dict) and row.get("type") in CHAIN_TYPES
                and isinstance(row.get("uuid"), str)):
            rows.append(row)
    return rows


def _reject(constant: str) -> None:
    raise ValueError(f"{constant} is not JSON")


def message_like(row: Row) -> bool:
    """A user or assistant row, or a queued command (the SDK shows it as a user message)."""
    attachment = row.get("attachment")
    queued = isinstance(attachment, dict) and attachment.get("type") == "queued_command"
    return row["type"] in ("user", "assistant") or (row["type"] == "attachment" and queued)


def shown(row: Row) -> bool:
    """What the SDK returns of the chain: messages, bar meta and sidechain rows."""
    hidden = row.get("isSidechain") or (row.get("isMeta") and not _BUG)
    return message_like(row) and not hidden


def read(data: bytes) -> list[Row]:
    """The conversation: from the last row nothing continues back through its parents."""
    rows: dict[str, Row] = {}
    for row in parse(data):
        rows.pop(row["uuid"], None)  # a later copy counts at its own position
        rows[row["uuid"]] = row
    parent = {uuid: row.get("parentUuid") for uuid, row in rows.items()}
    ends = [u for u, row in rows.items() if row["type"] != "progress"
            and not row.get("isSidechain")]
    continued = {parent[u] for u in ends}
    for leaf in reversed([u for u in ends if u not in continued]):
        chain = _walk(leaf, rows, parent)
        if not any(row["type"] in ("user", "assistant") for row in chain):
            continue  # a row no message leads to cannot end the conversation
        while not message_like(chain[-1]):
            chain.pop()  # rows after the last message are not part of it
        return [row for row in chain if shown(row)]
    return []


def _walk(leaf: str, rows: dict[str, Row], parent: dict[str, Any]) -> list[Row]:
    """``leaf`` and its ancestors, oldest first, up to a missing or repeated parent."""
    chain: list[Row] = []
    seen: set[str] = set()
    node = leaf
    while isinstance(node, str) and node in rows and node not in seen:
        seen.add(node)
        chain.append(rows[node])
        node = parent[node]
    chain.reverse()
    return chain


_BUG = os.environ.get("RECHAIN_TOY_BUG") == "1"
