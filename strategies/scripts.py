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


_BLOCKS = ("text", "tool_use", "thinking")
_PROMPT_KINDS = ("text", "blocks", "command", "meta", "interrupt")
_NOTES = ("stop_hook_summary", "turn_duration", "local_command", "hook_context")
_METADATA = ("custom-title", "tag", "last-prompt", "summary", "ai-title", "mode", "agent-name",
             "worktree-state", "pr-link", "file-history-snapshot", "queue-operation")
#: Operation kind by ``code % 16`` (replies and prompts fill most slots, as in real
#: sessions); a disabled feature's slot becomes a prompt.
_SLOTS = ("reply", "prompt", "reply", "prompt", "reply", "prompt", "reply", "note",
          "reply", "rewind", "reply", "compact", "reply", "task", "reply", "metadata")
_NEEDS = {"note": "system_rows", "rewind": "rewinds", "compact": "compaction",
          "task": "sidechains", "metadata": "metadata"}


#: How far the clock steps back inside a skewed turn: past the prompt it answers.
SKEW_IN_TURN_MS = 5_000
#: The newest generation's share of draws, out of ``len(generations) + NEWEST_EXTRA``:
#: most files on disk come from recent releases, and only it writes preserved segments.
NEWEST_EXTRA = 4


def _digits(value: int, base: int, count: int) -> list[int]:
    out = []
    for _ in range(count):
        value, digit = divmod(value, base)
        out.append(digit)
    return out


