"""A large, realistic transcript written fast, for the load benchmark.

Not a Hypothesis strategy: 100 MB must be written in seconds. It follows
Claude Code's write path closely enough to exercise every stage: prompts,
assistant turns split one row per block under a shared ``message.id``,
parallel tool calls whose results chain through ``sourceToolAssistantUUID``,
rewinds that leave dead branches, progress rows, metadata lines, and a
compaction that keeps a preserved segment (so the whole file is still read), or
(``compacted``) a plain auto-compaction after most of the history, as a long session
that ran into its context limit leaves it.
"""

from __future__ import annotations

import random
import uuid as uuidlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import orjson

from rechain.strategies import rows

_WORDS = [
    "the",
    "of",
    "and",
    "to",
    "in",
    "is",
    "it",
    "that",
    "for",
    "on",
    "with",
    "as",
    "this",
    "was",
    "be",
    "by",
    "are",
    "file",
    "test",
    "code",
]


MODEL = "claude-sonnet-4-5"
USAGE = rows.usage(3, 9)


class _Writer:
    def __init__(self, seed: int) -> None:
        self.random = random.Random(seed)
        self.session = str(uuidlib.UUID(int=self.random.getrandbits(128), version=4))
        self.clock = datetime(2026, 11, 1, 9, 0, tzinfo=UTC)
        self.lines: list[bytes] = []
        self.size = 0
        self.cursor: str | None = None
        self.users: list[str] = []
        self.stamps = rows.stamps(self.session, cwd="/home/dev/project", version="2.1.332",
                                  git_branch="main", entrypoint=None)

    def uuid(self) -> str:
        return str(uuidlib.UUID(int=self.random.getrandbits(128), version=4))

    def text(self, low: int, high: int) -> str:
        count = self.random.randint(low, high) // 5 + 1
        return " ".join(self.random.choices(_WORDS, k=count))

    def stamp(self) -> str:
        self.clock += timedelta(milliseconds=self.random.randint(5, 4000))
        return self.clock.strftime("%Y-%m-%dT%H:%M:%S.") + f"{self.clock.microsecond // 1000:03d}Z"

    def write(self, entry: dict[str, object]) -> None:
        line = rows.line(entry)
        self.lines.append(line)
        self.size += len(line)

    def row(self, kind: str, parent: str | None, **fields: object) -> str:
        uuid = self.uuid()
        own: dict[str, object] = {"type": kind, **fields, "uuid": uuid, "timestamp": self.stamp()}
        self.write(rows.row(rows.chain(parent), own, self.stamps))
        return uuid

    def prompt(self) -> None:
        content = rows.user_message(self.text(40, 2000))
        self.cursor = self.row("user", self.cursor, message=content)
        self.users.append(self.cursor)

    def turn(self) -> None:
        message_id = f"msg_{self.random.getrandbits(96):024x}"
        blocks: list[dict[str, object]] = [
            rows.thinking(self.text(100, 1500), "sig" * 20),
            rows.text(self.text(50, 1500)),
        ]
        calls = [
            f"toolu_{self.random.getrandbits(96):024x}"
            for _ in range(self.random.choice((0, 1, 1, 2, 3, 5)))
        ]
        blocks += [rows.tool_use(c, "Read", {"file_path": f"/src/{c[-6:]}.py"}) for c in calls]
        owners: dict[str, str] = {}
        for block in blocks:
            message = rows.assistant_message([block], message_id, model=MODEL, usage=USAGE)
            self.cursor = self.row("assistant", self.cursor, message=message, requestId="req_1")
            if block["type"] == "tool_use":
                owners[str(block["id"])] = self.cursor
        order = list(calls)
        self.random.shuffle(order)
        for call in order:
            if self.random.random() < 0.3:
                self.row("progress", self.cursor, data={"type": "hook_progress"}, toolUseID=call)
            result = rows.user_message([rows.tool_result(call, self.text(200, 20000))])
            self.cursor = self.row(
                "user",
                owners[call],
                message=result,
                sourceToolAssistantUUID=owners[call],
                toolUseResult={"stdout": "ok"},
            )
        if calls:
            closing = f"msg_{self.random.getrandbits(96):024x}"
            message = rows.assistant_message([rows.text(self.text(20, 600))], closing,
                                             model=MODEL, usage=USAGE)
            self.cursor = self.row("assistant", self.cursor, message=message)

    def rewind(self) -> None:
        target = self.random.choice(self.users[-5:])
        self.cursor = self.lines_parent_of(target)

    def lines_parent_of(self, uuid: str) -> str | None:
        for line in reversed(self.lines):
            entry = orjson.loads(line)
            if entry.get("uuid") == uuid:
                return entry.get("parentUuid")
        return None

    def compact(self) -> None:
        head, tail = self.users[-2], self.cursor
        boundary = self.row(
            "system",
            None,
            subtype="compact_boundary",
            content="Conversation compacted",
            isMeta=False,
            level="info",
            logicalParentUuid=self.cursor,
            compactMetadata={
                "trigger": "auto",
                "preTokens": 150000,
                "preservedSegment": {"headUuid": head, "anchorUuid": "", "tailUuid": tail},
            },
        )
        summary = rows.user_message("This session is being continued. " + self.text(500, 3000))
        anchor = self.row("user", boundary, message=summary, isCompactSummary=True)
        # the segment hangs below the summary: relink head → anchor, anchor's children → tail
        self.lines[-2] = self.lines[-2].replace(
            b'"anchorUuid":""', f'"anchorUuid":"{anchor}"'.encode()
        )
        self.cursor = anchor
        self.cursor = tail

    def compact_all(self) -> None:
        """An auto-compaction that keeps nothing of the history: a boundary with no parent
        (its ``logicalParentUuid`` the last row), then the summary the conversation goes on
        from. Readers of a large file skip everything before such a boundary."""
        uuid = self.uuid()
        boundary = {"type": "system", "subtype": "compact_boundary",
                    "content": "Conversation compacted", "isMeta": False, "level": "info",
                    "compactMetadata": {"trigger": "auto", "preTokens": 167000},
                    "uuid": uuid, "timestamp": self.stamp()}
        self.write(rows.row(rows.chain(None, logical=self.cursor), boundary, self.stamps))
        summary = rows.user_message("This session is being continued. " + self.text(500, 3000))
        self.cursor = self.row("user", uuid, message=summary, isCompactSummary=True,
                               isVisibleInTranscriptOnly=True)

    def metadata(self) -> None:
        self.write(
            {
                "type": "file-history-snapshot",
                "messageId": self.cursor,
                "isSnapshotUpdate": False,
                "snapshot": {
                    "messageId": self.cursor,
                    "trackedFileBackups": {},
                    "timestamp": self.stamp(),
                },
            }
        )


