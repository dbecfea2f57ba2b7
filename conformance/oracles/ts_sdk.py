"""The TypeScript Agent SDK's session readers as an oracle, in one long-lived Node process.

Importing the SDK costs ~0.2 s but a call ~1 ms, so ``TsSdkOracle`` starts
``conformance/node/ts_sdk_bridge.mjs`` once and sends it one JSON line per call (or per
batch: ``session_messages_many``).
The bridge puts each transcript byte-exact into a fresh temp config dir (a batch's
transcripts are written by rechain where the SDK reads them, ``batch_files``, which
costs less than base64 through the pipe); the Node process itself runs with a private HOME
and TMPDIR (on a memory file system when there is one) and without any inherited
CLAUDE_*/ANTHROPIC_* variable, so a real ~/.claude is never involved.

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
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.batch_files import BatchFiles
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.registry import AGENT_SDK_TS, OracleSpec, entry_path
from rechain.conformance.oracles.worker import WorkerOracle

PROJECT_DIR = "<project-dir>"  # stands for the temp project cwd in list_sessions results

#: V8 without its optimising compiler (TurboFan): a bridge answers a few thousand small
#: calls, and compiling the SDK's hot functions cost more CPU than the compiled code won
#: back (measured side by side: ~0.9 -> ~0.6 ms CPU a case over a fresh bridge's first
#: 512 generated cases, and no slower on a 10 MB transcript, where JSON.parse does the work).
#: JavaScript means the same in every tier, so the answers do not change.
NODE_FLAGS = ("--no-opt",)


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


class TsSdkOracle(WorkerOracle):
    """``@anthropic-ai/claude-agent-sdk`` 0.3.332's readers, one Node process for many calls.

    Use as a context manager. A call that times out or crashes raises
    ``OracleError``; the next call starts a fresh process.
    """

    spec = AGENT_SDK_TS
    process_name = "agent-sdk-ts bridge"
    scratch_prefix = "rechain-ts-"

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self._files: BatchFiles | None = None  # made with the scratch dir it lies in
        self._files_lock = threading.Lock()  # one batch's files at a time

    @classmethod
    def available(cls, spec: OracleSpec | None = None) -> str | None:
        """None when the oracle can run here, else why not (for ``pytest.skip``)."""
        if shutil.which("node") is None:
            return "node is not on PATH"
        return super().available(spec)

    def _argv(self) -> list[str]:
        node = shutil.which("node")
        assert node is not None
        return [node, *NODE_FLAGS, str(bridge_script()), str(entry_path(self.spec))]

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

    def session_messages_many(
        self, calls: Sequence[MessagesCall], *, concurrency: int = 16
    ) -> list[list[dict[str, Any]] | OracleError]:
        """``session_messages`` for many transcripts in one request (up to ``concurrency``
        SDK calls at once in the bridge): per call its messages, or the ``OracleError``
        (``OracleReaderError`` when the SDK raised) that ``session_messages`` would raise.
        Each transcript is written where the SDK reads it (``batch_files``), so the
        request only names places. A broken or timed-out bridge raises ``OracleError``
        for the whole batch."""
        with self._files_lock:
            if self._files is None or self._files.root != self._home().parent / "lay":
                self._files = BatchFiles(self._home().parent / "lay")
            with self._files.written(calls) as places:
                cases = [call.request(system_messages=True, place={
                    "config_dir": place.config_dir, "cwd": place.cwd})
                    for call, place in zip(calls, places, strict=True)
                    if not isinstance(place, OSError)]
                answers = iter(self._call_many("session_messages_many", cases, concurrency))
                return [OracleError(f"{self.spec.name}: the transcript could not be laid "
                                    f"out: {place}") if isinstance(place, OSError)
                        else _messages(next(answers)) for place in places]

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


def _messages(answer: dict[str, Any] | OracleError) -> list[dict[str, Any]] | OracleError:
    """One case's reply as its messages (an error stays the error)."""
    return answer if isinstance(answer, OracleError) else list(answer["messages"])


def _placeholders(info: dict[str, Any], project: str) -> dict[str, Any]:
    """Top-level values equal to the temp project cwd become ``PROJECT_DIR``."""
    return {key: PROJECT_DIR if value == project else value for key, value in info.items()}
