"""A one-shot reader's output, read with a cap and a deadline.

``Popen.communicate`` keeps whatever the process writes: a reader that prints without end
(``yes``) grew rechain's own memory by gigabytes and overran the case's time limit while
it was read. Here stdout is kept up to a cap (past it the process tree is killed and the
case is a crash), stderr only as its last bytes, and the deadline holds however much the
process writes; a process that exits leaving a child holding its pipes is judged on what
it wrote, not timed out.
"""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import IO

CHUNK = 1 << 16
POLL_S = 0.05
#: how long the pipes may stay open after the process exited (a child it left running
#: holds them): then the child is killed and the process's answer is what it wrote
GRACE_S = 1.0
STDERR_KEPT = 1 << 16  # the tail a failure quotes


@dataclass
class Collected:
    """What a process wrote and how its run ended (``timed_out``, ``over_cap``)."""

    out: bytes
    err: bytes
    timed_out: bool = False
    over_cap: bool = False


def collect(proc: subprocess.Popen[bytes], stdin: bytes, timeout: float, cap: int | None,
            kill: Callable[[], None]) -> Collected:
    """Feed ``stdin``, read stdout up to ``cap`` bytes (None: no cap) and keep the tail of
    stderr, until the process ends and closes both, or ``timeout`` seconds pass."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out, err = bytearray(), bytearray()
    over = threading.Event()

    def feed(pipe: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            pipe.write(stdin)
        with contextlib.suppress(OSError, ValueError):
            pipe.close()

    def keep(pipe: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := pipe.read1(CHUNK):  # type: ignore[attr-defined]
                out.extend(chunk)
                if cap is not None and len(out) > cap:
                    over.set()
                    kill()
                    return

    def tail(pipe: IO[bytes]) -> None:
        with contextlib.suppress(OSError, ValueError):
            while chunk := pipe.read1(CHUNK):  # type: ignore[attr-defined]
                err.extend(chunk)
                del err[:-STDERR_KEPT]

    threads = [threading.Thread(target=job, args=(pipe,), daemon=True)
               for job, pipe in ((feed, proc.stdin), (keep, proc.stdout), (tail, proc.stderr))]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout
    ended: float | None = None  # when the process itself exited
    timed_out = False
    while time.monotonic() < deadline:
        # asked once a round, and the round's answer is final: a reader thread that ends
        # between two asks is no error (a second ask to pick the thread to wait on raised
        # StopIteration, and one after the loop called a finished run timed out)
        alive = [t for t in threads[1:] if t.is_alive()]
        if not alive:
            break
        if ended is None and proc.poll() is not None:
            ended = time.monotonic()
        if ended is not None and time.monotonic() - ended > GRACE_S:
            kill()  # what it started holds the pipes open: its answer is what it wrote
            break
        alive[0].join(POLL_S)
    else:
        timed_out = ended is None  # the deadline passed with the process still running
    if timed_out:
        kill()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.wait(max(0.0, deadline - time.monotonic()) if not timed_out else 5)
    if proc.poll() is None:
        timed_out = True
        kill()
        proc.wait()
    for thread in threads:
        thread.join(5)
    for pipe in (proc.stdout, proc.stderr):
        with contextlib.suppress(OSError):
            pipe.close()
    return Collected(bytes(out), bytes(err), timed_out and not over.is_set(), over.is_set())
