"""The structure-aware mutator: line and JSON-value operations next to byte mutations.

libFuzzer's byte mutator alone rarely turns one valid transcript into another
with a different graph, so most mutations here work on lines and JSON values
(``line_ops``, ``value_ops``), 1 to 3 stacked per call; the rest go to the byte
mutator libFuzzer provides (``atheris.Mutate``). Outputs never exceed
``max_size``: lines are dropped until they fit, never cut mid-way (a cut line
is a mutation of its own). With ``one_line`` (the line parser's harnesses)
the input is one line and stays one: a file-level operation there only
makes the parser read past the first value, which costs time and tests
nothing a line reader meets. Standard library only; atheris is passed in.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from rechain.fuzz.line_ops import LINE_OPS, ONE_LINE_OPS
from rechain.fuzz.value_ops import VALUE_OPS

ByteMutate = Callable[[bytes, int], bytes]
OPS = (*LINE_OPS, *VALUE_OPS)
#: for a line parser's harness the input is one line: no operation that adds or moves lines
ONE_LINE = (*ONE_LINE_OPS, *VALUE_OPS)


def _split(data: bytes) -> list[bytes]:
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    return lines


def _join(lines: list[bytes], final_newline: bool) -> bytes:
    data = b"\n".join(lines)
    return data + b"\n" if final_newline and lines else data


def _fit(lines: list[bytes], max_size: int, rng: random.Random) -> bytes:
    """Drop random lines until the file fits (keeps every remaining line whole)."""
    size = sum(len(line) + 1 for line in lines)
    while lines and size > max_size:
        gone = lines.pop(rng.randrange(len(lines)))
        size -= len(gone) + 1
    return _join(lines, True)


class TranscriptMutator:
    """``mutate``/``crossover`` with atheris' custom-mutator signatures."""

    def __init__(
        self,
        byte_mutate: ByteMutate | None = None,
        byte_share: float = 0.25,
        seed: int = 0,
        one_line: bool = False,
    ) -> None:
        self.byte_mutate = byte_mutate
        self.byte_share = byte_share if byte_mutate is not None else 0.0
        self.one_line = one_line
        # one generator for the process: seeding a new one per call costs more than a mutation
        self.rng = random.Random(seed)

    def mutate(self, data: bytes, max_size: int, seed: int) -> bytes:
        """One structured mutation (1-3 stacked operations) or one byte mutation."""
        rng = self.rng
        if self.byte_mutate is not None and (not data or rng.random() < self.byte_share):
            return self.byte_mutate(data, max_size)
        if self.one_line:
            return self._mutate_line(data, max_size)
        lines = _split(data)
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            op = rng.choice(OPS)
            lines = op(lines, rng)
        out = _join(lines, data.endswith(b"\n") or rng.random() < 0.9)
        return out if len(out) <= max_size else _fit(lines, max_size, rng)

    def _mutate_line(self, data: bytes, max_size: int) -> bytes:
        """1-3 one-line operations; of what they leave, the changed line (no LF added)."""
        rng = self.rng
        lines = [data]
        for _ in range(rng.choice((1, 1, 1, 2, 3))):
            lines = rng.choice(ONE_LINE)(lines, rng)
        if len(lines) > 1:  # an operation added a line: keep one that is not the input
            changed = [line for line in lines if line != data]
            lines = changed or lines
        out = lines[rng.randrange(len(lines))] if lines else b""
        return out[:max_size]

    def crossover(self, first: bytes, second: bytes, max_size: int, seed: int) -> bytes:
        """Lines of one transcript spliced into the other (a resumed or concatenated file)."""
        rng = self.rng
        if self.one_line:  # the head of one line on the tail of another
            out = first[: rng.randrange(len(first) + 1)] + second[rng.randrange(len(second) + 1) :]
            return out[:max_size]
        a, b = _split(first), _split(second)
        if not b:
            return first[:max_size]
        start = rng.randrange(len(b))
        piece = b[start : start + rng.randint(1, 8)]
        at = rng.randrange(len(a) + 1)
        lines = a[:at] + piece + a[at:] if rng.random() < 0.7 else a[:at] + piece
        out = _join(lines, True)
        return out if len(out) <= max_size else _fit(lines, max_size, rng)
