"""The TypeScript Agent SDK's session readers as an oracle, in one long-lived Node process.

Importing the SDK costs ~0.2 s but a call ~1 ms, so ``TsSdkOracle`` starts
``conformance/node/ts_sdk_bridge.mjs`` once and sends it one JSON line per call.
The bridge writes each transcript byte-exact into a fresh temp config dir; the
Node process itself runs with a private HOME and TMPDIR and without any
inherited CLAUDE_*/ANTHROPIC_* variable, so a real ~/.claude is never involved.

Facts about SDK 0.3.332 that this adapter relies on (found by experiment):

* env vars (e.g. ``CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP``) are read at call time,
  so ``env=`` applies to one call without a restart. A value counts as set when
  it is truthy (``"1"``, ``"true"``, ``"yes"``, ``" 1 "``); ``"0"`` and ``""`` do not.
* the config dir is memoized per CLAUDE_CONFIG_DIR value and never forgotten
  (~0.25 KB per call with fresh dirs), hence ``recycle_after``.
* ``session_id`` in each message is the entry's own ``sessionId``; the key is
  absent when the entry has none (it is not filled from the requested id).
"""

from __future__ import annotations

import base64
import contextlib
import itertools
import json
import os
import queue
import shutil
import subprocess
import tempfile
import threading
import time
import weakref
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import IO, Any, Self

from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.registry import AGENT_SDK_TS, entry_path, is_installed

PROJECT_DIR = "<project-dir>"  # stands for the temp project cwd in list_sessions results
STDERR_LINES = 40


@dataclass(frozen=True)
class SessionFile:
    """One transcript for ``list_sessions``: its id, its bytes, and its mtime if it matters."""

    session_id: str
    data: bytes
    mtime_ms: float | None = None


@dataclass(frozen=True)
class Layout:
    """What surrounds the sessions in the temp project: sidecars, dirs, the cwd's name.

    ``extra_files`` maps paths relative to the project dir to bytes; ``dirs``
    are created under the scratch root; ``root_token`` in any written file is
    replaced by the scratch root's path (to point a transcript's cwd at a dir).
    """

    extra_files: Mapping[str, bytes] | None = None
    cwd_name: str = "cwd"
    dirs: Sequence[str] = ()
    root_token: str | None = None

    def payload(self) -> dict[str, Any]:
        """The request fields for the bridge."""
        return {
            "extra_files": [
                {"path": k, "b64": _encode(v)} for k, v in (self.extra_files or {}).items()
            ],
            "cwd_name": self.cwd_name,
            "dirs": list(self.dirs),
            "root_token": self.root_token,
        }


def bridge_script() -> Path:
    """The bridge shipped inside the package (``conformance/node``)."""
    script = resources.files("rechain.conformance").joinpath("node").joinpath("ts_sdk_bridge.mjs")
    return Path(str(script))


def _encode(data: bytes) -> str:
    """Base64 keeps every byte (CR, NUL, invalid UTF-8) intact through JSON."""
    return base64.b64encode(data).decode("ascii")


def _pump(stream: IO[bytes], sink: queue.Queue[bytes | None]) -> None:
    """Move stdout lines to a queue so a read can time out; None marks EOF."""
    try:
        for line in iter(stream.readline, b""):
            sink.put(line)
    except (OSError, ValueError):
        pass
    finally:
        sink.put(None)


def _drain(stream: IO[bytes], tail: deque[str]) -> None:
    """Keep the last stderr lines for error messages, and never let the pipe fill."""
    try:
        for line in iter(stream.readline, b""):
            tail.append(line.decode("utf-8", "replace").rstrip())
    except (OSError, ValueError):
        pass


def _reap(proc: subprocess.Popen[bytes], threads: Sequence[threading.Thread]) -> None:
    """Kill (if still running) and release one bridge process and its pipes."""
    if proc.poll() is None:
        proc.kill()
    proc.wait()
    for thread in threads:
        thread.join(timeout=5)
    for pipe in (proc.stdin, proc.stdout, proc.stderr):
        if pipe is not None:
            with contextlib.suppress(OSError):
                pipe.close()


