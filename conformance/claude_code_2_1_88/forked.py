"""What a forked 2.1.88 resume is read with: the uuids the input had, and a saved result.

A row of the fork whose uuid the input did not have was made up by the CLI (a synthetic
message); ``record --from-dump`` reads results saved as JSON back as ``CliResume``s.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.claude_cli import CliResume
from rechain.reference.profiles.claude_code_2_1_88.parse import numbered_lines, parse_values


def known_uuids(data: bytes) -> set[str]:
    """Every string uuid in the file (rows the CLI did not invent)."""
    found: set[str] = set()
    for _, value in parse_values(numbered_lines(data), []):
        if isinstance(value, dict) and isinstance(value.get("uuid"), str):
            found.add(value["uuid"])
    return found


def dump(result: CliResume | OracleError) -> dict[str, Any]:
    """A result as JSON ``undump`` reads back (a hang or other oracle failure as its text)."""
    if isinstance(result, OracleError):
        return {"oracle_error": str(result)}
    return {"messages": result.messages, "prompt_turn": result.prompt_turn,
            "asked": result.requests if result.first_request is not None else 0,
            "returncode": result.returncode, "stderr": result.stderr, "forked": result.forked}


def undump(path: Path) -> CliResume | OracleError:
    """A saved oracle result back as a ``CliResume`` (or an ``OracleError``)."""
    return load(json.loads(path.read_text("utf-8")))


def load(record: dict[str, Any]) -> CliResume | OracleError:
    """``dump``'s JSON back as a ``CliResume`` (or an ``OracleError``)."""
    if "oracle_error" in record:
        return OracleError(record["oracle_error"])
    return CliResume(messages=record["messages"], prompt_turn=record["prompt_turn"],
                     resumed_parent=None, resumed_leaf=None, appended=[],
                     requests=int(record["asked"]), returncode=record["returncode"],
                     stderr=record["stderr"], first_request={} if record["asked"] else None,
                     forked=record["forked"])
