"""A stateful model for incremental readers: a session file that grows step by step.

:class:`TranscriptMachine` appends turns, rewinds, compacts and leaves partial writes (a
line cut short by a crash, with the next append glued onto it), and after every step
checks that the reader returns the conversation the file then means. Subclass it and
override :meth:`read` to drive an incremental or tail-reading loader; the default reads
the whole file with ``rechain.reference.rebuild``.
"""

from __future__ import annotations

from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from rechain.reference import rebuild
from rechain.strategies.clock import EPOCH_MS
from rechain.strategies.conversation import Undetermined, expected, is_entry
from rechain.strategies.generations import BY_VERSION
from rechain.strategies.ops import Compact, Prompt, Reply, Rewind
from rechain.strategies.scripts import FEATURES, _prompts, _replies
from rechain.strategies.transcript import dumps
from rechain.strategies.views import visible
from rechain.strategies.writer import Writer

_ALL = frozenset(FEATURES) - {"queued"}


class TranscriptMachine(RuleBasedStateMachine):
    """Grows one session file with the writer model; shrinks to the fewest steps."""

    profile = "sdk"

    def __init__(self) -> None:
        super().__init__()
        self.writer = Writer(BY_VERSION["2.1.332"], 0, EPOCH_MS, max_entries=10**9)
        self.partial: dict[int, bytes] = {}  # line index → torn bytes written before it

    def read(self, data: bytes) -> list[str]:
        """The reader under test: uuids of the conversation it rebuilds from ``data``."""
        return rebuild(data, self.profile).uuids

    def data(self) -> bytes:
        """The file as it stands: lines, with torn bytes glued in front where they fell."""
        out = []
        lines = self.writer.lines
        for index, line in enumerate(lines):
            out.append(self.partial.get(index, b"") + dumps(line) + b"\n")
        out.append(self.partial.get(len(lines), b""))
        return b"".join(out)

    def expected(self) -> list[str]:
        """The uuids the profile must show now."""
        pairs = [(None if i in self.partial else line, record) for i, (line, record)
                 in enumerate(zip(self.writer.lines, self.writer.records, strict=True))]
        outcome = expected(pairs)
        assert not isinstance(outcome, Undetermined), outcome.reason
        rows = {line["uuid"]: line for line, _ in pairs if is_entry(line)}  # type: ignore[index]
        return visible(outcome, rows.__getitem__, self.profile)

    @rule(prompt=_prompts(_ALL), reply=_replies(_ALL))
    def append_turn(self, prompt: Prompt, reply: Reply) -> None:
        """A prompt and its reply (with tool calls and results)."""
        self.writer.apply(prompt)
        self.writer.apply(reply)

    @rule(distance=st.integers(0, 4))
    def rewind(self, distance: int) -> None:
        """Rewind; the next append chains to the last survivor."""
        self.writer.apply(Rewind(distance))

    @rule(keep=st.integers(0, 2), style=st.sampled_from(["segment", "messages"]))
    def compact(self, keep: int, style: str) -> None:
        """Compaction, preserving the last ``keep`` turns."""
        self.writer.apply(Compact(keep=keep, style=style))  # type: ignore[arg-type]

    @rule(cut=st.integers(1, 80))
    def partial_write(self, cut: int) -> None:
        """A crash mid-append: the next line's first bytes, without a newline."""
        index = len(self.writer.lines)
        if index in self.partial:
            return
        self.partial[index] = b'{"parentUuid":null,"isSidechain":false,"type":"user"'[:cut]

    @invariant()
    def reader_agrees(self) -> None:
        """After every step the reader returns exactly the expected conversation."""
        got, want = self.read(self.data()), self.expected()
        assert got == want, f"got {got}\nwant {want}"
