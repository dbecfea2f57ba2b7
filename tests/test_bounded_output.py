"""A one-shot reader's output read with a cap and a deadline (``bounded_output.collect``)."""

from __future__ import annotations

import contextlib
import os
import signal
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


class _SeenExitingOnlyWhenWaited(subprocess.Popen[bytes]):
    """A process whose exit ``poll`` sees only after ``wait``: its pipes close before it
    is reaped, which a loaded machine shows for a moment after every exit."""

    waited = False

    def poll(self) -> int | None:
        return super().poll() if self.waited else None

    def wait(self, timeout: float | None = None) -> int:
        self.waited = True
        return super().wait(timeout)


def test_a_run_whose_pipes_close_before_its_exit_is_seen_is_not_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The loop ended because no reader thread was alive, then a second ask after it
    (answered 'alive' by a thread that ended between asks) called the run timed out:
    a reader failed a CI run for being too slow at 0.1 s of a 60 s limit."""
    monkeypatch.setattr(bounded_output.threading, "Thread", _EndsBetweenAsks)
    proc = _SeenExitingOnlyWhenWaited(["/bin/sh", "-c", "cat; echo said >&2"],
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE)
    got = bounded_output.collect(proc, b"answer\n", 60, None, proc.kill)
    assert (got.out, got.err, got.timed_out, got.over_cap) == (b"answer\n", b"said\n",
                                                              False, False)
    assert proc.returncode == 0


def _run(script: str, timeout: float, cap: int | None = None) -> bounded_output.Collected:
    proc = subprocess.Popen(["/bin/sh", "-c", script], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)

    def kill_group() -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)

    try:
        got = bounded_output.collect(proc, b"", timeout, cap, kill_group)
        assert proc.poll() is not None  # never left running
        return got
    finally:
        kill_group()


def test_a_process_still_running_at_the_deadline_is_timed_out() -> None:
    got = _run("echo started; exec sleep 60", 0.5)
    assert (got.out, got.timed_out, got.over_cap) == (b"started\n", True, False)


def test_a_process_that_exits_leaving_a_child_on_its_pipes_is_judged_on_what_it_wrote() -> None:
    got = _run("echo done; sleep 60 & exit 0", 30)
    assert (got.out, got.timed_out, got.over_cap) == (b"done\n", False, False)


def test_a_process_that_writes_past_the_cap_is_over_cap_not_timed_out() -> None:
    got = _run("exec yes", 30, cap=1 << 20)
    assert got.over_cap and not got.timed_out
    assert 1 << 20 < len(got.out) < 1 << 22
