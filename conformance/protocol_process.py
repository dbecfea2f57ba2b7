"""Readers in other processes: tier 1 (one command per case) and tier 2 (JSON lines).

Both run in the caller's working directory (so relative paths in the command
work) with a private HOME and TMPDIR and without any inherited CLAUDE_* or
ANTHROPIC_* variable, under a per-case wall-clock limit and a resident-memory
limit that a watchdog enforces by killing the process tree. Whatever the
process does (hangs, dies, prints garbage) becomes that case's Outcome; the
next case gets a fresh process when the old one is gone. The tree is its process
group plus whatever carries its ``marked.Mark`` (a child that left the group with
``setsid``): a one-shot reader's tree is swept at the end of every case, a harness's
when it is killed or closed.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import shlex
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rechain.conformance import outcome_text
from rechain.conformance.bounded_output import collect
from rechain.conformance.jsonl_process import TOO_LONG, drain, pump
from rechain.conformance.lifetime import dies_with_parent
from rechain.conformance.marked import Mark
from rechain.conformance.owned_dirs import make_owned, owned, release
from rechain.conformance.protocol import (
    CaseInput,
    Crashed,
    ImplementationInfo,
    Outcome,
    ProtocolError,
    Raised,
    TimedOut,
    outcome_from_result,
    parse_run_reply,
    parse_start_reply,
    run_request,
    start_request,
    stop_request,
)

STDERR_LINES = 40
POLL_S = 0.05


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-case limits: wall-clock seconds and resident memory in MiB (None: unlimited)."""

    timeout: float = 10.0
    memory_mb: int | None = 2048
    startup_timeout: float = 60.0


def clean_env(home: Path, extra: dict[str, str] | None = None) -> dict[str, str]:
    """PATH and a private HOME/TMPDIR; nothing Claude-related leaks in from the caller."""
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(home / "home"),
        "TMPDIR": str(home / "tmp"),
        "LANG": "C.UTF-8",
    }
    for name in ("PYTHONPATH", "VIRTUAL_ENV", "NODE_PATH"):
        if name in os.environ:
            env[name] = os.environ[name]
    (home / "home").mkdir(parents=True, exist_ok=True)
    (home / "tmp").mkdir(parents=True, exist_ok=True)
    env.update(extra or {})
    return env


def tree_status_kb(pid: int, field: str, mark: Mark | None = None) -> list[int]:
    """One ``/proc/*/status`` field (``VmRSS``, ``VmHWM``, in kB) of ``pid`` and each of its
    descendants (empty when it is gone), and of each process carrying ``mark`` and its
    descendants: a double-forked child left the tree (its parent is init now) and would
    grow without a limit."""
    found: list[int] = []
    pending = [pid, *(mark.carriers() if mark is not None else ())]
    seen: set[int] = set()
    while pending:
        current = pending.pop()
        if current in seen:
            continue
        seen.add(current)
        try:
            status = Path(f"/proc/{current}/status").read_text()
            children = Path(f"/proc/{current}/task/{current}/children").read_text().split()
        except OSError:
            continue
        found += [int(line.split()[1]) for line in status.splitlines()
                  if line.startswith(f"{field}:")]
        pending.extend(int(child) for child in children)
    return found


def rss_mb(pid: int, mark: Mark | None = None) -> float:
    """Resident memory of ``pid`` and its descendants in MiB (0 when it is gone), and of
    what carries ``mark`` (``tree_status_kb``)."""
    return sum(tree_status_kb(pid, "VmRSS", mark)) / 1024


