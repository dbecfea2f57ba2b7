"""A printed replay command as words, for the places that rewrite one.

A finding's replay is one shell line: variable assignments, the words that started
rechain on the machine that ran it (``rechain``, a venv's console script, ``PYTHON -m
rechain``), then ``check`` and its options. The matrix page makes it portable, the
matrix's terminal listing points it at this machine, a merged report at the cases
downloaded beside it. Each rewrites the program or an option's value through this one
form, never a substring of the line (a path that is a prefix of another, or written
quoted, rewrites as any other).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Sequence
from dataclasses import dataclass

from rechain.conformance.report_resume import option_value

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
SUBCOMMAND = "check"


@dataclass(frozen=True, slots=True)
class ReplayLine:
    """A replay's words: the assignments before it, the program, and ``check`` on."""

    assignments: tuple[str, ...]
    program: tuple[str, ...]
    arguments: tuple[str, ...]  # from the subcommand on

    @classmethod
    def parse(cls, line: str) -> ReplayLine | None:
        """The line's words, or None when it is no shell line running ``check``."""
        try:
            words = shlex.split(line)
        except ValueError:  # an unbalanced quote: nothing to rewrite safely
            return None
        start = next((at for at, word in enumerate(words) if not _ASSIGNMENT.match(word)),
                     len(words))
        if SUBCOMMAND not in words[start:]:
            return None
        at = words.index(SUBCOMMAND, start)
        return cls(tuple(words[:start]), tuple(words[start:at]), tuple(words[at:]))

    def option(self, flag: str) -> str | None:
        """The value of the first ``flag V`` (or ``flag=V``)."""
        return option_value(self.arguments, flag)

    def with_option(self, flag: str, value: str) -> ReplayLine:
        """Every ``flag V`` (and ``flag=V``) given ``value``."""
        out: list[str] = []
        words = self.arguments
        for at, word in enumerate(words):
            if at > 0 and words[at - 1] == flag:
                out.append(value)
            elif word.startswith(f"{flag}="):
                out.append(f"{flag}={value}")
            else:
                out.append(word)
        return ReplayLine(self.assignments, self.program, tuple(out))

    def with_program(self, program: Sequence[str]) -> ReplayLine:
        return ReplayLine(self.assignments, tuple(program), self.arguments)

    def __str__(self) -> str:
        return shlex.join([*self.assignments, *self.program, *self.arguments])
