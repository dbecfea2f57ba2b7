"""Scenario rows from short labels, written by the strategies' row writer.

Scenarios name their entries (``"u1"``, ``"a2"``) and let this module turn the
names into stable uuid4-shaped ids, ``toolu_``/``msg_``/``req_`` ids and
millisecond timestamps, so a case reads like its diagram and its bytes never
change between runs. The rows themselves (key order: ``parentUuid`` first, the
message's own fields next, the stamps last) and their bytes come from
:mod:`rechain.strategies.rows`, like every generated transcript's.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from rechain.strategies import rows
from rechain.strategies.rows import DROP, dumps, jsonl, text

Row = dict[str, Any]
Line = Row | bytes
__all__ = ["DROP", "Line", "Row", "Session", "dumps", "jsonl", "stable_uuid", "text", "thinking",
           "timestamp"]

_BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
_EPOCH = datetime(2026, 11, 20, 9, 0, 0, tzinfo=UTC)
MODEL = "claude-sonnet-4-5-20250929"
USAGE = rows.usage(4, 23, cache_creation=812, cache_read=14210)


def stable_uuid(*parts: str) -> str:
    """A uuid4-shaped id that depends only on ``parts`` (so cases are reproducible)."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()[:16]
    return str(uuid.UUID(bytes=digest, version=4))


def _base62(seed: str, length: int) -> str:
    number = int.from_bytes(hashlib.sha256(seed.encode()).digest(), "big")
    out = []
    for _ in range(length):
        number, digit = divmod(number, 62)
        out.append(_BASE62[digit])
    return "".join(out)


def timestamp(seconds: float) -> str:
    """ISO-8601 with milliseconds and ``Z``, ``seconds`` after a fixed epoch."""
    moment = _EPOCH + timedelta(milliseconds=round(seconds * 1000))
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def thinking(value: str, seed: str = "") -> Row:
    signature = _base62("sig/" + seed + value, 64)
    return rows.thinking(value, signature)


