"""Every process a run started, found by a mark in its environment, even outside its group.

A reader or fuzz target runs in a session (and process group) of its own and is stopped
with a signal to that group. A child it starts that calls ``setsid()`` or ``setpgid()``
(a daemonising reader, a double fork) leaves the group, and the group kill misses it: it
would run on after rechain's case or run, on the user's CI machine, for ever. What such
a child keeps is its environment: every process started under a ``Mark`` carries
``RECHAIN_TREE=<token>``, a token no other tree has, and ``Mark.sweep`` SIGKILLs every
process of this user whose ``/proc/PID/environ`` holds that entry. It adds to the group
kill, never replaces it. A memory watchdog counts the carriers too (``carriers``, once a
poll, where a memory limit is set): a double-forked child is out of the process tree it
walks, and would grow without a limit until the sweep.

The limits, honestly: a process that starts a program with an environment of its own
(``env -i``, ``execve`` with a new env) drops the mark and is not found; nor is one this
user may not read (another user's, one that made itself non-dumpable) nor one in another
PID namespace; and off Linux (no ``/proc``) a sweep finds nothing.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import secrets
import signal
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field

#: the environment variable that carries a tree's token
NAME = "RECHAIN_TREE"
#: the one that carries this rechain process's token, the same in every tree it starts:
#: what ``run_guard`` sweeps once rechain has ended, however it ended
RUN_NAME = "RECHAIN_RUN"
#: how many times a sweep looks again after it killed something: a process may have
#: forked between being read and being killed, and its child carries the mark too
ROUNDS = 8
#: how long a clean exit waits for the run's guard to sweep (a ``grep`` over ``/proc``)
GUARD_WAIT_S = 5.0
#: the same sweep as ``Mark.sweep``, for a ``/bin/sh`` that outlives rechain
#: (``run_guard``, ``fuzz/groups.guard``): ``"$1"`` is the entry, ``NAME=token``; one
#: ``grep`` reads every environment (NUL-ended records, ``-z``), the run guard sweeping at
#: each rechain's end (6 ms, where a ``tr | grep`` per process took 165 ms)
SHELL_SWEEP = (
    'for round in 1 2 3; do '
    'found=$(grep -lzxF -e "$1" /proc/[0-9]*/environ 2>/dev/null); '
    '[ -n "$found" ] || break; '
    'for env in $found; do pid=${env#/proc/}; kill -s KILL "${pid%/environ}" 2>/dev/null; '
    'done; done'
)


def _token() -> str:
    return secrets.token_hex(16)


@dataclass(frozen=True, slots=True)
class Mark:
    """The mark of one tree of processes: put it ``on`` the environment a process starts
    with, ``sweep`` once the tree is to end."""

    token: str = field(default_factory=_token)

    @property
    def entry(self) -> str:
        """``RECHAIN_TREE=<token>``, as it stands in a marked process's environment."""
        return f"{NAME}={self.token}"

    def on(self, env: Mapping[str, str] | None = None) -> dict[str, str]:
        """``env`` (None: this process's own) with the mark and the run's, replacing any
        it had (a rechain run under a rechain marks its own trees)."""
        return {**(os.environ if env is None else env), NAME: self.token,
                RUN_NAME: run_guard()}

    def carriers(self, skip: frozenset[int] = frozenset()) -> set[int]:
        """The processes that carry the mark (one pass over ``/proc``), but ``skip``'s.
        A one-shot reader's tree is swept after each case, so a pass is paid per case:
        plain ``os`` calls, no ``Path`` per process (0.7 ms for 70 processes, not 1.5)."""
        entry = self.entry.encode()
        found: set[int] = set()
        try:
            listing = os.scandir("/proc")
        except OSError:  # no /proc: off Linux
            return found
        with listing:
            for item in listing:
                if not item.name.isdigit() or int(item.name) in skip:
                    continue
                variables = _environ(item.name)
                if entry in variables and entry in variables.split(b"\0"):
                    found.add(int(item.name))
        return found

    def sweep(self) -> int:
        """SIGKILL every process that carries the mark, looking again while a pass found
        one not yet killed (up to ``ROUNDS``); how many were signalled."""
        killed: set[int] = set()
        for _ in range(ROUNDS):
            found = self.carriers(frozenset(killed | {os.getpid()}))
            if not found:
                break
            for pid in found:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.kill(pid, signal.SIGKILL)
            killed |= found
        return len(killed)


def _environ(pid: str) -> bytes:
    """A process's environment as it was started, ``NAME=value`` entries ending in NUL;
    empty when it is gone, a zombie or another user's."""
    try:
        descriptor = os.open(f"/proc/{pid}/environ", os.O_RDONLY)
    except OSError:
        return b""
    chunks = []
    try:
        while chunk := os.read(descriptor, 1 << 16):
            chunks.append(chunk)
    except OSError:
        return b""
    finally:
        os.close(descriptor)
    return b"".join(chunks)


_RUN: list[tuple[str, subprocess.Popen[bytes]]] = []  # the token and its guard, once made
_RUN_LOCK = threading.Lock()


def run_guard() -> str:
    """This rechain process's run token, its guard started on first use: a shell (in a
    session of its own, unmarked) that waits on a pipe only rechain holds and, once the
    kernel closes it (rechain ended, even killed outright), kills every process carrying
    the token. ``PR_SET_PDEATHSIG`` (``lifetime.py``) ends only the process rechain
    started; a group kill or a tree's sweep needs a rechain alive to send it."""
    with _RUN_LOCK:
        if not _RUN:
            token = secrets.token_hex(16)
            guard = subprocess.Popen(
                ["/bin/sh", "-c", f"read -r _; {SHELL_SWEEP}", "rechain-run-guard",
                 f"{RUN_NAME}={token}"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL, start_new_session=True, env=unmarked())
            _RUN.append((token, guard))
            atexit.register(_end_run)
        return _RUN[0][0]


def _end_run() -> None:
    """At a clean exit, close the guard's pipe and reap it once it has swept: left to the
    interpreter's shutdown, it was a subprocess still running and a pipe open
    (``ResourceWarning``)."""
    for _, guard in _RUN:
        if guard.stdin is not None:
            with contextlib.suppress(OSError):
                guard.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            guard.wait(GUARD_WAIT_S)


def unmarked(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """``env`` (None: this process's own) without a mark: for a helper a marked process
    starts that must outlive it (a clean-up shell), so no sweep, its tree's or its run's,
    takes it."""
    return {k: v for k, v in (os.environ if env is None else env).items()
            if k not in (NAME, RUN_NAME)}