#: what ``rechain bench load --kind`` writes: the chain is the file, a small part of it, the
#: part after a compaction that keeps nothing before it, a chain of short rows (about 370
#: bytes each: 850,000 entries in 300 MB, where the cost per entry shows), or a file of NUL
#: bytes (one line, no JSON: not a transcript at all)
KINDS = ("linear", "mostly-dead", "compacted", "chain", "nul")
#: in a mostly-dead transcript, how much of the file each abandoned branch takes
_BRANCH_SHARE = 0.05
#: in a compacted transcript, how much of the file comes before its last compaction
_BEFORE_COMPACTION = 0.9


def synthetic_transcript(size_bytes: int, seed: int = 0, kind: str = "linear") -> bytes:
    """About ``size_bytes`` of transcript; deterministic for a seed.

    ``linear``: one conversation (with a few rewinds and a compaction that keeps
    its preserved segment), nearly every line on the returned chain. ``mostly-dead``:
    the user goes back to the first prompt again and again, each branch about 5 % of
    the file, so that about 95 % of the lines are on abandoned branches. ``compacted``: the
    linear conversation, auto-compacted after 90 % of the file (nothing kept), then going
    on. ``chain``: one chain of short prompts and one-block replies, every line returned.
    """
    if kind == "mostly-dead":
        return _mostly_dead(size_bytes, seed)
    if kind == "chain":
        return _short_chain(size_bytes, seed)
    writer = _Writer(seed)
    if kind == "compacted":
        _converse(writer, int(size_bytes * _BEFORE_COMPACTION), preserving=False)
        writer.compact_all()
    _converse(writer, size_bytes, preserving=kind == "linear")
    writer.write({"type": "last-prompt", "lastPrompt": "done", "sessionId": writer.session})
    return b"".join(writer.lines)


def _converse(writer: _Writer, size_bytes: int, preserving: bool) -> None:
    """Prompts and turns, with metadata and rewinds, until the file holds ``size_bytes``;
    ``preserving``: once past half of it, a compaction that keeps its preserved segment."""
    while writer.size < size_bytes:
        writer.prompt()
        writer.turn()
        if writer.random.random() < 0.2:
            writer.metadata()
        if len(writer.users) > 5 and writer.random.random() < 0.05:
            writer.rewind()
        if preserving and writer.size > size_bytes // 2 and len(writer.users) > 2:
            writer.compact()
            preserving = False


def write_transcript(path: Path, size_bytes: int, seed: int = 0, kind: str = "linear") -> None:
    """Write a benchmark file of ``kind`` (``KINDS``); the NUL file is sparse, never in memory."""
    if kind == "nul":
        with path.open("wb") as file:
            file.truncate(size_bytes)
        return
    path.write_bytes(synthetic_transcript(size_bytes, seed, kind))


def _mostly_dead(size_bytes: int, seed: int) -> bytes:
    writer = _Writer(seed)
    writer.prompt()
    root = writer.cursor
    branch_end = writer.size + int(size_bytes * _BRANCH_SHARE)
    while writer.size < size_bytes:
        writer.prompt()
        writer.turn()
        if writer.size >= branch_end:
            writer.cursor = root  # back to the first prompt: this branch is abandoned
            branch_end = writer.size + int(size_bytes * _BRANCH_SHARE)
    writer.write({"type": "last-prompt", "lastPrompt": "done", "sessionId": writer.session})
    return b"".join(writer.lines)


def _short_chain(size_bytes: int, seed: int) -> bytes:
    writer = _Writer(seed)
    writer.stamps = rows.stamps(writer.session, cwd="/w", version="2.1.332", git_branch="main",
                                entrypoint=None)
    while writer.size < size_bytes:
        writer.cursor = writer.row("user", writer.cursor,
                                   message=rows.user_message(writer.text(1, 12)))
        message = rows.assistant_message([rows.text(writer.text(1, 12))],
                                          f"msg_{writer.random.getrandbits(64):016x}")
        writer.cursor = writer.row("assistant", writer.cursor, message=message)
    writer.write({"type": "last-prompt", "lastPrompt": "done", "sessionId": writer.session})
    return b"".join(writer.lines)
