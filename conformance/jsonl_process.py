"""A child process that answers one JSON line per request, each read with a deadline.

Shared by the oracle adapters (the TS SDK's Node bridge, the Python SDK's worker)
and the tier-2 protocol runner: stdout lines go through a queue so a read can time
out, stderr is drained into a bounded tail for error messages, and the process is
reaped (killed if need be) when its owner closes it or is garbage-collected.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import queue
import subprocess
import threading
import time
import weakref
from collections import deque
from collections.abc import Sequence
from pathlib import Path
from typing import IO, Any

import orjson

STDERR_LINES = 40


class ProcessError(Exception):
    """The process died, timed out or never started; the owner maps it to its own error."""


def dumps_line(value: Any) -> bytes:
    """One request line, ASCII only (a reader may not decode UTF-8): orjson, several times
    faster on megabyte batches of base64, else ``json`` for the rest (non-ASCII text,
    lone surrogates, integers beyond 64 bits)."""
    with contextlib.suppress(TypeError):
        line = orjson.dumps(value, option=orjson.OPT_APPEND_NEWLINE)
        if line.isascii():
            return line
    return json.dumps(value).encode("ascii") + b"\n"


def loads_line(line: bytes) -> Any:
    """One reply line parsed (None when it is not JSON): orjson, else ``json`` for what
    orjson refuses but JavaScript writes (an escaped lone surrogate), reading integers
    as orjson does (beyond 64 bits a float, the double JavaScript meant)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(line, parse_int=_integer)
    except ValueError:
        return None


def _integer(text: str) -> int | float:
    """A JSON integer as orjson reads it: an int within 64 bits, else a float."""
    value = int(text)
    return value if -(2**63) <= value < 2**64 else float(text)


#: what ``pump`` queues for a line longer than its limit (a read line is never empty)
TOO_LONG = b""
#: the longest piece of a stderr line kept as one line of the tail
STDERR_PIECE = 1 << 16


def pump(stream: IO[bytes], sink: queue.Queue[bytes | None], limit: int | None = None) -> None:
    """Move stdout lines to a queue so a read can time out; None marks EOF. A line of
    ``limit`` bytes or more without its end is ``TOO_LONG``, and reading stops there: a
    process that writes without a newline cannot grow its reader's memory without end."""
    with contextlib.suppress(OSError, ValueError):
        for line in iter(lambda: stream.readline(-1 if limit is None else limit), b""):
            if limit is not None and len(line) >= limit and not line.endswith(b"\n"):
                sink.put(TOO_LONG)
                return
            sink.put(line)
    sink.put(None)


def drain(stream: IO[bytes], tail: deque[str]) -> None:
    """Keep the last stderr lines for error messages without letting the pipe fill; a line
    without end is kept in pieces, never whole."""
    with contextlib.suppress(OSError, ValueError):
        for line in iter(lambda: stream.readline(STDERR_PIECE), b""):
            tail.append(line.decode("utf-8", "replace").rstrip())


def reap(proc: subprocess.Popen[bytes], threads: Sequence[threading.Thread]) -> None:
    """Kill (if still running) and release one process and its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for thread in threads:
        thread.join(timeout=5)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


class JsonLinesProcess:
    """``{"id": N, ...}`` out, the line with the same ``id`` back; other lines are noise.

    The process must first print a ready line with ``"id": 0``; ``ready`` holds it.
    Any failure leaves the process dead, and the owner starts a new one.
    """

    def __init__(
        self,
        name: str,
        argv: list[str],
        env: dict[str, str],
        startup_timeout: float,
        cwd: Path | None = None,
        error: type[Exception] = ProcessError,
    ) -> None:
        self.name = name
        self._error = error
        self._proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            cwd=cwd,
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._replies: queue.Queue[bytes | None] = queue.Queue()
        self.stderr: deque[str] = deque(maxlen=STDERR_LINES)
        threads = [
            threading.Thread(target=pump, args=(self._proc.stdout, self._replies), daemon=True),
            threading.Thread(target=drain, args=(self._proc.stderr, self.stderr), daemon=True),
        ]
        for thread in threads:
            thread.start()
        self._finalize = weakref.finalize(self, reap, self._proc, threads)
        self._ids = itertools.count(1)
        self.calls = 0
        self.ready = self._receive(0, startup_timeout, "start")
        if not self.ready.get("ok"):
            self.close(graceful=False)
            raise error(f"{name} did not start: {self.ready.get('error')}")

    @property
    def pid(self) -> int:
        return self._proc.pid

    def alive(self) -> bool:
        """Whether the process is still running and usable."""
        return self._finalize.alive and self._proc.poll() is None

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for its reply."""
        request_id = next(self._ids)
        line = dumps_line({"id": request_id, **payload})
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
        except OSError:
            raise self._died("could not send the request") from None
        self.calls += 1
        return self._receive(request_id, timeout, str(payload.get("cmd")))

    def _receive(self, request_id: int, timeout: float, what: str) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close(graceful=False)
                raise self._error(f"{self.name}: no answer to {what} within {timeout:g} s")
            try:
                line = self._replies.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise self._died(f"the process exited during {what}")
            reply = loads_line(line)
            if isinstance(reply, dict) and reply.get("id") == request_id:
                return reply
            self.stderr.append(f"(stdout) {line[:200]!r}")

    def _died(self, why: str) -> Exception:
        """An error that tells what the dead process said last."""
        self.close(graceful=False)
        tail = " | ".join(list(self.stderr)[-5:]) or "no stderr"
        return self._error(f"{self.name}: {why} (exit {self._proc.returncode}): {tail}")

    def close(self, *, graceful: bool = True) -> None:
        """Ask the process to stop, then make sure it is gone."""
        if graceful and self.alive():
            with contextlib.suppress(self._error):
                self.request({"cmd": "stop"}, timeout=5)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self._finalize()
