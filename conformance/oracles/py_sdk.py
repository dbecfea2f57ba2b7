"""The Python Agent SDK's session reader as an oracle, in one long-lived worker process.

``claude-agent-sdk==0.2.189`` lives in its own venv (``rechain oracle install
agent-sdk-py``), so it cannot be imported here: ``PySdkOracle`` starts
``py_sdk_worker.py`` with that venv's interpreter once and sends it one JSON line
per call. Importing the SDK costs about 1 s, a call well under 1 ms.

The reader differs from the TS SDK in documented ways (current-2.1.332.md,
"Oracle 2"); one of them is that it *raises* on some inputs (invalid UTF-8 gives
``UnicodeDecodeError``). That is an observation about the reader, so it comes
back as ``OracleReaderError`` (with ``error_type``), distinct from the
``OracleError`` of a worker that crashed or timed out.

Output: the SDK's 6-field ``SessionMessage`` as dicts (type, uuid, session_id,
message, parent_tool_use_id, parent_agent_id). ``session_id`` is the entry's own
``sessionId``, ``""`` when the entry has none. There is no
``include_system_messages`` in this SDK. A ``NaN`` the SDK accepted comes back
as a float NaN.
"""

from __future__ import annotations

import base64
import os
import shutil
import tempfile
import threading
import weakref
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Self

from rechain.conformance.jsonl_process import JsonLinesProcess
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.registry import AGENT_SDK_PY, entry_path, is_installed


class OracleReaderError(OracleError):
    """The reader itself raised (e.g. ``UnicodeDecodeError``): a result, not a crash."""

    def __init__(self, oracle: str, error_type: str, detail: str) -> None:
        super().__init__(f"{oracle}: the reader raised {error_type}: {detail}")
        self.oracle = oracle
        self.error_type = error_type
        self.detail = detail


def worker_script() -> Path:
    """The worker shipped inside the package, run by the venv's interpreter."""
    script = resources.files("rechain.conformance.oracles").joinpath("py_sdk_worker.py")
    return Path(str(script))


class PySdkOracle:
    """``claude-agent-sdk`` 0.2.189's ``get_session_messages``, one worker for many calls.

    Use as a context manager. A call that times out or crashes the worker raises
    ``OracleError`` and the next call starts a fresh worker; a call on which the
    SDK raises gives ``OracleReaderError`` and the worker lives on.
    """

    spec = AGENT_SDK_PY

    def __init__(
        self, *, timeout: float = 60.0, startup_timeout: float = 60.0, recycle_after: int = 50_000
    ) -> None:
        self.timeout = timeout
        self.startup_timeout = startup_timeout
        self.recycle_after = recycle_after
        self._worker: JsonLinesProcess | None = None
        self._scratch: Path | None = None
        self._cleanup: weakref.finalize[Any, Any] | None = None
        self._lock = threading.Lock()

    @staticmethod
    def available() -> str | None:
        """None when the oracle can run here, else why not (for ``pytest.skip``)."""
        spec = AGENT_SDK_PY
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
        """The worker's process id, or None when none is running."""
        return self._worker.pid if self._worker is not None and self._worker.alive() else None

    @property
    def import_ms(self) -> float | None:
        """How long the running worker took to import the SDK, in milliseconds."""
        return self._worker.ready.get("import_ms") if self._worker is not None else None

    def start(self) -> None:
        """Start the worker unless one is running (also how a failed one is replaced)."""
        if self._worker is not None and self._worker.alive():
            return
        reason = self.available()
        if reason is not None:
            raise OracleError(f"agent-sdk-py is unavailable: {reason}")
        env, cwd = self._child_env()
        # -I: ignore PYTHON* variables and user site-packages, and keep the script's
        # folder (rechain's own modules) off sys.path.
        argv = [str(entry_path(self.spec)), "-I", str(worker_script())]
        self._worker = JsonLinesProcess(
            "agent-sdk-py worker", argv, env, self.startup_timeout, cwd=cwd, error=OracleError
        )

    def close(self) -> None:
        """Stop the worker and remove its private HOME/TMPDIR."""
        if self._worker is not None:
            self._worker.close()
            self._worker = None
        if self._cleanup is not None:
            self._cleanup()
            self._cleanup = None
            self._scratch = None

    def _child_env(self) -> tuple[dict[str, str], Path]:
        """PATH plus a private HOME, TMPDIR and cwd: the real ~/.claude stays out of reach."""
        if self._scratch is None:
            self._scratch = Path(tempfile.mkdtemp(prefix="rechain-py-"))
            self._cleanup = weakref.finalize(self, shutil.rmtree, self._scratch, True)
        home, tmp = self._scratch / "home", self._scratch / "tmp"
        home.mkdir(exist_ok=True)
        tmp.mkdir(exist_ok=True)
        env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": str(home),
               "TMPDIR": str(tmp), "LANG": "C.UTF-8"}
        return env, home

    def _call(self, payload: dict[str, Any]) -> dict[str, Any]:
        """One request on a live worker, recycled now and then to bound its memory."""
        with self._lock:
            if self._worker is not None and self._worker.calls >= self.recycle_after:
                self._worker.close()
            self.start()
            assert self._worker is not None
            reply = self._worker.request(payload, self.timeout)
        if reply.get("raised"):
            raise OracleReaderError(
                self.spec.name, str(reply.get("error_type")), str(reply.get("error"))
            )
        if not reply.get("ok"):
            raise OracleError(f"agent-sdk-py: {reply.get('error', 'unknown error')}")
        return reply

    def version(self) -> str:
        """The SDK version, as the imported package reports it."""
        return str(self._call({"cmd": "version"})["version"])

    def session_messages(
        self,
        data: bytes,
        *,
        session_id: str,
        limit: int | None = None,
        offset: int = 0,
        env: Mapping[str, str] | None = None,
    ) -> list[dict[str, Any]]:
        """``get_session_messages(session_id, directory=<temp project>, limit, offset)``."""
        reply = self._call(
            {
                "cmd": "session_messages",
                "transcript_b64": base64.b64encode(data).decode("ascii"),
                "session_id": session_id,
                "limit": limit,
                "offset": offset,
                "env": dict(env or {}),
            }
        )
        return list(reply["messages"])
