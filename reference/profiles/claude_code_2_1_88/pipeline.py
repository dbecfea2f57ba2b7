"""The seed profile's whole read path, bytes to resumed conversation, for one entry point."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rechain.reference.graph import ReaderError
from rechain.reference.model import Diagnostic, Json, Options, UsageError
from rechain.reference.profiles.claude_code_2_1_88 import read as seed_read
from rechain.reference.profiles.claude_code_2_1_88.api import check_results
from rechain.reference.profiles.claude_code_2_1_88.file_rows import as_fresh, file_rows
from rechain.reference.profiles.claude_code_2_1_88.glanced import Light
from rechain.reference.profiles.claude_code_2_1_88.load import Loaded, LoadFailedError, load
from rechain.reference.profiles.claude_code_2_1_88.parse import parse_values, upgrade
from rechain.reference.profiles.claude_code_2_1_88.release import BASE, SeedRelease
from rechain.reference.profiles.claude_code_2_1_88.resume import (
    DEFAULT_ENTRY,
    ENTRY_POINTS,
    Resumed,
    WalkHangsError,
    deserialise,
    deserialise_chain,
    extract_todos,
    first_prompt_fails,
    leaf_rule,
    recover,
    todo_rows,
    walk,
)


@dataclass(slots=True)
class Outcome:
    """Everything one resume produced, for the views to show."""

    entry: str
    loaded: Loaded
    release: SeedRelease = BASE
    leaf: Json | None = None
    chain: list[Json] = field(default_factory=list)
    resumed: Resumed = field(default_factory=Resumed)
    error: str | None = None
    todos: list[Any] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def entry_point(options: Options) -> str:
    """``Options.entry``, defaulting to ``--continue``; anything else is a usage error."""
    entry = options.entry or DEFAULT_ENTRY
    if entry not in ENTRY_POINTS:
        raise UsageError(f"unknown entry point {entry!r}; the seed profile has: "
                         + ", ".join(ENTRY_POINTS))
    return entry


def load_bytes(data: bytes, options: Options, *, keep_all_leaves: bool = False,
               release: SeedRelease = BASE) -> Loaded:
    """Read (with the large-file paths) and load, as ``loadTranscriptFile`` does."""
    skip = release.large_file_skip and not options.disable_precompact_skip
    source = seed_read.read_for_load(data, not skip, keep_all_leaves,
                                     not release.boundary_across_chunks)
    diagnostics: list[Diagnostic] = list(source.diagnostics)
    metadata = parse_values(source.metadata_lines, diagnostics, release.lines_trimmed)
    # a progress row is only a bridge (or nothing) unless the release keeps it as a row
    progress_glanced = release.progress_bridged or not release.progress_loaded
    # the rows before the last boundary are glanced at lightly when the prune may drop them
    light_before = source.light_before if release.preserved_segment_relink else 0
    values = parse_values(source.lines, diagnostics, release.lines_trimmed, spans=source.spans,
                          progress_glanced=progress_glanced, light_before=light_before)
    spans = source.spans

    def read_row(row: Light) -> Any:
        assert spans is not None  # a Light row is made only from a line with spans
        return upgrade(row, spans, diagnostics, release.lines_trimmed, progress_glanced)

    loaded = load(values, metadata, release, read_row)
    loaded.diagnostics[:0] = diagnostics
    loaded.line_count = source.line_count
    loaded.spans = source.spans
    # the lines parsed are UTF-8 when they have spans; in the file's own buffer, they are
    # where every row the chain can hold lies (a large file's lines before its last plain
    # boundary are not read: whether they are UTF-8 does not matter)
    if source.spans is None:
        loaded.utf8 = False
    elif source.spans.buffer is data:
        loaded.utf8 = True
    return loaded


def _every_row(data: bytes, release: SeedRelease) -> Outcome:
    """``--resume <file>`` before 2.1.88's line: the file's message rows, no chain."""
    try:
        loaded, rows = file_rows(data, release)
    except ReaderError as error:
        return Outcome("resume-file", Loaded(), release, error=f"resume fails: {error}")
    outcome = Outcome("resume-file", loaded, release, chain=rows)
    try:
        outcome.resumed = deserialise(as_fresh(rows), release)
        _check_results_at_load(outcome.resumed.messages, release)
        outcome.todos = extract_todos(outcome.resumed.messages, release.todos_need_block_lists)
    except ReaderError as error:
        outcome.error, outcome.chain, outcome.resumed = f"resume fails: {error}", [], Resumed()
    # a file without message rows resumes an empty conversation: no "No conversation
    # found", the prompt is sent alone (2.0.76 and 2.1.39 alike)
    return outcome


def _check_results_at_load(messages: list[Json], release: SeedRelease) -> None:
    """Before ``results_checked_at_request``, an odd tool result fails the resume itself."""
    if not release.results_checked_at_request:
        for entry in messages:
            if entry.get("type") == "user":
                check_results(entry)


def run(data: bytes, options: Options, release: SeedRelease = BASE) -> Outcome:
    """Load, choose the entry point's leaf, walk, recover and deserialise; never raises."""
    entry = entry_point(options)
    if entry == "resume-file" and not release.resume_file_walks_chain:
        return _every_row(data, release)
    try:
        loaded = load_bytes(data, options, release=release)
    except LoadFailedError as error:
        return Outcome(entry, Loaded(), release, error=str(error))
    outcome = Outcome(entry, loaded, release)
    if entry == "continue" and seed_read.hidden_from_continue(data, release):
        # not listed, so --continue starts a fresh conversation (exit 0, nothing resumed)
        loaded.diagnostics.append(Diagnostic(
            None, "not-listed", "the head holds \"isSidechain\":true or a teamName (or, "
            "before 2.1.88's line, no first prompt nor title): --continue does not see this "
            "session"))
        return outcome
    leaf = leaf_rule(entry, release)(loaded)
    if leaf is None:
        outcome.error = "no-conversation" if entry != "continue" else None
        return outcome
    outcome.leaf = leaf
    try:
        chain, seen = walk(loaded, leaf, release.dangling_bridge, release.cycle_detection,
                           release.cycle_bridge)
        if release.orphan_recovery:
            chain = recover(loaded, chain, seen)
        if entry != "resume-file" and first_prompt_fails(chain):
            if entry == "continue":
                # the scan throws while --continue loads: a fresh conversation, exit 0
                loaded.diagnostics.append(Diagnostic(
                    loaded.line_of(leaf), "first-prompt",
                    "a first-prompt text that is not a string: --continue resumes nothing"))
                outcome.leaf = None
                return outcome
            raise ReaderError("first prompt: text.trim is not a function (TypeError)")
        outcome.chain = chain
        outcome.resumed = deserialise_chain(outcome.chain, release)
        _check_results_at_load(outcome.resumed.messages, release)
        outcome.todos = extract_todos(todo_rows(outcome.resumed.messages),
                                      release.todos_need_block_lists)
    except WalkHangsError as error:
        outcome.error = str(error)
        outcome.chain = []
        outcome.resumed = Resumed()
    except ReaderError as error:
        outcome.error = f"resume fails: {error}"
        outcome.chain = []
        outcome.resumed = Resumed()
    if not outcome.resumed.messages and entry != "continue":
        outcome.error = outcome.error or "no-conversation"
    return outcome
