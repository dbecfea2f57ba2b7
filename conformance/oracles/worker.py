"""A pinned reader that answers in one long-lived child process: the shared adapter shell.

Importing a real reader costs far more than a call, so each adapter starts its
process once and sends it one JSON line per call. This base class owns that
process: start on demand, restart after a crash, recycle after many calls (to
bound memory), and a private HOME/TMPDIR so a real ``~/.claude`` is never reached.
Subclasses say how to launch their process and what a reply means.
"""

from __future__ import annotations

import os
import threading
import weakref
from pathlib import Path
from typing import Any, ClassVar

from rechain import portable
from rechain.conformance.jsonl_process import JsonLinesProcess
from rechain.conformance.oracles import OracleError, OracleReaderError
from rechain.conformance.oracles.lifecycle import Lifecycle
from rechain.conformance.oracles.registry import OracleSpec, is_installed
from rechain.conformance.oracles.scratch import make_scratch
from rechain.conformance.owned_dirs import release


class WorkerOracle(Lifecycle):
    """Context manager around one worker process; subclasses define ``_argv``."""

    spec: ClassVar[OracleSpec]
    process_name: ClassVar[str]  # shown in errors, e.g. "agent-sdk-ts bridge"
    scratch_prefix: ClassVar[str]

    def __init__(
        self, *, timeout: float = 60.0, startup_timeout: float = 60.0, recycle_after: int = 50_000,
        spec: OracleSpec | None = None,
    ) -> None:
        if spec is not None:  # another release of the same reader (``name@version``)
            self.spec = spec  # type: ignore[misc]
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.recycle_after = recycle_after
        self._process: JsonLinesProcess | None = None
        self._scratch: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None
        self._lock = threading.Lock()

    @classmethod
    def available(cls, spec: OracleSpec | None = None) -> str | None:
        """None when the oracle (or ``spec``, another release of it) can run here, else why not."""
        spec = spec or cls.spec
        if not is_installed(spec):
            name = spec.name if spec == cls.spec else spec.slug
            return (f"{spec.slug} is not installed: "
                    f"run `{portable.rechain(['oracle', 'install', name])}`")
        return None

    @property
    def pid(self) -> int | None:
        """The worker's process id, or None when none is running."""
        process = self._process
        return process.pid if process is not None and process.alive() else None

    @property
    def workdir(self) -> Path | None:
        """The private root of the worker's HOME and TMPDIR (removed by ``close``)."""
        return self._scratch

    @property
    def import_ms(self) -> float | None:
        """How long the running worker took to import the reader, in milliseconds."""
        return self._process.ready.get("import_ms") if self._process is not None else None

    def _argv(self) -> list[str]:
        raise NotImplementedError

    def _cwd(self) -> Path | None:
        return None

    def start(self) -> None:
        """Start the worker unless one is running (also how a failed one is replaced)."""
        if self._process is not None and self._process.alive():
            return
        reason = self.available(self.spec)
        if reason is not None:
            raise OracleError(f"{self.spec.name} is unavailable: {reason}")
        env = self._child_env()
        self._process = JsonLinesProcess(
            self.process_name,
            self._argv(),
            env,
            self.startup_timeout,
            cwd=self._cwd(),
            error=OracleError,
        )

    def close(self) -> None:
        """Stop the worker and remove its private HOME/TMPDIR."""
        if self._process is not None:
            self._process.close()
            self._process = None
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None
            self._scratch = None

    def _home(self) -> Path:
        if self._scratch is None:
            self._scratch = make_scratch(self.scratch_prefix)
            self._cleanup = weakref.finalize(self, release, self._scratch)
        (self._scratch / "tmp").mkdir(exist_ok=True)
        home = self._scratch / "home"
        home.mkdir(exist_ok=True)
        return home

    def _child_env(self) -> dict[str, str]:
        """PATH plus a private HOME and TMPDIR: nothing else is inherited."""
        home = self._home()
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(home),
            "TMPDIR": str(home.parent / "tmp"),
            "LANG": "C.UTF-8",
        }

    def _check(self, reply: dict[str, Any]) -> None:
        """Raise for a reply that is not an answer.

        The reader raising (``"raised": true``) is an answer about the reader, not a
        broken worker: it comes back as ``OracleReaderError`` and the worker lives on.
        """
        if reply.get("raised"):
            raise OracleReaderError(
                self.spec.name, str(reply.get("error_type")), str(reply.get("error"))
            )
        if not reply.get("ok"):
            raise OracleError(f"{self.spec.name}: {reply.get('error', 'unknown error')}")

    def _call(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One request on a live worker, recycled now and then to bound its memory."""
        with self._lock:
            if self._process is not None and self._process.calls >= self.recycle_after:
                self._process.close()
            self.start()
            assert self._process is not None
            reply = self._process.request(payload, self.timeout)
        self._check(reply)
        return reply

    def _call_many(self, cmd: str, cases: list[dict[str, Any]], concurrency: int
                   ) -> list[dict[str, Any] | OracleError]:
        """Many cases in one request: per case its reply, or the error ``_call`` would raise.

        One round trip instead of one per case (on a loaded machine each costs a
        scheduling delay on both sides). The deadline is the per-call timeout for each
        round of ``concurrency`` cases. A worker that breaks or times out fails the
        whole request with ``OracleError``; callers retry its cases one at a time, so
        the case to blame gets the verdict.
        """
        if not cases:
            return []
        rounds = -(-len(cases) // max(1, concurrency))
        with self._lock:
            if self._process is not None and self._process.calls >= self.recycle_after:
                self._process.close()
            self.start()
            assert self._process is not None
            reply = self._process.request(
                {"cmd": cmd, "cases": cases, "concurrency": concurrency}, self.timeout * rounds)
            self._process.calls += len(cases) - 1
        self._check(reply)
        replies = reply.get("replies")
        if not isinstance(replies, list) or len(replies) != len(cases):
            raise OracleError(f"{self.spec.name}: {cmd} answered {len(cases)} cases wrongly")
        answers: list[dict[str, Any] | OracleError] = []
        for one in replies:
            try:
                self._check(one)
                answers.append(one)
            except OracleError as error:
                answers.append(error)
        return answers

    def version(self) -> str:
        """The reader's version, as the worker reports it."""
        return str(self._call({"cmd": "version"})["version"])