@dataclass
class Session:
    """Row factory for one transcript; the only state is the label map and the clock.

    ``parent`` arguments are labels (``None`` for a root); a label that no row
    defines still maps to a stable uuid, which is how dangling parents are made.
    """

    case_id: str
    cwd: str = "/home/dev/projects/orbit"
    version: str = "2.1.332"
    git_branch: str = "main"
    step: float = 2.5
    clock: float = 0.0
    stamps: dict[str, Any] = field(default_factory=dict)

    @property
    def session_id(self) -> str:
        return stable_uuid(self.case_id, "session")

    def uid(self, label: str) -> str:
        return stable_uuid(self.case_id, "entry", label)

    def tool_id(self, label: str) -> str:
        return "toolu_01" + _base62(f"{self.case_id}/tool/{label}", 22)

    def msg_id(self, label: str) -> str:
        return "msg_01" + _base62(f"{self.case_id}/msg/{label}", 22)

    def request_id(self, label: str) -> str:
        return "req_011C" + _base62(f"{self.case_id}/req/{label}", 20)

    def tick(self, at: float | None) -> str:
        """The row's timestamp: ``at`` seconds if given, else the running clock."""
        self.clock = self.clock + self.step if at is None else at
        return timestamp(self.clock)

    def session_stamps(self) -> Row:
        """The stamps every row of this session carries, in Claude Code's order (raw rows
        written as bytes append them too)."""
        stamped = rows.stamps(self.session_id, cwd=self.cwd, version=self.version,
                              git_branch=self.git_branch)
        stamped.update(self.stamps)
        return stamped

    def _row(
        self,
        head: Row,
        body: Row,
        label: str | None,
        at: float | None,
        extra: Mapping[str, Any],
    ) -> Row:
        stamped = self.session_stamps()
        own: Row = dict(body)
        if label is not None:
            own["uuid"] = self.uid(label)
        own["timestamp"] = self.tick(at)
        own.update(extra)
        return rows.row(head, own, stamped)

    def _head(self, parent: str | None, sidechain: bool) -> Row:
        return rows.chain(None if parent is None else self.uid(parent), sidechain=sidechain)

    def user(
        self,
        label: str | None,
        content: str | list[Row],
        parent: str | None,
        *,
        at: float | None = None,
        sidechain: bool = False,
        **extra: Any,
    ) -> Row:
        """A user prompt (or any user-role row)."""
        body = {"type": "user", "message": rows.user_message(content)}
        return self._row(self._head(parent, sidechain), body, label, at, extra)

    def assistant(
        self,
        label: str | None,
        blocks: list[Row],
        parent: str | None,
        *,
        msg: str | None = None,
        at: float | None = None,
        sidechain: bool = False,
        **extra: Any,
    ) -> Row:
        """One streamed assistant row; rows of one API message share ``msg``."""
        key = msg or label or "anonymous"
        message = rows.assistant_message(blocks, self.msg_id(key), model=MODEL, usage=dict(USAGE))
        body = {"type": "assistant", "message": message, "requestId": self.request_id(key)}
        return self._row(self._head(parent, sidechain), body, label, at, extra)

    def tool_use(self, tool: str, name: str = "Bash", **tool_input: Any) -> Row:
        """A ``tool_use`` block whose id is derived from the label ``tool``."""
        return rows.tool_use(self.tool_id(tool), name, tool_input)

    def result(
        self,
        label: str,
        tool: str | list[str],
        parent: str | None,
        *,
        source: str | None = None,
        output: str = "ok",
        is_error: bool = False,
        at: float | None = None,
        sidechain: bool = False,
        **extra: Any,
    ) -> Row:
        """A tool-result user row answering ``tool`` (one label or several)."""
        tools = [tool] if isinstance(tool, str) else tool
        blocks = [rows.tool_result(self.tool_id(name), output, is_error) for name in tools]
        fields: Row = {"toolUseResult": rows.bash_result(output)}
        if source is not None:
            fields["sourceToolAssistantUUID"] = self.uid(source)
        fields.update(extra)
        return self.user(label, blocks, parent, at=at, sidechain=sidechain, **fields)

    def system(
        self,
        label: str,
        subtype: str,
        parent: str | None,
        *,
        content: str | None = None,
        at: float | None = None,
        **extra: Any,
    ) -> Row:
        """A system row (``turn_duration``, ``local_command``, ``compact_boundary``, ...)."""
        body: Row = {"type": "system", "subtype": subtype}
        if content is not None:
            body["content"] = content
        body["isMeta"] = False
        body["level"] = "info"
        return self._row(self._head(parent, False), body, label, at, extra)

    def boundary(
        self,
        label: str,
        *,
        logical: str | None,
        at: float | None = None,
        pre_tokens: int = 152_301,
        **metadata: Any,
    ) -> Row:
        """A ``compact_boundary`` with parent null; ``metadata`` joins compactMetadata."""
        head = rows.chain(None, logical=None if logical is None else self.uid(logical))
        body: Row = {
            "type": "system",
            "subtype": "compact_boundary",
            "content": "Conversation compacted",
            "isMeta": False,
            "level": "info",
            "compactMetadata": {"trigger": "auto", "preTokens": pre_tokens, **metadata},
        }
        return self._row(head, body, label, at, {})

    def segment(self, head: str, anchor: str, tail: str) -> Row:
        """``compactMetadata.preservedSegment`` from labels."""
        return {
            "headUuid": self.uid(head),
            "anchorUuid": self.uid(anchor),
            "tailUuid": self.uid(tail),
        }

    def preserved(self, anchor: str, labels: list[str]) -> Row:
        """``compactMetadata.preservedMessages`` from labels."""
        return {"anchorUuid": self.uid(anchor), "uuids": [self.uid(name) for name in labels]}

    def summary(self, label: str, parent: str | None, words: str, **extra: Any) -> Row:
        """The ``isCompactSummary`` user row that follows a boundary."""
        content = (
            "This session is being continued from a previous conversation that ran out of "
            f"context. The conversation is summarized below:\n{words}"
        )
        return self.user(label, content, parent, isCompactSummary=True, **extra)

    def progress(
        self, label: str, parent: str | None, *, at: float | None = None, **data: Any
    ) -> Row:
        """A legacy ``progress`` row (hook or bash progress)."""
        payload = {"type": "hook_progress", "hookEvent": "PostToolUse", **data}
        tool = self.tool_id("progress/" + label)
        body: Row = {"type": "progress", "data": payload, "toolUseID": tool}
        body["parentToolUseID"] = tool
        return self._row(self._head(parent, False), body, label, at, {})

    def attachment(
        self,
        label: str,
        parent: str | None,
        attachment: Row,
        *,
        at: float | None = None,
        **extra: Any,
    ) -> Row:
        """An ``attachment`` row (``queued_command``, ``fork_briefing``, ...)."""
        body: Row = {"type": "attachment", "attachment": attachment}
        return self._row(self._head(parent, False), body, label, at, extra)

    def meta(self, kind: str, value: str, **extra: Any) -> Row:
        """A metadata line without uuid (``custom-title``, ``tag``, ``last-prompt``, ...)."""
        field_name = {"custom-title": "customTitle", "tag": "tag", "last-prompt": "lastPrompt"}
        return {
            "type": kind,
            field_name.get(kind, "value"): value,
            "sessionId": self.session_id,
            **extra,
        }
