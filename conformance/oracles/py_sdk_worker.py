"""Worker that runs inside the agent-sdk-py venv and answers reader calls as JSON lines.

Run as ``<venv>/bin/python -I py_sdk_worker.py``; it imports nothing from
rechain (rechain is not installed in that venv), so it must stay standalone.
Importing the SDK costs about 1 s and a call well under 1 ms, hence one
long-lived process. Protocol, one JSON object per line:

* ready line, before any request: ``{"id": 0, "ok": true, "ready": true,
  "version", "python", "import_ms"}`` (or ``{"id": 0, "ok": false, "error"}``);
* ``{"id", "cmd": "version"}`` -> ``{"id", "ok": true, "version", "python", "import_ms"}``;
* ``{"id", "cmd": "session_messages", "transcript_b64", "session_id", "limit",
  "offset", "env"}`` -> ``{"id", "ok": true, "messages": [...]}``;
* ``{"id", "cmd": "session_messages_many", "cases": [{"transcript_b64", "session_id",
  "limit", "offset", "env"}, ...]}`` -> ``{"id", "ok": true, "replies": [...]}``: one
  reply per case, in order, each shaped like a ``session_messages`` reply without ``id``
  (one round trip for many cases; cases with the same env and distinct session ids share
  one scratch project, since a call reads only ``<project>/<session_id>.jsonl``);
* ``{"id", "cmd": "stop"}`` -> ``{"id", "ok": true}``, then exit 0.

A failure of the request is ``{"id", "ok": false, "error"}``; an exception
raised *by the SDK reader* adds ``"raised": true`` and ``"error_type"`` (e.g.
``UnicodeDecodeError`` on invalid UTF-8), because that is an observation about
the reader, not a fault of this worker.

Each call writes the transcript byte-exact into a fresh temp config dir and a
fresh temp project dir, and points ``CLAUDE_CONFIG_DIR`` there for that call
only (the SDK reads it on every call), so no real ``~/.claude`` is read.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import re
import shutil
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
RESERVED_ENV = frozenset({"CLAUDE_CONFIG_DIR", "HOME"})
SAFE_SESSION_ID = re.compile(r"[^/\\\x00]{1,200}")


class BadRequestError(Exception):
    """The request itself is unusable (not something the reader did)."""


def project_dir_name(path: str) -> str:
    """The CLI's projects/<name> for a short realpath: every non-alphanumeric char becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def checked_session_id(value: object) -> str:
    """A session id that is safe as a file name (the SDK validates the UUID itself)."""
    if (not isinstance(value, str) or not SAFE_SESSION_ID.fullmatch(value)
            or value in {".", ".."}):
        raise BadRequestError(f"unusable session_id for a file name: {value!r}")
    return value


@contextmanager
def scoped_env(overrides: Mapping[str, str]) -> Iterator[None]:
    """Set variables for one call and restore the previous values afterwards."""
    saved = {name: os.environ.get(name) for name in overrides}
    try:
        os.environ.update(overrides)
        yield
    finally:
        for name, old in saved.items():
            if old is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = old


