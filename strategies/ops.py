"""The script vocabulary: one frozen value per thing a Claude Code session does.

A transcript is generated as a list of these operations and then *executed* by
:class:`~rechain.strategies.writer.Writer`; the JSONL lines and the intended
conversation both come out of that execution. Every field has a simplest value
(listed first in each ``Literal`` and used as the default) so that shrinking an
operation means moving its fields to the defaults, and shrinking a script means
deleting operations.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

PromptKind = Literal["text", "blocks", "command", "interrupt", "meta"]
BlockKind = Literal["text", "tool_use", "thinking"]
NoteKind = Literal["stop_hook_summary", "turn_duration", "local_command", "hook_context"]
MetadataKind = Literal[
    "custom-title", "tag", "last-prompt", "summary", "ai-title", "mode", "agent-name",
    "worktree-state", "pr-link", "file-history-snapshot", "queue-operation",
]


@dataclass(frozen=True, slots=True)
class Prompt:
    """A user message typed at the prompt.

    ``pause_ms`` is the gap since the previous entry: 0 writes an equal timestamp, a
    negative value writes clock skew (only drawn when skew is enabled). ``kind``:
    plain text, text blocks, a local slash command (meta caveat + command + stdout),
    an ``[Request interrupted by user]`` marker, or an ``isMeta`` row.
    """

    kind: PromptKind = "text"
    pause_ms: int = 1000


@dataclass(frozen=True, slots=True)
class Reply:
    """One API response streamed as one assistant line per content block, then its tool results.

    ``blocks`` are the content blocks in stream order (all share one ``message.id``).
    ``delays[i]`` orders the results of the tool calls: results are written sorted by
    (delay, call index), so all-zero delays mean in-order completion. ``eager[i]`` writes
    the result of call ``i`` right after its own block (streaming tool execution) instead
    of after the last block. ``unanswered`` leaves the last n calls without a result
    (an interrupted turn). ``hooks`` writes legacy ``hook_progress`` rows after each tool
    use (generations that persisted progress). ``queued`` attaches a queued command after
    the results, answered by a one-block follow-up response. ``skew_ms`` sets the clock
    back before the response, so it carries timestamps older than what it answers (clock
    skew inside a turn; only drawn when skew is enabled); within the response they still
    increase.
    """

    blocks: tuple[BlockKind, ...] = ("text",)
    delays: tuple[int, ...] = ()
    eager: tuple[bool, ...] = ()
    unanswered: int = 0
    hooks: bool = False
    queued: bool = False
    skew_ms: int = 0


@dataclass(frozen=True, slots=True)
class Note:
    """A chain row that is not a user or assistant message: a system row or an attachment."""

    kind: NoteKind = "stop_hook_summary"


@dataclass(frozen=True, slots=True)
class Task:
    """A Task tool call whose subagent writes ``steps`` sidechain replies before it returns.

    The sidechain goes inline into the main file (1.0.x) or into its own subagent file.
    """

    steps: int = 1


@dataclass(frozen=True, slots=True)
class Rewind:
    """Rewind to just before the ``distance + 1``-th most recent prompt.

    Distance 0 abandons the current turn. It takes effect with the next write: the next
    message chains to the last survivor and the abandoned branch stays on disk. A rewind
    that nothing follows writes nothing, so it changes nothing.
    """

    distance: int = 0


@dataclass(frozen=True, slots=True)
class Compact:
    """Compaction: re-appended metadata, a boundary (``parentUuid: null``), the summary.

    ``keep`` > 0 preserves the last ``keep`` turns written since the previous compaction,
    as ``compactMetadata.preservedSegment`` (``style="segment"``) or
    ``preservedMessages`` (``style="messages"``, 2.1.141 and later).
    """

    keep: int = 0
    style: Literal["segment", "messages"] = "segment"
    trigger: Literal["manual", "auto"] = "manual"


@dataclass(frozen=True, slots=True)
class Metadata:
    """A metadata line (not part of the chain); cached kinds are re-appended at the tail later."""

    kind: MetadataKind = "custom-title"
    value: int = 0


Op = Prompt | Reply | Note | Task | Rewind | Compact | Metadata
