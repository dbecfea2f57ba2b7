"""A model of Claude Code's write path that executes a script of operations.

It keeps the parent cursor of ``insertMessageChain`` (``format.md`` §3.3): each chain
message is parented to the cursor, a tool result to its ``sourceToolAssistantUUID`` (in
generations that have it), a compact boundary to nothing; rewinds move the cursor back
to the last survivor and leave the abandoned branch on disk; compaction re-appends cached
metadata, then writes the boundary and the summary, optionally preserving the last turns.
The lines, the writer's records and its live conversation come out of one pass.
"""

from __future__ import annotations

from typing import Any

from rechain.strategies import entries, ids, rows
from rechain.strategies.clock import iso
from rechain.strategies.generations import Generation, Stamps, layout, stamp_fields
from rechain.strategies.ops import Compact, Metadata, Note, Op, Prompt, Reply, Rewind, Task
from rechain.strategies.records import Compaction, Record

Json = dict[str, Any]

#: The order ``reAppendSessionMetadata`` writes cached values in (format.md §3.4).
REAPPEND_ORDER = ("last-prompt", "custom-title", "tag", "agent-name", "mode",
                  "worktree-state", "pr-link")


class Writer:
    """Executes operations one by one; read the result with :meth:`lines` and friends."""

    def __init__(self, gen: Generation, salt: int, start_ms: int, *,
                 max_entries: int = 50) -> None:
        self.gen = gen
        self.salt = salt
        self.clock = start_ms
        self.max_entries = max_entries
        self.stamps = Stamps(ids.uuid4_text(salt, 1_000_000), "/work/project",
                             "main", ids.slug(salt))
        self.stamped: dict[str | None, Json] = {None: stamp_fields(gen, self.stamps)}
        self.lines: list[Json] = []
        self.records: list[Record] = []
        self.subagents: dict[str, list[Json]] = {}
        self.live: list[str] = []
        self.prompts: list[int] = []  # indices into ``live`` of rewindable prompts
        self.cursor: str | None = None
        self.pending_rewind: int | None = None
        self.relinked: dict[str, str] = {}  # preserved uuid → its parent in the live chain
        self.line_of: dict[str, int] = {}
        self.written_parent: dict[str, str | None] = {}
        self.cache: dict[str, int] = {}
        self.entries = 0
        self.n_uuid = self.n_tool = self.n_msg = self.n_agent = self.n_text = 0

    # -- counters ------------------------------------------------------------------
    def _uuid(self) -> str:
        self.n_uuid += 1
        return ids.uuid4_text(self.salt, self.n_uuid)

    def _peek_uuid(self, ahead: int = 1) -> str:
        return ids.uuid4_text(self.salt, self.n_uuid + ahead)

    def _text(self) -> int:
        self.n_text += 1
        return self.n_text

    def _tick(self, ms: int) -> str:
        self.clock += ms
        return iso(self.clock)

    @property
    def full(self) -> bool:
        """Whether the size bound is reached; later operations are ignored."""
        return self.entries >= self.max_entries

    # -- low-level writes --------------------------------------------------------------
    def _apply_rewind(self) -> None:
        distance, self.pending_rewind = self.pending_rewind, None
        if distance is None or not self.prompts:
            return
        index = self.prompts[max(0, len(self.prompts) - 1 - distance)]
        target = self.live[index]
        self.cursor = self.relinked.get(target, self.written_parent[target])
        del self.live[index:]
        self.prompts = [i for i in self.prompts if i < index]

    def _write(self, own: Json, *, parent: str | None = None, use_cursor: bool = True,
               boundary_of: str | None = None, prompt: bool = False) -> str:
        """Append one main-chain message: parent, relink, cursor, live conversation."""
        if self.pending_rewind is not None:
            self._apply_rewind()
        uuid = own["uuid"]
        if use_cursor:
            parent = self.cursor
        if own.get("subtype") == "compact_boundary":
            chain = rows.chain(parent, logical=boundary_of)
        else:
            chain = rows.chain(parent)
        line = layout(self.gen, self.stamped[None], chain, own)
        self.line_of[uuid] = len(self.lines)
        self.written_parent[uuid] = parent
        self.lines.append(line)
        self.records.append(Record(uuid))
        if prompt:
            self.prompts.append(len(self.live))
        self.live.append(uuid)
        self.cursor = uuid
        self.entries += 1
        return uuid

    def _meta_line(self, line: Json) -> None:
        self.lines.append(line)
        self.records.append(Record(None))

    def _side_line(self, line: Json, agent: str | None) -> None:
        """A sidechain line: into the main file (inline generations) or the agent's file."""
        if agent is None:
            uuid = line["uuid"]
            self.lines.append(line)
            self.records.append(Record(uuid))
        else:
            self.subagents.setdefault(agent, []).append(line)

    # -- operations --------------------------------------------------------------------
    def apply(self, op: Op) -> None:
        """Execute one operation (ignored once the size bound is reached)."""
        if self.full:
            return
        if isinstance(op, Prompt):
            self._prompt(op)
        elif isinstance(op, Reply):
            self._reply(op)
        elif isinstance(op, Note):
            self._note(op)
        elif isinstance(op, Task):
            self._task(op)
        elif isinstance(op, Rewind):
            self.pending_rewind = op.distance
        elif isinstance(op, Compact):
            self._compact(op)
        elif isinstance(op, Metadata):
            self._metadata(op.kind, op.value)

    def _prompt(self, op: Prompt) -> None:
        self.clock += op.pause_ms  # 0 gives the previous entry's timestamp: a tie
        n = self._text()
        if op.kind == "meta":
            self._write(entries.user(f"Stop hook feedback {n}", self._uuid(),
                                     self._tick(0), isMeta=True))
            return
        if op.kind == "interrupt":
            last = self.lines[self.line_of[self.cursor]] if self.cursor in self.line_of else {}
            text = entries.INTERRUPTED_TOOL if "toolUseResult" in last else entries.INTERRUPTED
            self._write(entries.user([{"type": "text", "text": text}], self._uuid(),
                                     self._tick(0)))
            return
        if self.gen.file_history:
            ref = self._peek_uuid(2 if op.kind == "command" else 1)
            self._meta_line(entries.metadata("file-history-snapshot", 0,
                                             self.stamps.session_id, iso(self.clock), ref))
        if op.kind == "command":
            self._write(entries.user(entries.CAVEAT, self._uuid(), self._tick(0), isMeta=True))
            self._write(entries.user(
                f"<command-name>/status</command-name>\n<command-args>{n}</command-args>",
                self._uuid(), self._tick(1)), prompt=True)
            self._write(entries.user(f"<local-command-stdout>ok {n}</local-command-stdout>",
                                     self._uuid(), self._tick(1)))
            return
        content: str | list[Json] = f"Prompt {n}"
        if op.kind == "blocks":
            content = [{"type": "text", "text": f"Prompt {n}"}]
        self._write(entries.user(content, self._uuid(), self._tick(0)), prompt=True)
        self.cache["last-prompt"] = n

    def _result(self, tool_id: str, source: str) -> None:
        n = self._text()
        linked = self.gen.source_links
        self._write(entries.tool_result(tool_id, n, self._uuid(), self._tick(97 + n % 50),
                                        source if linked else None),
                    parent=source, use_cursor=not linked)

    def _hook(self, tool_id: str) -> None:
        data = {"type": "hook_progress", "hookEvent": "PreToolUse",
                "hookName": "PreToolUse:Bash", "command": "hooks/pre.sh"}
        self._write(entries.progress(data, tool_id, tool_id, self._uuid(), self._tick(3)))

    def _reply(self, op: Reply) -> None:
        self.n_msg += 1
        message_id = ids.message_id(self.salt, self.n_msg)
        request_id = ids.request_id(self.salt, self.n_msg)
        calls: list[tuple[str, str]] = []  # (tool id, source assistant uuid)
        eager_done: set[int] = set()
        answered = len([b for b in op.blocks if b == "tool_use"]) - op.unanswered
        self._tick(900 + self.n_msg % 700)
        self.clock -= op.skew_ms  # the clock stepped back between the prompt and the response
        for kind in op.blocks:
            tool_id = None
            if kind == "tool_use":
                self.n_tool += 1
                tool_id = ids.tool_use_id(self.salt, self.n_tool)
            n = self._text()
            content = entries.block(kind, n, tool_id)
            uuid = self._write(entries.assistant(self.gen, content, message_id, request_id,
                                                 self._uuid(), self._tick(40 + n % 60)))
            if tool_id is None:
                continue
            call = len(calls)
            calls.append((tool_id, uuid))
            if op.hooks and self.gen.progress:
                self._hook(tool_id)
            if call < len(op.eager) and op.eager[call] and call < answered:
                self._result(tool_id, uuid)
                eager_done.add(call)
        pending = [c for c in range(min(answered, len(calls))) if c not in eager_done]
        delays = op.delays
        pending.sort(key=lambda c: (delays[c] if c < len(delays) else 0, c))
        for call in pending:
            self._result(*calls[call])
        if op.queued and self.gen.attachments:
            n = self._text()
            self._meta_line(entries.metadata("queue-operation", n, self.stamps.session_id,
                                              self._tick(2), None))
            self._write(entries.attachment(
                {"type": "queued_command", "prompt": f"also do {n}"}, self._uuid(),
                self._tick(2)))
            self._reply(Reply())

    def _note(self, op: Note) -> None:
        n = self._text()
        if op.kind == "hook_context" and self.gen.attachments:
            payload = {"type": "hook_additional_context", "content": [f"context {n}"],
                       "hookName": "UserPromptSubmit", "toolUseID": f"hook-{n}",
                       "hookEvent": "UserPromptSubmit"}
            self._write(entries.attachment(payload, self._uuid(), self._tick(5)))
            return
        kind = "stop_hook_summary" if op.kind == "hook_context" else op.kind
        self._write(entries.system(kind, n, self._uuid(), self._tick(5), f"hook-{n}"))

    def _task(self, op: Task) -> None:
        """A Task call: tool_use, the subagent's sidechain, then the tool result."""
        self.n_msg += 1
        message_id = ids.message_id(self.salt, self.n_msg)
        self.n_tool += 1
        tool_id = ids.tool_use_id(self.salt, self.n_tool)
        n = self._text()
        content = {"type": "tool_use", "id": tool_id, "name": "Task",
                   "input": {"description": f"Task {n}", "prompt": f"Investigate {n}",
                             "subagent_type": "Explore"}}
        source = self._write(entries.assistant(self.gen, content, message_id,
                                               ids.request_id(self.salt, self.n_msg),
                                               self._uuid(), self._tick(1200)))
        self.n_agent += 1
        agent = ids.agent_id(self.salt, self.n_agent)
        self._sidechain(op.steps, agent, tool_id)
        self._result(tool_id, source)

    def _sidechain(self, steps: int, agent: str, tool_id: str) -> None:
        """The subagent's own chain: its prompt, then ``steps`` replies (all but the last
        calling a tool). Legacy generations also write ``agent_progress`` rows in the main
        chain, one per step."""
        tag = None if self.gen.inline_sidechains else agent  # agentId and file, or inline
        stamped = stamp_fields(self.gen, self.stamps, tag if self.gen.stamps_first else None)

        def side(parent: str | None, own: Json) -> str:
            line = layout(self.gen, stamped, rows.chain(parent, sidechain=True), own,
                          agent_id=tag)
            self._side_line(line, tag)
            return own["uuid"]

        parent = side(None, entries.user(f"Investigate {self.n_text}", self._uuid(),
                                         self._tick(5)))
        for step in range(steps):
            self.n_msg += 1
            mid = ids.message_id(self.salt, self.n_msg)
            n = self._text()
            side_tool = None
            if step < steps - 1:
                self.n_tool += 1
                side_tool = ids.tool_use_id(self.salt, self.n_tool)
            kind = "text" if side_tool is None else "tool_use"
            parent = side(parent, entries.assistant(
                self.gen, entries.block(kind, n, side_tool), mid,
                ids.request_id(self.salt, self.n_msg), self._uuid(), self._tick(300)))
            if self.gen.progress:
                data = {"type": "agent_progress", "agentId": agent, "prompt": f"step {n}",
                        "normalizedMessages": []}
                self._write(entries.progress(data, f"agent_{mid}", tool_id, self._uuid(),
                                             self._tick(2)))
            if side_tool is not None:
                source = parent if self.gen.source_links else None
                parent = side(parent, entries.tool_result(side_tool, n, self._uuid(),
                                                          self._tick(50), source))

    def _metadata(self, kind: str, value: int) -> None:
        ref = self.cursor
        line = entries.metadata(kind, value, self.stamps.session_id, iso(self.clock), ref)
        self._meta_line(line)
        if kind in REAPPEND_ORDER:
            self.cache[kind] = value

    def reappend(self) -> None:
        """``reAppendSessionMetadata``: cached values as fresh lines, in the fixed order."""
        for kind in REAPPEND_ORDER:
            if kind in self.cache:
                line = entries.metadata(kind, self.cache[kind], self.stamps.session_id,
                                        iso(self.clock), None)
                self._meta_line(line)

    def _compact(self, op: Compact) -> None:
        if self.pending_rewind is not None:
            self._apply_rewind()
        self.reappend()
        prompts = self.prompts
        keep: list[str] = []
        kept_prompts: list[str] = []
        if op.keep > 0 and self.gen.preserved and prompts:
            start = prompts[max(0, len(prompts) - op.keep)]
            keep = self.live[start:]
            kept_prompts = [self.live[i] for i in prompts if i >= start]
        boundary_uuid, summary_uuid = self._uuid(), self._peek_uuid()
        metadata: Json = {"trigger": op.trigger, "preTokens": 1000 * (self.entries + 1)}
        if keep and op.style == "segment":
            metadata["preservedSegment"] = {"headUuid": keep[0], "anchorUuid": summary_uuid,
                                            "tailUuid": keep[-1]}
        elif keep:
            metadata["preservedMessages"] = {"uuids": list(keep), "anchorUuid": summary_uuid}
        logical = self.cursor
        self._write(entries.boundary(boundary_uuid, self._tick(30), metadata),
                    parent=None, use_cursor=False, boundary_of=logical)
        n = self._text()
        self._write(entries.user(entries.SUMMARY.format(n=n), self._uuid(), self._tick(2),
                                 isVisibleInTranscriptOnly=True, isCompactSummary=True),
                    parent=boundary_uuid, use_cursor=False)
        self.live = [boundary_uuid, summary_uuid]
        self.prompts = []  # rewinds reach the preserved prompts and those written after
        if keep:
            self._preserve(keep, op.style, boundary_uuid, summary_uuid)
            self.prompts = [self.live.index(uuid) for uuid in kept_prompts]

    def _preserve(self, keep: list[str], style: str, boundary: str, anchor: str) -> None:
        """Record how readers relink for this boundary; the kept turns rejoin the live
        conversation after the summary, and the next message chains to the summary."""
        if style == "messages":
            heads = tuple(zip(keep, [anchor, *keep[:-1]], strict=True))
            requires = tuple(keep)
        else:
            heads, requires = ((keep[0], anchor),), ()
        index = self.line_of[boundary]
        self.records[index] = Record(boundary, Compaction(anchor, keep[-1], heads, requires))
        self.relinked.update(heads)  # a rewind to a preserved prompt continues from here
        self.live.extend(keep)
        self.cursor = anchor