class _Decoder:
    """Turns one integer into one operation, honouring the enabled features.

    Every operation is a single integer draw (generation stays fast), laid out so that 0 is
    the simplest value of each field: the shrinker, minimising the integer, moves toward a
    one-block text reply, a plain prompt with a tied timestamp, in-order results and no
    extras. Each field is a bit field, so dropping one field keeps the others.
    """

    def __init__(self, features: frozenset[str]) -> None:
        self.features = features
        self.split = "split_messages" in features
        self.calls = 3 if "parallel_tools" in features else 1
        self.prompt_kinds = [k for k in _PROMPT_KINDS if k in ("text", "blocks")
                             or (k in ("command", "meta") and "meta_rows" in features)
                             or (k == "interrupt" and "interrupts" in features)]

    def __call__(self, code: int) -> Op:
        """The kind from ``code % 16``, its fields from the rest."""
        slot, rest = _SLOTS[code % 16], code // 16
        if slot in _NEEDS and _NEEDS[slot] not in self.features:
            slot = "prompt"
        if slot == "reply":
            return self.reply(rest)
        if slot == "prompt":
            return self.prompt(rest)
        if slot == "note":
            return Note(_NOTES[rest % len(_NOTES)])  # type: ignore[arg-type]
        if slot == "rewind":
            return Rewind(rest % 6)
        if slot == "compact":  # 0: a manual compaction keeping nothing
            v = rest % 16
            return Compact(keep=0 if v < 2 else 1 + v // 2 % 2,
                           style="messages" if v % 2 else "segment",
                           trigger="auto" if v >= 12 else "manual")
        if slot == "task":
            return Task(1 + rest % 3)
        return Metadata(_METADATA[rest % len(_METADATA)],  # type: ignore[arg-type]
                        rest // len(_METADATA) % 10)

    def prompt(self, rest: int) -> Prompt:
        """Kind, then a pause in 0.6 s steps (0: a tie), negative 1 in 4 when skew is on."""
        kind = self.prompt_kinds[rest % len(self.prompt_kinds)]
        q = rest // len(self.prompt_kinds)
        pause = (q % 1000) * 600
        if "timestamp_skew" in self.features and q // 1000 % 4 == 3:
            pause = -min(pause, 120_000)
        return Prompt(kind, pause)  # type: ignore[arg-type]

    def blocks(self, bits: int) -> list[str]:
        """Stream order: thinking? text? up to 3 tool calls, text after them? (5 bits)."""
        tools = min(bits >> 2 & 3, self.calls)
        blocks = (["thinking"] * (bits & 1) + ["text"] * (bits >> 1 & 1)
                  + ["tool_use"] * tools + ["text"] * (bits >> 4 & 1))
        if not blocks:
            return ["text"]
        if not self.split:
            return ["tool_use"] if tools else blocks[:1]
        return blocks

    def reply(self, rest: int) -> Reply:
        """Blocks (5 bits), then base-4 result delays, eager bits, unanswered, hooks, queue,
        skew."""
        blocks = self.blocks(rest & 31)
        extras = rest >> 5
        n = blocks.count("tool_use")
        delays = _digits(extras, 4, n)
        bits = extras >> 6
        eager = [bool(bits >> i & 1) for i in range(n)]
        bits >>= 3
        skew = bits >> 4 & 1 and "timestamp_skew" in self.features
        return Reply(tuple(blocks), tuple(delays), tuple(eager),  # type: ignore[arg-type]
                     unanswered=min(bits & 3, 2) if "interrupts" in self.features else 0,
                     hooks=bool(bits >> 2 & 1) and "progress" in self.features,
                     queued=bool(bits >> 3 & 1) and "queued" in self.features,
                     skew_ms=SKEW_IN_TURN_MS if skew else 0)


@cache
def operations(features: frozenset[str] = frozenset(FEATURES)) -> st.SearchStrategy[Op]:
    """One operation: a single integer, decoded by :class:`_Decoder`."""
    return st.integers(0, 2**24 - 1).map(_Decoder(features))


#: One or two operations per drawn integer (half the draws of a list of operations): the
#: low 24 bits are the first operation; the high bits, when not 0, the second, so the
#: shrinker drops the second operation by zeroing them. Drawn as plain integers and decoded
#: after the list is drawn: a mapped element costs Hypothesis a span and a call per draw.
_PAIR_CODES = st.integers(0, 2**48 - 1)


def _two(decode: _Decoder, code: int) -> tuple[Op, ...]:
    first, second = code & 0xFFFFFF, code >> 24
    return (decode(first),) if second == 0 else (decode(first), decode(second - 1))


@cache
def _decoder(features: frozenset[str]) -> _Decoder:
    """One decoder per feature set (it only reads them)."""
    return _Decoder(features)


@cache
def _prompts(features: frozenset[str]) -> st.SearchStrategy[Prompt]:
    """Prompts alone (the first operation of every script)."""
    return st.integers(0, 2**20 - 1).map(_Decoder(features).prompt)


@cache
def _replies(features: frozenset[str]) -> st.SearchStrategy[Reply]:
    """Replies alone (to append a turn)."""
    return st.integers(0, 2**20 - 1).map(_Decoder(features).reply)


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
    generation, 0 and 2026-01-01. Few draws per transcript (about one per two operations)
    keep generation fast.
    """
    enabled, chosen = _check(features, generations, min_ops, max_ops, max_entries)

    names = sorted(enabled)
    low, high = max(min_ops - 1, 0), max(max_ops - 1, 0)
    # the strategies are built once: a build only draws from them
    masks = st.integers(0, 4 ** len(names) - 1)
    heads = st.integers(0, 2**64 - 1)
    top = max(min(6, high), low)
    floors = st.integers(low, top) if top > low else None  # a fixed floor needs no draw
    lists = {floor: st.lists(_PAIR_CODES, min_size=floor, max_size=high)
             for floor in range(low, top + 1)}

    @st.composite
    def build(draw: st.DrawFn) -> Transcript:
        # swarm: a feature is off when its two bits are both set (1 in 4); shrinks to none
        mask = draw(masks)
        disabled = frozenset(n for i, n in enumerate(names) if mask >> (2 * i) & 3 == 3)
        live = enabled - disabled
        # one integer for the generation, exit re-append, salt and start time (all → 0)
        head = draw(heads)
        generation = chosen[max(0, head % (len(chosen) + NEWEST_EXTRA) - NEWEST_EXTRA)]
        reappend = bool(head >> 3 & 1) if reappend_on_exit is None else reappend_on_exit
        salt = head >> 4 & 0xFFFF_FFFF
        start = EPOCH_MS + (head >> 36) % 10**8 * 100
        first = draw(_prompts(live))
        # a drawn floor makes typical scripts longer (more features per example); it
        # shrinks to the minimum first, then pairs of operations are deleted
        floor = low if floors is None else draw(floors)
        decode = _decoder(live)
        script = [op for code in draw(lists[floor]) for op in _two(decode, code)]
        transcript = write((first, *script[:high]), generation=generation, salt=salt,
                           start_ms=start, max_entries=max_entries, reappend_on_exit=reappend)
        label(transcript)
        return transcript

    return build()
