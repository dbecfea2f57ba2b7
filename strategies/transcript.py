"""The value a transcript strategy produces: lines, subagent files, and what they mean."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from rechain.strategies import rows
from rechain.strategies.clock import EPOCH_MS
from rechain.strategies.conversation import Undetermined, expected
from rechain.strategies.generations import BY_VERSION
from rechain.strategies.ops import Op
from rechain.strategies.records import Record
from rechain.strategies.writer import Writer

Json = dict[str, Any]


dumps = rows.dumps


@dataclass(frozen=True, eq=False)
class Transcript:
    """A generated session file and the conversation it was written to hold.

    ``lines`` are the main file's objects in file order; ``records`` the writer's facts
    about each (same length); ``subagents`` maps agent id → that agent's lines;
    ``intended`` the uuids of the live conversation, in the order the reader returns it
    (see :mod:`rechain.strategies.conversation`); ``live`` the same conversation in
    write order, including rows off the walked path (progress).
    """

    lines: tuple[Json, ...]
    records: tuple[Record, ...]
    session_id: str
    subagents: dict[str, tuple[Json, ...]]
    generation: str
    script: tuple[Op, ...]
    live: tuple[str, ...]
    intended: tuple[str, ...] = field(default=())
    settings: dict[str, Any] = field(default_factory=dict)

    def to_bytes(self) -> bytes:
        """The file as Claude Code writes it: one ``JSON.stringify`` per line, each + LF."""
        return rows.jsonl(self.lines)

    def subagent_bytes(self, agent: str) -> bytes:
        """One subagent file's bytes."""
        return rows.jsonl(self.subagents[agent])

    @cached_property
    def by_uuid(self) -> dict[str, Json]:
        """uuid → the (last) line carrying it."""
        return {line["uuid"]: line for line in self.lines if isinstance(line.get("uuid"), str)}

    def entry(self, uuid: str) -> Json:
        """The line of one uuid."""
        return self.by_uuid[uuid]

    @property
    def terminal_line(self) -> int:
        """Index of the line the conversation ends at (-1 when it is empty).

        The last-written entry that nothing continues: readers pick the leaf by file
        position among such entries, so this line must stay after the others.
        """
        if not self.intended:
            return -1
        last = self.intended[-1]
        return max(i for i, r in enumerate(self.records) if r.uuid == last)

    @property
    def falls_back(self) -> bool:
        """The writer's live conversation holds no message, so the file means an older branch."""
        return not set(self.intended) <= set(self.live)

    def __repr__(self) -> str:
        return (f"Transcript(generation={self.generation!r}, lines={len(self.lines)}, "
                f"intended={len(self.intended)}, script={list(self.script)!r})")


def _run(script: tuple[Op, ...] | list[Op], generation: str, salt: int, start_ms: int | None,
         max_entries: int) -> Writer:
    writer = Writer(BY_VERSION[generation], salt, EPOCH_MS if start_ms is None else start_ms,
                    max_entries=max_entries)
    for op in script:
        writer.apply(op)
    return writer


def _finish(writer: Writer, script: tuple[Op, ...], reappend: bool,
            settings: dict[str, Any]) -> Transcript:
    if reappend and writer.entries:
        writer.reappend()
    pairs = list(zip(writer.lines, writer.records, strict=True))
    intended = expected(pairs)
    if isinstance(intended, Undetermined):  # the writer never produces such files
        raise AssertionError(f"writer model produced an undetermined file: {intended.reason}")
    return Transcript(
        lines=tuple(writer.lines), records=tuple(writer.records),
        session_id=writer.stamps.session_id,
        subagents={k: tuple(v) for k, v in writer.subagents.items()},
        generation=writer.gen.version, script=script, live=tuple(writer.live),
        intended=tuple(intended), settings=settings)


def write(script: tuple[Op, ...] | list[Op], *, generation: str = "2.1.332", salt: int = 0,
          start_ms: int | None = None, max_entries: int = 50,
          reappend_on_exit: bool = False) -> Transcript:
    """Execute ``script`` with the writer model and return the transcript it leaves."""
    settings = {"generation": generation, "salt": salt, "start_ms": start_ms,
                "max_entries": max_entries, "reappend_on_exit": reappend_on_exit}
    writer = _run(script, generation, salt, start_ms, max_entries)
    return _finish(writer, tuple(script), reappend_on_exit, settings)


def extend(transcript: Transcript, ops: tuple[Op, ...] | list[Op]) -> Transcript:
    """The same session continued at its leaf by ``ops`` (a rewind still pending is dropped).

    The size bound does not apply to ``ops``; metadata re-appended on exit moves after them.
    """
    s = transcript.settings
    writer = _run(transcript.script, s["generation"], s["salt"], s["start_ms"],
                  s["max_entries"])
    writer.pending_rewind = None
    writer.max_entries = 10**9
    for op in ops:
        writer.apply(op)
    return _finish(writer, (*transcript.script, *ops), s["reappend_on_exit"], s)
