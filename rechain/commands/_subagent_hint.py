"""How to see a subagent's rows, for ``rechain rebuild`` of a file that shows none of them.

A subagent's transcript (``<session>/subagents/agent-<id>.jsonl``) is all sidechain rows,
which a session's view hides: rebuilt as a session it shows 0 messages, each line
explained as hidden. The rows are read as the subagent's with ``--session ID --agent
AGENT_ID``; this names that command, filled in from the path (or the rows) where it can,
as a note: one line on stderr in the text format, a ``subagent-rows`` note (no line) in
the JSON's diagnostics.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

from rechain import portable
from rechain.reference import Diagnostic, Rebuild
from rechain.reference.sessions import is_session_id

KIND = "subagent-rows"
_SIDECHAIN = "on the chain but not shown: isSidechain"


def subagent_ids(path: Path) -> tuple[str, str] | None:
    """(session id, agent id) of a path laid out as Claude Code writes a subagent's
    transcript (``<session>/subagents/[…/]agent-<id>.jsonl``), else None."""
    name = path.name
    if not (name.startswith("agent-") and name.endswith(".jsonl")):
        return None
    for at, parent in enumerate(path.parents):
        if parent.name == "subagents" and at + 1 < len(path.parents):
            session = path.parents[at + 1].name
            return (session, name[len("agent-"):-len(".jsonl")]) if is_session_id(session) \
                else None
    return None


def _only_sidechain_hidden(result: Rebuild) -> bool:
    """Nothing shown, and every row hidden is hidden for being a sidechain row."""
    if len(result.messages):
        return False
    hidden = [d for d in result.diagnostics if d.kind == "hidden"]
    return bool(hidden) and all(d.detail == _SIDECHAIN for d in hidden)


def _from_rows(data: bytes) -> tuple[str | None, str | None]:
    """The session and agent ids the first row that names them gives."""
    for line in data.split(b"\n", 64)[:64]:
        try:
            row = json.loads(line)
        except ValueError:
            continue
        if isinstance(row, dict) and isinstance(row.get("sessionId"), str):
            agent = row.get("agentId")
            return row["sessionId"], agent if isinstance(agent, str) else None
    return None, None


def _config_dir(path: Path, session: str) -> Path | None:
    """The config dir whose ``projects/<project>/<session>.jsonl`` the subagent's file
    belongs to, when that session transcript is there (``--session`` finds it)."""
    for parent in path.parents:
        if (parent.name == session and parent.parent.parent.name == "projects"
                and parent.with_name(f"{session}.jsonl").is_file()):
            return parent.parent.parent.parent
    return None


def hint(path: Path | None, data: bytes, result: Rebuild, text: bool) -> Diagnostic | None:
    """The note saying how to see the rows, when the file is a subagent's (by its path, or
    by nothing shown but sidechain rows hidden); None otherwise. ``text``: the
    ``--format`` asked for, so the command shown keeps it."""
    ids = subagent_ids(path) if path is not None and str(path) != "-" else None
    if ids is None and not _only_sidechain_hidden(result):
        return None
    session, agent = ids if ids is not None else _from_rows(data)
    words: Sequence[str] = ["rebuild", "--session", session or "SESSION_ID",
                            "--agent", agent or "AGENT_ID"]
    config = _config_dir(path.absolute(), session) if path is not None and session else None
    if config is not None:
        words = [*words, "--config-dir", str(config)]
    if text:
        words = [*words, "--format", "text"]
    return Diagnostic(None, KIND, "these are a subagent's rows (isSidechain), which a session's "
                      f"view hides; to see them: {portable.rechain(words)}")
