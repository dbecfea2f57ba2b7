"""stdout whose reader may go away: ``rechain check … | head`` keeps its verdict.

When the program reading rechain's stdout exits early (``head``, a pager quit), the next
write raises ``BrokenPipeError``. Caught at the top, that ended the run with exit 0: no
``--html``, ``--junit`` or report footer written, and a run with disagreements passed a
CI step. Behind this guard what is printed after the reader left is dropped, and the
command goes on to write its files and exit with its own code.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator
from typing import Any, TextIO


class Guarded:
    """A text stream that turns a closed pipe into silence for the rest of the run."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._silence()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._silence()

    def _silence(self) -> None:
        """Drop what is left, and point the descriptor at /dev/null so the interpreter's
        own flush at exit finds no broken pipe either."""
        self.gone = True
        with contextlib.suppress(OSError, ValueError, AttributeError):
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, self._stream.fileno())
            os.close(devnull)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


@contextlib.contextmanager
def guarded_stdout() -> Iterator[Guarded]:
    """``sys.stdout`` guarded for the duration of one command."""
    previous = sys.stdout
    guard = previous if isinstance(previous, Guarded) else Guarded(previous)
    sys.stdout = guard  # type: ignore[assignment]
    try:
        yield guard
    finally:
        sys.stdout = previous