class _Bridge:
    """One running bridge: JSON lines in, JSON lines out, each read with a deadline."""

    def __init__(self, argv: list[str], env: dict[str, str], startup_timeout: float) -> None:
        self._proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
        )
        assert self._proc.stdout is not None and self._proc.stderr is not None
        self._replies: queue.Queue[bytes | None] = queue.Queue()
        self._stderr: deque[str] = deque(maxlen=STDERR_LINES)
        threads = [
            threading.Thread(target=_pump, args=(self._proc.stdout, self._replies), daemon=True),
            threading.Thread(target=_drain, args=(self._proc.stderr, self._stderr), daemon=True),
        ]
        for thread in threads:
            thread.start()
        self._reap = weakref.finalize(self, _reap, self._proc, threads)
        self._ids = itertools.count(1)
        self.calls = 0
        self.ready = self._receive(0, startup_timeout, "start")
        if not self.ready.get("ok"):
            self.close()
            raise OracleError(f"agent-sdk-ts bridge did not start: {self.ready.get('error')}")

    @property
    def pid(self) -> int:
        """The Node process id (tests use it to show that calls share one process)."""
        return self._proc.pid

    def alive(self) -> bool:
        """Whether the process is still running and usable."""
        return self._reap.alive and self._proc.poll() is None

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one request and wait for its reply; a failure leaves the bridge dead."""
        request_id = next(self._ids)
        line = json.dumps({"id": request_id, **payload}).encode("ascii") + b"\n"
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(line)
            self._proc.stdin.flush()
        except (BrokenPipeError, OSError):
            raise self._died("could not send the request") from None
        self.calls += 1
        return self._receive(request_id, timeout, str(payload.get("cmd")))

    def _receive(self, request_id: int, timeout: float, what: str) -> dict[str, Any]:
        """The reply to ``request_id``; other stdout lines are kept as noise for errors."""
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.close(graceful=False)
                raise OracleError(f"agent-sdk-ts: no answer to {what} within {timeout:g} s")
            try:
                line = self._replies.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise self._died(f"the bridge exited during {what}")
            try:
                reply = json.loads(line)
            except ValueError:
                reply = None
            if isinstance(reply, dict) and reply.get("id") == request_id:
                return reply
            self._stderr.append(f"(stdout) {line[:200]!r}")

    def _died(self, why: str) -> OracleError:
        """An error that tells what the dead process said last."""
        self.close(graceful=False)
        code = self._proc.returncode
        tail = " | ".join(list(self._stderr)[-5:]) or "no stderr"
        return OracleError(f"agent-sdk-ts: {why} (exit {code}): {tail}")

    def close(self, *, graceful: bool = True) -> None:
        """Ask the bridge to stop, then make sure it is gone."""
        if graceful and self.alive():
            with contextlib.suppress(OracleError):
                self.request({"cmd": "stop"}, timeout=5)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self._proc.wait(timeout=5)
        self._reap()


class TsSdkOracle:
    """``@anthropic-ai/claude-agent-sdk`` 0.3.332's readers, one Node process for many calls.

    Use as a context manager. A call that times out or crashes raises
    ``OracleError``; the next call starts a fresh process.
    """

    spec = AGENT_SDK_TS

    def __init__(
        self,
        *,
        timeout: float = 60.0,
        startup_timeout: float = 60.0,
        recycle_after: int = 50_000,
    ) -> None:
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.recycle_after = recycle_after
        self._bridge: _Bridge | None = None
        self._scratch: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None
        self._lock = threading.Lock()

    @staticmethod
    def available() -> str | None:
        """None when the oracle can run here, else why not (for ``pytest.skip``)."""
        spec = AGENT_SDK_TS
        if shutil.which("node") is None:
            return "node is not on PATH"
        if not is_installed(spec):
            return f"{spec.slug} is not installed: run `rechain oracle install {spec.name}`"
        return None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """The current Node process id, or None when none is running."""
        return self._bridge.pid if self._bridge is not None and self._bridge.alive() else None

    @property
    def workdir(self) -> Path | None:
        """The private root of Node's HOME and TMPDIR (removed by ``close``)."""
        return self._scratch

    @property
    def import_ms(self) -> float | None:
        """How long the running bridge took to import the SDK, in milliseconds."""
        return self._bridge.ready.get("import_ms") if self._bridge is not None else None

    def start(self) -> None:
        """Start the bridge unless one is running (also used to restart after a failure)."""
        if self._bridge is not None and self._bridge.alive():
            return
        reason = self.available()
        if reason is not None:
            raise OracleError(f"agent-sdk-ts is unavailable: {reason}")
        node = shutil.which("node")
        assert node is not None
        argv = [node, str(bridge_script()), str(entry_path(self.spec))]
        self._bridge = _Bridge(argv, self._child_env(), self.startup_timeout)

    def close(self) -> None:
        """Stop the bridge and remove the private HOME/TMPDIR."""
        if self._bridge is not None:
            self._bridge.close()
            self._bridge = None
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None
            self._scratch = None

    def _child_env(self) -> dict[str, str]:
        """A minimal environment: PATH, plus a private HOME and TMPDIR for Node."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="rechain-ts-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
        home, tmp = self._scratch / "home", self._scratch / "tmp"
        home.mkdir(exist_ok=True)
        tmp.mkdir(exist_ok=True)
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(home),
            "TMPDIR": str(tmp),
            "LANG": "C.UTF-8",
        }

    def _call(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One request on a live bridge; recycles it now and then to bound its memory."""
        with self._lock:
            if self._bridge is not None and self._bridge.calls >= self.recycle_after:
                self._bridge.close()
            self.start()
            assert self._bridge is not None
            reply = self._bridge.request(payload, self.timeout)
        if not reply.get("ok"):
            raise OracleError(f"agent-sdk-ts: {reply.get('error', 'unknown error')}")
        return reply

    def version(self) -> str:
        """The SDK version, as its installed package.json says."""
        return str(self._call({"cmd": "version"})["version"])

    def session_messages(
        self,
        data: bytes,
        *,
        session_id: str,
        include_system_messages: bool = False,
        limit: int | None = None,
        offset: int = 0,
        env: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """``getSessionMessages(session_id, {dir, includeSystemMessages, limit, offset})``."""
        reply = self._call(
            {
                "cmd": "session_messages",
                "transcript_b64": _encode(data),
                "session_id": session_id,
                "include_system_messages": include_system_messages,
                "limit": limit,
                "offset": offset,
                "env": dict(env or {}),
            }
        )
        return list(reply["messages"])

    def list_sessions(
        self,
        files: Sequence[SessionFile],
        *,
        limit: int | None = None,
        offset: int = 0,
        include_programmatic: bool | None = None,
        env: Mapping[str, str] | None = None,
        layout: Layout | None = None,
    ) -> list[dict[str, Any]]:
        """``listSessions({dir, limit, offset})`` over ``files`` in one project dir.

        Top-level values equal to the temp project cwd become ``PROJECT_DIR`` so
        results do not depend on where the bridge made its temp dirs. ``layout``
        adds sidecars and directories around the sessions.
        """
        reply = self._call(
            {
                "cmd": "list_sessions",
                "files": [
                    {"session_id": f.session_id, "transcript_b64": _encode(f.data),
                     "mtime_ms": f.mtime_ms}
                    for f in files
                ],
                "limit": limit,
                "offset": offset,
                "include_programmatic": include_programmatic,
                "env": dict(env or {}),
                **(layout or Layout()).payload(),
            }
        )
        return [_placeholders(info, reply["dir"]) for info in reply["sessions"]]

    def session_info(
        self, file: SessionFile, *, layout: Layout | None = None
    ) -> dict[str, Any] | None:
        """``getSessionInfo(sessionId, {dir})`` for one transcript (None when not listed)."""
        reply = self._call(
            {
                "cmd": "get_session_info",
                "session_id": file.session_id,
                "transcript_b64": _encode(file.data),
                "mtime_ms": file.mtime_ms,
                **(layout or Layout()).payload(),
            }
        )
        info = reply["info"]
        return None if info is None else _placeholders(info, reply["dir"])

    def list_subagents(
        self, session_id: str, agents: Mapping[str, bytes], main: bytes = b"{}\n"
    ) -> list[str]:
        """``listSubagents(sessionId)``; ``agents`` maps paths under ``subagents/`` to bytes."""
        reply = self._call(
            {
                "cmd": "list_subagents",
                "session_id": session_id,
                "transcript_b64": _encode(main),
                "agents": [{"path": k, "b64": _encode(v)} for k, v in agents.items()],
            }
        )
        return list(reply["agents"])

    def subagent_messages(
        self,
        session_id: str,
        agent_id: str,
        agents: Mapping[str, bytes],
        *,
        main: bytes = b"{}\n",
        limit: int | None = None,
        offset: int = 0,
    ) -> list[dict[str, Any]]:
        """``getSubagentMessages(sessionId, agentId, {dir, limit, offset})``."""
        reply = self._call(
            {
                "cmd": "get_subagent_messages",
                "session_id": session_id,
                "agent_id": agent_id,
                "transcript_b64": _encode(main),
                "agents": [{"path": k, "b64": _encode(v)} for k, v in agents.items()],
                "limit": limit,
                "offset": offset,
            }
        )
        return list(reply["messages"])


def _placeholders(info: dict[str, Any], project: str) -> dict[str, Any]:
    """Top-level values equal to the temp project cwd become ``PROJECT_DIR``."""
    return {key: PROJECT_DIR if value == project else value for key, value in info.items()}
