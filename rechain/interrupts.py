"""SIGTERM handled like Ctrl-C: a run that is told to stop ends with what it finished.

Python turns SIGINT into ``KeyboardInterrupt``; SIGTERM (what ``kill``, CI runners and
``timeout`` send) would end the process at once, leaving no summary and no footer.
While a command runs, SIGTERM raises ``Terminated``, a ``KeyboardInterrupt``, so every
``except KeyboardInterrupt`` that saves a run's results saves them for both; the exit
status says which: 130 for Ctrl-C, 1 for SIGTERM.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from types import FrameType


class Terminated(KeyboardInterrupt):
    """The process was sent SIGTERM."""

    exit_code = 1
    said = "terminated"


def exit_code(stop: KeyboardInterrupt) -> int:
    """130 for Ctrl-C (the shell's convention), 1 for SIGTERM."""
    return int(getattr(stop, "exit_code", 130))


def said(stop: KeyboardInterrupt) -> str:
    return str(getattr(stop, "said", "interrupted"))


def _raise(signum: int, frame: FrameType | None) -> None:
    raise Terminated


@contextlib.contextmanager
def terminate_as_interrupt() -> Iterator[None]:
    """SIGTERM raises ``Terminated`` in the main thread while the block runs."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, _raise)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
