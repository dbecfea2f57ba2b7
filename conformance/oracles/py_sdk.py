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
from collections.abc import Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.registry import AGENT_SDK_PY, entry_path
from rechain.conformance.oracles.worker import WorkerOracle


def worker_script() -> Path:
    """The worker shipped inside the package, run by the venv's interpreter."""
    script = resources.files("rechain.conformance.oracles").joinpath("py_sdk_worker.py")
    return Path(str(script))


class PySdkOracle(WorkerOracle):
    """``claude-agent-sdk`` 0.2.189's ``get_session_messages``, one worker for many calls.

    Use as a context manager. A call that times out or crashes the worker raises
    ``OracleError`` and the next call starts a fresh worker; a call on which the
    SDK raises gives ``OracleReaderError`` and the worker lives on.
    """

    spec = AGENT_SDK_PY
    process_name = "agent-sdk-py worker"
    scratch_prefix = "rechain-py-"

    def _argv(self) -> list[str]:
        # -I: ignore PYTHON* variables and user site-packages, and keep the script's
        # folder (rechain's own modules) off sys.path.
        return [str(entry_path(self.spec)), "-I", str(worker_script())]

    def _cwd(self) -> Path | None:
        return self._home()

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

    def session_messages_many(
        self, calls: Sequence[MessagesCall]
    ) -> list[list[dict[str, Any]] | OracleError]:
        """``session_messages`` for many transcripts in one request (answered one after
        another in the worker): per call its messages, or the ``OracleError``
        (``OracleReaderError`` when the SDK raised) that ``session_messages`` would raise.
        A broken or timed-out worker raises ``OracleError`` for the whole batch."""
        cases = [call.request(system_messages=False) for call in calls]
        return [answer if isinstance(answer, OracleError) else list(answer["messages"])
                for answer in self._call_many("session_messages_many", cases, 1)]
