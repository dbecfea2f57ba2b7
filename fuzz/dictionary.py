"""A libFuzzer dictionary of the transcript format's keys and values.

The byte mutator inserts these tokens whole, so a byte-level mutation can
still produce ``"parentUuid":null`` or ``"compact_boundary"``. Keys the
readers branch on are listed here (from the format spec and the reference);
entry types, flags, timestamps and the known crashers' fragments come from
``vocabulary``, the lists the mutator draws from. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from rechain.fuzz.vocabulary import ENTRY_TYPES, FLAGS, KNOWN_CRASHERS, TIMESTAMPS

KEYS = (
    "type",
    "uuid",
    "parentUuid",
    "logicalParentUuid",
    "sessionId",
    "timestamp",
    "message",
    "role",
    "content",
    "id",
    "text",
    "tool_use_id",
    "sourceToolAssistantUUID",
    "isSidechain",
    "isMeta",
    "teamName",
    "agentId",
    "isCompactSummary",
    "isVisibleInTranscriptOnly",
    "closesQuietTurn",
    "interruptedByShutdown",
    "toolDenialKind",
    "toolDenialUnanswered",
    "toolCallEnded",
    "toolResultRewritten",
    "subtype",
    "compactMetadata",
    "preservedSegment",
    "preservedMessages",
    "headUuid",
    "anchorUuid",
    "tailUuid",
    "uuids",
    "attachment",
    "prompt",
    "commandMode",
    "origin",
    "kind",
    "fold",
    "command",
    "blocks",
    "level",
    "msgV",
    "operation",
    "ranByToolUseId",
    "isQueuedCommand",
    "is_error",
    "cwd",
    "version",
    "gitBranch",
    "userType",
    "requestId",
    "model",
    "stop_reason",
    "usage",
    "name",
    "input",
)
VALUES = (
    "compact_boundary",
    "voice_call_talk",
    "voice-call",
    "queued_command",
    "fork_briefing",
    "tool_use",
    "tool_result",
    "thinking",
    "enqueue",
    "dequeue",
    "remove",
    "task-notification",
    "user-rejected",
    "stream-closed",
    "not_started",
    "No response requested.",
)
RAW = (
    b"null",
    b"true",
    b"false",
    b"NaN",
    b"Infinity",
    b"-0",
    b"1e400",
    b"9007199254740993",
    b"\\ud800",
    b"\\udc00",
    b"\\u0000",
    b"\xef\xbb\xbf",
    b"\r\n",
    b"\r",
    b"\xff",
    b"\xc3",
    b"[]",
    b"{}",
    b'":"',
    b'","',
    b'":{"',
    b'":[',
    b"00000000-0000-4000-8000-000000000000",
    b"2026-11-20T09:00:00.000Z",
    b"msg_",
    b"toolu_",
)


def _quote(token: bytes) -> str:
    """A dictionary entry: the token between quotes, non-printables as ``\\xNN``."""
    out = []
    for byte in token:
        if 0x20 <= byte < 0x7F and byte not in (0x22, 0x5C):
            out.append(chr(byte))
        else:
            out.append(f"\\x{byte:02X}")
    return '"' + "".join(out) + '"'


def tokens(extra_keys: Iterable[str] = ()) -> list[bytes]:
    """Every token: quoted keys with their colon, quoted values, raw fragments."""
    keys = dict.fromkeys((*KEYS, *FLAGS, *extra_keys))
    out = [f'"{k}":'.encode() for k in keys]
    out += [f'"{v}"'.encode() for v in dict.fromkeys((*ENTRY_TYPES, *VALUES, *TIMESTAMPS))]
    out += [*RAW, *KNOWN_CRASHERS]
    return out


def write(path: Path, extra_keys: Iterable[str] = ()) -> Path:
    """Write the dictionary file libFuzzer's ``-dict=`` reads."""
    lines = [f"t{i}={_quote(tok)}" for i, tok in enumerate(tokens(extra_keys))]
    path.write_text("\n".join(lines) + "\n", encoding="ascii")
    return path
