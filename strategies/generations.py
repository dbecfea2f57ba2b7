"""Format generations: what changed on disk between Claude Code releases.

Each :class:`Generation` says how a release lays out an entry (key order, stamps,
message key order) and which write-path features it has (source links for parallel
tool results, persisted progress rows, inline sidechains, preserved segments).
Facts come from the real files in ``shared/corpus-real`` (1.0.98, 1.0.108, 2.0.76,
2.1.14, 2.1.38/39) and ``format.md`` §3.3 for the current layout.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from rechain.strategies import rows

Json = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Generation:
    """How one family of releases writes a transcript line."""

    version: str
    #: stamps (userType, cwd, sessionId, version, gitBranch) before the message fields
    stamps_first: bool
    #: tool results carry ``sourceToolAssistantUUID`` and hang off that assistant
    source_links: bool
    #: legacy ``progress`` rows are persisted in the parent chain
    progress: bool
    #: sidechain (subagent) entries go inline into the main file
    inline_sidechains: bool
    #: ``file-history-snapshot`` lines before each prompt
    file_history: bool
    #: ``slug`` stamp and ``preservedSegment``/``preservedMessages`` support
    slug: bool
    preserved: bool
    #: assistant ``message`` keys start with ``model`` (else ``id``)
    model_first: bool
    model: str
    #: ``attachment`` rows (queued commands, hook context) are persisted
    attachments: bool = False


#: Newest first: ``sampled_from`` shrinks toward the current format.
GENERATIONS: tuple[Generation, ...] = (
    Generation("2.1.332", stamps_first=False, source_links=True, progress=False,
               inline_sidechains=False, file_history=True, slug=True, preserved=True,
               model_first=True, model="claude-sonnet-4-5-20250929", attachments=True),
    Generation("2.1.39", stamps_first=True, source_links=True, progress=True,
               inline_sidechains=False, file_history=True, slug=True, preserved=False,
               model_first=True, model="claude-opus-4-6"),
    Generation("2.0.76", stamps_first=True, source_links=False, progress=False,
               inline_sidechains=False, file_history=True, slug=True, preserved=False,
               model_first=True, model="claude-haiku-4-5-20251001"),
    Generation("1.0.98", stamps_first=True, source_links=False, progress=False,
               inline_sidechains=True, file_history=False, slug=False, preserved=False,
               model_first=False, model="claude-sonnet-4-20250514"),
)

BY_VERSION: dict[str, Generation] = {g.version: g for g in GENERATIONS}


@dataclass(frozen=True, slots=True)
class Stamps:
    """The per-session values stamped on every transcript message."""

    session_id: str
    cwd: str
    git_branch: str
    slug: str


def stamp_fields(gen: Generation, stamps: Stamps, agent_id: str | None = None) -> Json:
    """The stamps of one session's lines; ``agent_id`` belongs here only in the stamps-first
    layout. Computed once per session and agent: every line shares the dict (read-only)."""
    if gen.stamps_first:
        return rows.stamps(stamps.session_id, cwd=stamps.cwd, version=gen.version,
                           git_branch=stamps.git_branch, entrypoint=None, agent_id=agent_id,
                           slug=stamps.slug if gen.slug else None)
    return rows.stamps(stamps.session_id, cwd=stamps.cwd, version=gen.version,
                       git_branch=stamps.git_branch, slug=stamps.slug)


def layout(gen: Generation, stamped: Json, chain: Json, own: Json,
           agent_id: str | None = None) -> Json:
    """One line's dict in the generation's key order (:func:`rechain.strategies.rows.row`).

    ``stamped`` comes from :func:`stamp_fields`; ``chain`` holds ``parentUuid``
    (+ ``logicalParentUuid``) and ``isSidechain``; ``own`` the message's own fields in
    their order. ``parentUuid`` is always first; ``agentId`` follows the chain fields, or
    sits in the stamps in the stamps-first layout.
    """
    if gen.stamps_first:
        return rows.row(chain, own, stamped, stamps_first=True)
    if agent_id is not None:
        chain = {**chain, "agentId": agent_id}
    return rows.row(chain, own, stamped)
