"""A one-shot reader's output read with a cap and a deadline (``bounded_output.collect``)."""

from __future__ import annotations

import subprocess
import threading

import pytest

from rechain.conformance import bounded_output


class _EndsBetweenAsks(threading.Thread):
    """A reader thread that, once ended, answers every other ask as if it had not: what
    the scheduler does when it ends between two asks of one round of the loop."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.asked_after_end = 0

    def is_alive(self) -> bool:
        if super().is_alive():
            return True
        self.asked_after_end += 1
        return self.asked_after_end % 2 == 1


def test_a_reader_thread_that_ends_between_two_asks_is_no_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Asking once whether any thread was alive, then again for the one to wait on, raised
    StopIteration when it ended in between: under load a real reader's case crashed
    ('StopIteration in the adapter') and its pipes were left open."""
    monkeypatch.setattr(bounded_output.threading, "Thread", _EndsBetweenAsks)
    proc = subprocess.Popen(["/bin/sh", "-c", "cat; echo said >&2"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    got = bounded_output.collect(proc, b"answer\n", 60, None, proc.kill)
    assert (got.out, got.err, got.timed_out, got.over_cap) == (b"answer\n", b"said\n",
                                                              False, False)
    assert proc.stdout is not None and proc.stdout.closed
    assert proc.stderr is not None and proc.stderr.closed
