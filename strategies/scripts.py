"""Hypothesis strategies for scripts of operations and the transcripts they write.

Shrinking works on the script, never on the graph: operations are deleted, each
operation's fields move to their defaults (``ops.py``), ids are derived from position
(``ids.py``), a rewind is a distance back that shrinks to "this turn", the salt shrinks
to 0 and the start time to 2026-01-01. Feature switches are swarm-drawn: a set of
*disabled* features that shrinks to empty, so a minimal example has every feature
available and uses only the ones it needs.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import cache
from typing import Any

from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from rechain.strategies.clock import EPOCH_MS
from rechain.strategies.generations import GENERATIONS
from rechain.strategies.observe import label
from rechain.strategies.ops import Compact, Metadata, Note, Op, Prompt, Reply, Rewind, Task
from rechain.strategies.transcript import Transcript, write

#: Feature names accepted by :func:`transcripts` (each ``name=False`` switches one off).
FEATURES = ("parallel_tools", "split_messages", "rewinds", "compaction", "sidechains",
            "progress", "metadata", "interrupts", "queued", "meta_rows", "system_rows",
            "timestamp_skew")


@cache
def _prompts(features: frozenset[str]) -> st.SearchStrategy[Prompt]:
    kinds = ["text", "blocks"]
    if "meta_rows" in features:
        kinds += ["command", "meta"]
    if "interrupts" in features:
        kinds.append("interrupt")
    low = -120_000 if "timestamp_skew" in features else 0
    return st.builds(Prompt, kind=st.sampled_from(kinds),
                     pause_ms=st.integers(low, 600_000))


@cache
def _replies(features: frozenset[str]) -> st.SearchStrategy[Reply]:
    kinds = ["text", "tool_use", "thinking"]
    width = 4 if "split_messages" in features else 1
    calls = width if "parallel_tools" in features else 1
    blocks = st.lists(st.sampled_from(kinds), min_size=1, max_size=width).map(
        lambda bs: _cap_calls(bs, calls))
    return st.builds(
        Reply, blocks=blocks.map(tuple),
        delays=st.lists(st.integers(0, 3), max_size=calls).map(tuple),
        eager=st.lists(st.booleans(), max_size=calls).map(tuple),
        unanswered=st.integers(0, 2) if "interrupts" in features else st.just(0),
        hooks=st.booleans() if "progress" in features else st.just(False),
        queued=st.booleans() if "queued" in features else st.just(False))


def _cap_calls(blocks: list[str], calls: int) -> list[str]:
    """Turn tool calls beyond ``calls`` into text blocks (parallel tools switched off)."""
    out = []
    for kind in blocks:
        if kind == "tool_use":
            if calls == 0:
                kind = "text"
            calls -= 1
        out.append(kind)
    return out


@cache
def operations(features: frozenset[str] = frozenset(FEATURES)) -> st.SearchStrategy[Op]:
    """One operation, weighted toward prompts and replies (the bulk of real sessions)."""
    prompts, replies = _prompts(features), _replies(features)
    branches: list[st.SearchStrategy[Any]] = [replies, prompts, replies, prompts]
    if "system_rows" in features:
        branches.append(st.builds(Note, kind=st.sampled_from(
            ["stop_hook_summary", "turn_duration", "local_command", "hook_context"])))
    if "rewinds" in features:
        branches.append(st.builds(Rewind, distance=st.integers(0, 5)))
    if "compaction" in features:
        branches.append(st.builds(Compact, keep=st.integers(0, 2),
                                  style=st.sampled_from(["segment", "messages"]),
                                  trigger=st.sampled_from(["manual", "auto"])))
    if "sidechains" in features:
        branches.append(st.builds(Task, steps=st.integers(1, 3)))
    if "metadata" in features:
        branches.append(st.builds(Metadata, kind=st.sampled_from(
            ["custom-title", "tag", "last-prompt", "summary", "ai-title", "mode", "agent-name",
             "worktree-state", "pr-link", "file-history-snapshot", "queue-operation"]),
            value=st.integers(0, 9)))
    return st.one_of(branches)


def _check(options: dict[str, bool], generations: Iterable[str] | None, min_ops: int,
           max_ops: int, max_entries: int) -> tuple[frozenset[str], tuple[str, ...]]:
    unknown = set(options) - set(FEATURES)
    if unknown:
        raise InvalidArgument(f"unknown transcript features: {sorted(unknown)}")
    if not 0 <= min_ops <= max_ops:
        raise InvalidArgument(f"need 0 <= min_ops <= max_ops, got {min_ops}, {max_ops}")
    if max_entries < 1:
        raise InvalidArgument(f"max_entries must be positive, got {max_entries}")
    known = [g.version for g in GENERATIONS]
    chosen = tuple(known if generations is None else generations)
    if not chosen or set(chosen) - set(known):
        raise InvalidArgument(f"generations must be a non-empty subset of {known}")
    return frozenset(f for f in FEATURES if options.get(f, True)), chosen


def transcripts(*, generations: Iterable[str] | None = None, min_ops: int = 1,
                max_ops: int = 30, max_entries: int = 50, reappend_on_exit: bool | None = None,
                **features: bool) -> st.SearchStrategy[Transcript]:
    """Transcripts written by the writer model, with their intended conversation.

    Keyword switches (all on by default): ``parallel_tools``, ``split_messages``,
    ``rewinds``, ``compaction``, ``sidechains``, ``progress``, ``metadata``,
    ``interrupts``, ``queued``, ``meta_rows``, ``system_rows``, ``timestamp_skew``.
    ``generations`` restricts the format generations (newest first; shrinks to the first).
    ``max_entries`` bounds chain messages in the main file (later operations are dropped).

    Shrinks by deleting operations, simplifying each toward its defaults, re-enabling
    swarm-disabled features, and moving the generation, salt and start time to the first
    generation, 0 and 2026-01-01.
    """
    enabled, chosen = _check(features, generations, min_ops, max_ops, max_entries)

    @st.composite
    def build(draw: st.DrawFn) -> Transcript:
        disabled = draw(st.frozensets(st.sampled_from(sorted(enabled)), max_size=len(enabled))
                        if enabled else st.just(frozenset()))
        generation = draw(st.sampled_from(chosen))
        salt = draw(st.integers(0, 2**32 - 1))
        start = EPOCH_MS + draw(st.integers(0, 10**10))
        first = draw(_prompts(enabled - disabled))
        script = draw(st.lists(operations(enabled - disabled), min_size=max(min_ops - 1, 0),
                               max_size=max(max_ops - 1, 0)))
        reappend = draw(st.booleans()) if reappend_on_exit is None else reappend_on_exit
        transcript = write((first, *script), generation=generation, salt=salt,
                           start_ms=start, max_entries=max_entries, reappend_on_exit=reappend)
        label(transcript)
        return transcript

    return build()