def _kill_tree(proc: subprocess.Popen[bytes], mark: Mark | None = None) -> None:
    """Kill the process group a reader runs in (it was started in its own session), and
    what it started that left the group (it carries ``mark``: it may hold the pipes)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, 9)
    with contextlib.suppress(ProcessLookupError):
        proc.kill()
    if mark is not None:
        mark.sweep()


class _Watched:
    """A process plus a watchdog thread that kills it past the memory limit."""

    def __init__(self, proc: subprocess.Popen[bytes], memory_mb: int | None,
                 mark: Mark | None) -> None:
        self.proc = proc
        self.mark = mark
        self.over_memory = False
        self._stop = threading.Event()
        if memory_mb is not None:
            threading.Thread(target=self._watch, args=(memory_mb,), daemon=True).start()

    def _watch(self, limit: int) -> None:
        while not self._stop.wait(POLL_S * 2) and self.proc.poll() is None:
            if rss_mb(self.proc.pid, self.mark) > limit:
                self.over_memory = True
                _kill_tree(self.proc, self.mark)
                return

    def stop(self) -> None:
        self._stop.set()


# --- tier 1 -----------------------------------------------------------------------------


@dataclass
class OneShot:
    """Tier 1: run ``argv`` once per case; the transcript is a path (``{path}``) or stdin.

    Exit 0 with JSON on stdout (``result.json``) is an answer; any other exit is
    the reader rejecting the file (toml-test's rule), reported as ``Raised`` with
    the last stderr line; death by a signal, a timeout or a reply that is not
    JSON is a crash or timeout of that case only.
    """

    argv: Sequence[str]
    info: ImplementationInfo
    limits: Limits = field(default_factory=Limits)
    strict: bool = False

    def run(self, case: CaseInput) -> Outcome:
        with owned("rechain-t1-") as root:
            path = root / f"{case.session_id}.jsonl"
            path.write_bytes(case.data)
            meta = {k: v for k, v in case.to_json().items() if k != "transcript_b64"}
            mark = Mark()
            env = mark.on(clean_env(root, {**case.env, "RECHAIN_CASE": json.dumps(meta)}))
            uses_path = any("{path}" in arg for arg in self.argv)
            argv = [arg.replace("{path}", str(path)).replace("{session_id}", case.session_id)
                    for arg in self.argv]
            try:
                return self._run(argv, env, None if uses_path else case.data, mark)
            finally:  # nothing stays running between cases, in the group or out of it
                mark.sweep()

    def _run(self, argv: list[str], env: dict[str, str], stdin: bytes | None,
             mark: Mark | None = None) -> Outcome:
        """One run of the reader; a kill of its group kills what carries ``mark`` too (what
        it started that left the group may hold its pipes)."""
        try:
            proc = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                env=env, start_new_session=True, preexec_fn=dies_with_parent(),
            )
        except OSError as error:
            return Crashed(f"cannot start {argv[0]}: {error.strerror or error}")
        watched = _Watched(proc, self.limits.memory_mb, mark)
        cap = None if self.limits.memory_mb is None else self.limits.memory_mb << 20
        try:
            got = collect(proc, stdin or b"", self.limits.timeout, cap,
                          lambda: _kill_tree(proc, mark))
        finally:
            watched.stop()
        out, stderr = got.out, got.err.decode("utf-8", "replace")
        if got.over_cap:  # kept in rechain's memory: the reader's own limit bounds it
            return Crashed(f"stdout past the memory limit of {self.limits.memory_mb} MiB",
                           stderr)
        if got.timed_out:
            return TimedOut(self.limits.timeout)
        if watched.over_memory:
            return Crashed(f"memory limit of {self.limits.memory_mb} MiB exceeded", stderr)
        if proc.returncode < 0:
            return Crashed(f"killed by signal {-proc.returncode}", stderr)
        if proc.returncode != 0:
            last = [line for line in stderr.splitlines() if line.strip()]
            return Raised(f"exit {proc.returncode}", last[-1][:300] if last else "")
        try:
            result = json.loads(out)
        except ValueError:
            return Crashed(f"stdout is not JSON: {out[:200]!r}", stderr)
        except RecursionError:  # valid JSON, nested past what Python's parser reads
            return Crashed(f"stdout is JSON nested too deep to read: {out[:200]!r}", stderr)
        return outcome_from_result(result, strict=self.strict)

    def close(self) -> None:
        """Nothing stays running between cases."""


# --- tier 2 -----------------------------------------------------------------------------


Environment = Callable[[Path], dict[str, str]]  # a process's env, given its scratch directory


class HarnessDiedError(Exception):
    """The process ended or went silent; carries what to record for the case."""

    def __init__(self, outcome: Outcome) -> None:
        super().__init__(str(outcome))
        self.outcome = outcome


class _Process:
    """One running harness: request lines in, reply lines out, each read with a deadline."""

    def __init__(self, argv: Sequence[str], limits: Limits,
                 environment: Environment = clean_env) -> None:
        self._scratch = make_owned("rechain-t2-")
        self.mark = Mark()
        self.proc = subprocess.Popen(
            list(argv), stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=self.mark.on(environment(self._scratch)), start_new_session=True,
        )
        assert self.proc.stdout is not None and self.proc.stderr is not None
        self.limits = limits
        self.replies: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        cap = None if limits.memory_mb is None else limits.memory_mb << 20
        threading.Thread(target=pump, args=(self.proc.stdout, self.replies, cap),
                         daemon=True).start()
        threading.Thread(target=drain, args=(self.proc.stderr, self.stderr), daemon=True).start()
        self.watched = _Watched(self.proc, limits.memory_mb, self.mark)

    def tail(self) -> str:
        return "\n".join(self.stderr)

    def send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write(json.dumps(message).encode("ascii") + b"\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise HarnessDiedError(self._death("could not send the request")) from None

    def receive(self, timeout: float) -> Any:
        """The next reply line, parsed; HarnessDiedError on EOF, timeout or memory kill."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.kill()
                raise HarnessDiedError(TimedOut(timeout))
            try:
                line = self.replies.get(timeout=min(remaining, 0.5))
            except queue.Empty:
                continue
            if line is None:
                raise HarnessDiedError(self._death("the reader's process exited"))
            if line == TOO_LONG:  # held by rechain while it is read: the reader's limit
                self.kill()
                raise HarnessDiedError(Crashed(
                    f"reply line past the memory limit of {self.limits.memory_mb} MiB",
                    self.tail()))
            try:
                return json.loads(line)
            except (ValueError, RecursionError) as error:  # deep: valid, but unreadable
                self.kill()
                what = "not JSON" if isinstance(error, ValueError) else (
                    "JSON nested too deep to read")
                broken = Crashed(f"reply is {what}: {line[:200]!r}", self.tail())
                raise HarnessDiedError(broken) from None

    def _death(self, why: str) -> Outcome:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=2)
        if self.watched.over_memory:
            return Crashed(f"memory limit of {self.limits.memory_mb} MiB exceeded", self.tail())
        return Crashed(f"{why} (exit {self.proc.returncode})", self.tail())

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        _kill_tree(self.proc)
        self.close()  # which sweeps what left the group

    def close(self) -> None:
        self.watched.stop()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(timeout=5)
        if self.proc.poll() is None:
            _kill_tree(self.proc)
            self.proc.wait()
        self.mark.sweep()  # what it started that left its group, once it is gone
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                with contextlib.suppress(OSError):
                    pipe.close()
        release(self._scratch)