def checked_env(value: object) -> dict[str, str]:
    """Request env: string names and values, never the two this worker controls."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise BadRequestError("env must be an object")
    for name, item in value.items():
        if not ENV_NAME.fullmatch(name) or not isinstance(item, str) or name in RESERVED_ENV:
            raise BadRequestError(f"unusable env entry {name!r}")
    return dict(value)


@contextmanager
def scratch_project() -> Iterator[tuple[str, Path]]:
    """A temp config dir pointed to by ``CLAUDE_CONFIG_DIR``: yields (the project dir to pass
    as ``directory``, the folder its transcripts go in)."""
    root = Path(os.path.realpath(tempfile.mkdtemp(prefix="rechain-py-")))
    try:
        project = root / "project"
        project.mkdir()
        folder = root / "config" / "projects" / project_dir_name(str(project))
        folder.mkdir(parents=True)
        with scoped_env({"CLAUDE_CONFIG_DIR": str(root / "config")}):
            yield str(project), folder
    finally:
        shutil.rmtree(root, ignore_errors=True)


def sharing_groups(cases: list[Any]) -> list[list[int]]:
    """Positions of the cases that can share one scratch project: the same env and no
    session id twice (the file name is the id), in request order."""
    groups: list[tuple[set[str], list[int]]] = []
    by_env: dict[str, list[tuple[set[str], list[int]]]] = {}
    for index, case in enumerate(cases):
        request = case if isinstance(case, dict) else {}
        key = json.dumps(request.get("env"), sort_keys=True)
        sid = str(request.get("session_id")).lower()
        candidates = by_env.setdefault(key, [])
        group = next((g for g in candidates if sid not in g[0]), None)
        if group is None:
            group = (set(), [])
            candidates.append(group)
            groups.append(group)
        group[0].add(sid)
        group[1].append(index)
    return [indexes for _, indexes in groups]


class Worker:
    """Holds the imported SDK and answers one request at a time."""

    def __init__(self) -> None:
        started = time.perf_counter()
        import claude_agent_sdk  # the venv's SDK; imported once

        self.sdk: Any = claude_agent_sdk
        self.import_ms = round((time.perf_counter() - started) * 1000, 1)

    def about(self) -> dict[str, Any]:
        return {"version": str(self.sdk.__version__), "python": sys.version.split()[0],
                "import_ms": self.import_ms}

    def session_messages(self, request: dict[str, Any]) -> dict[str, Any]:
        with scoped_env(checked_env(request.get("env"))), scratch_project() as (cwd, folder):
            return self.read(request, cwd, folder)

    def session_messages_many(self, request: dict[str, Any]) -> dict[str, Any]:
        cases = request.get("cases")
        if not isinstance(cases, list) or not all(isinstance(c, dict) for c in cases):
            raise BadRequestError("cases must be a list of objects")
        replies: list[dict[str, Any]] = [{} for _ in cases]
        for indexes in sharing_groups(cases):
            try:
                with (scoped_env(checked_env(cases[indexes[0]].get("env"))),
                      scratch_project() as (cwd, folder)):
                    for index in indexes:
                        replies[index] = guarded(lambda i=index: self.read(cases[i], cwd, folder))
            except (BadRequestError, ValueError, OSError) as error:
                for index in indexes:
                    replies[index] = replies[index] or failure(error)
        return {"ok": True, "replies": replies}

    def read(self, request: dict[str, Any], cwd: str, folder: Path) -> dict[str, Any]:
        """One call on a transcript written into ``folder`` (the project of ``cwd``)."""
        session_id = checked_session_id(request.get("session_id"))
        data = base64.b64decode(str(request.get("transcript_b64", "")), validate=True)
        limit, offset = request.get("limit"), request.get("offset", 0)
        if not (limit is None or isinstance(limit, int)) or not isinstance(offset, int):
            raise BadRequestError("limit must be an integer or null, offset an integer")
        (folder / f"{session_id}.jsonl").write_bytes(data)
        try:
            messages = self.sdk.get_session_messages(
                session_id, directory=cwd, limit=limit, offset=offset
            )
        except Exception as error:  # an observation about the reader
            return {"ok": False, "raised": True, "error_type": type(error).__name__,
                    "error": str(error)[:2000]}
        return {"ok": True, "messages": [dataclasses.asdict(m) for m in messages]}


def failure(error: Exception) -> dict[str, Any]:
    """A request this worker could not serve (not an answer of the reader)."""
    return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def guarded(handler: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    """The handler's reply, or the failure of a request that was unusable."""
    try:
        return handler()
    except (BadRequestError, ValueError, OSError) as error:
        return failure(error)


def answer(worker: Worker, request: dict[str, Any]) -> dict[str, Any]:
    """The reply to one parsed request (without its id)."""
    handlers: dict[str, Callable[[], dict[str, Any]]] = {
        "version": lambda: {"ok": True, **worker.about()},
        "session_messages": lambda: worker.session_messages(request),
        "session_messages_many": lambda: worker.session_messages_many(request),
        "stop": lambda: {"ok": True},
    }
    handler = handlers.get(str(request.get("cmd")))
    if handler is None:
        return {"ok": False, "error": f"unknown cmd {request.get('cmd')!r}"}
    return guarded(handler)


def send(out: BinaryIO, reply: dict[str, Any]) -> None:
    """One reply line (NaN from the SDK's json.loads stays NaN: Python reads it back)."""
    out.write(json.dumps(reply).encode("utf-8") + b"\n")
    out.flush()


def main() -> int:
    """Keep fd 1 for replies only: anything else printed goes to stderr."""
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    try:
        worker = Worker()
    except Exception as error:
        send(out, {"id": 0, "ok": False, "error": f"{type(error).__name__}: {error}"})
        return 1
    send(out, {"id": 0, "ok": True, "ready": True, **worker.about()})
    for raw in sys.stdin.buffer:
        try:
            request = json.loads(raw)
            if not isinstance(request, dict):
                raise ValueError("a request must be a JSON object")
        except ValueError as error:
            send(out, {"id": None, "ok": False, "error": f"bad request line: {error}"})
            continue
        send(out, {"id": request.get("id"), **answer(worker, request)})
        if request.get("cmd") == "stop":
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())