class Harness:
    """Tier 2: ``start`` once, ``run`` per case, ``stop`` at the end; restarts after a crash.

    A harness that cannot start may say why instead of answering ``start``:
    ``{"error": "..."}`` becomes the ProtocolError's message. ``started`` keeps
    the last ``start`` reply as it came. An ``errored`` reply whose context has
    ``"restart": true`` (the harness ends itself, e.g. past its memory limit) gets
    the process stopped before the next case, which starts a fresh one.
    """

    def __init__(
        self, argv: Sequence[str], limits: Limits | None = None, *, strict: bool = False,
        environment: Environment = clean_env,
    ) -> None:
        self.argv = list(argv)
        self.limits = limits or Limits()
        self.strict = strict
        self.environment = environment
        self.restarts = 0
        self.started: dict[str, Any] = {}
        self._process: _Process | None = None
        self._seq = 0
        self.info = self._start()

    def _start(self) -> ImplementationInfo:
        try:
            self._process = _Process(self.argv, self.limits, self.environment)
        except OSError as error:
            raise ProtocolError(f"cannot start {self.argv[0]}: {error.strerror or error}") from None
        try:
            self._process.send(start_request())
            reply = self._process.receive(self.limits.startup_timeout)
        except HarnessDiedError as died:
            self._process.kill()
            raise ProtocolError(
                f"the harness did not answer start: {outcome_text.sentence(died.outcome)}"
            ) from None
        if isinstance(reply, dict) and isinstance(reply.get("error"), str):
            self._process.kill()
            raise ProtocolError(reply["error"])
        try:
            info = parse_start_reply(reply)
        except ProtocolError:
            self._process.kill()
            raise
        self.started = reply
        return info

    def run(self, case: CaseInput) -> Outcome:
        if self._process is None or not self._process.alive():
            if self._process is not None:
                self._process.close()
            self.restarts += 1
            self.info = self._start()
        assert self._process is not None
        self._seq += 1
        try:
            self._process.send(run_request(self._seq, case))
            reply = self._process.receive(self.limits.timeout)
        except HarnessDiedError as died:
            self._process.kill()
            return died.outcome
        outcome = parse_run_reply(reply, self._seq, strict=self.strict)
        if isinstance(outcome, Crashed) and not outcome.caught:
            self._process.kill()  # out of step: start afresh for the next case
            return Crashed(outcome.message, self._process.tail())
        if _asks_restart(reply):
            self._process.kill()  # it is ending itself: never send the next case to it
        return outcome

    def close(self) -> None:
        if self._process is None:
            return
        if self._process.alive():
            with contextlib.suppress(HarnessDiedError):
                self._process.send(stop_request())
        self._process.close()
        self._process = None


def _asks_restart(reply: Any) -> bool:
    """An ``errored`` reply whose context says the harness is ending (``"restart": true``)."""
    context = reply.get("context") if isinstance(reply, dict) else None
    return isinstance(context, dict) and context.get("restart") is True


def split_command(text: str) -> list[str]:
    """A command line as argv (POSIX shell quoting); an empty one is a usage mistake."""
    argv = shlex.split(text)
    if not argv:
        raise ValueError("empty command")
    return argv


def cannot_start(program: str) -> str | None:
    """Why ``program`` (a command line's first word) cannot be started, or None: a
    one-shot reader is started once per case, so a wrong path is said once, up front,
    instead of as a crash of every case."""
    if "{" in program:  # ``{path}`` and the like are filled in per case
        return None
    if "/" not in program:
        found = shutil.which(program)
        return None if found else f"cannot start {program}: not found on PATH"
    path = Path(program)
    if not path.exists():
        return f"cannot start {program}: No such file or directory"
    if path.is_dir() or not os.access(path, os.X_OK):
        return f"cannot start {program}: not an executable file"
    return None
