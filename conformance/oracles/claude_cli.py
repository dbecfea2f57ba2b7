"""The real Claude Code CLI 2.1.332 as an oracle: what it sends to the model after ``--resume``.

For each transcript, ``ClaudeCliOracle.resume`` lays a *copy* out in its own
temp config dir and temp project dir (the CLI appends to what it resumes, and
cwd decides ``projects/<sanitized realpath>``), then runs, with nothing
inherited from our environment::

    claude -p --resume <id> --model <MODEL> next

with ``HOME``/``TMPDIR`` private, ``CLAUDE_CONFIG_DIR`` the temp config dir,
``ANTHROPIC_BASE_URL`` a ``FakeMessagesApi`` on 127.0.0.1 and the
nonessential-traffic, telemetry, autoupdater and error-reporting switches off.
The first ``POST /v1/messages`` body is what the model would receive: its last
message is the turn the harness built (``<system-reminder>`` blocks + the
prompt), returned apart as ``prompt_turn``. The rows the CLI appended to the
copy tell which entry the new prompt was chained to.

Runs are independent, so ``workers=N`` runs N at once against one shared fake
API that files requests by a per-run API key. Each run costs about 0.5 to 0.8 s,
almost all of it the CLI's own start-up.

Why ``MODEL`` is ``claude-sonnet-4-6``: without ``--model`` the CLI takes the
model of the last resumed assistant, or ``claude-opus-5-5`` when none survives,
whose requests carry ``role: "system"`` items inside ``messages`` (as do
``claude-sonnet-5``'s); ``claude-sonnet-4-5`` prints a retirement warning.
``claude-sonnet-4-6`` has no retirement entry in 2.1.332's table and keeps the
classic user/assistant-only ``messages``. The pin is visible in the result: the
CLI keeps an assistant's thinking blocks only when that row's ``message.model``
is the request's model (date suffix and case ignored) or ``<synthetic>``, and
strips them otherwise (found by experiment; the spec's runs used one model).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import threading
import time
from collections.abc import Iterable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.conformance.lifetime import dies_with_parent
from rechain.conformance.marked import Mark
from rechain.conformance.oracles import OracleError
from rechain.conformance.oracles.fake_api import FakeMessagesApi, Recorded
from rechain.conformance.oracles.lifecycle import Lifecycle
from rechain.conformance.oracles.registry import (
    CLAUDE_CODE,
    OracleSpec,
    entry_path,
    is_installed,
)
from rechain.conformance.oracles.scratch import scratch
from rechain.reference.profiles.family import seed_release

MODEL = "claude-sonnet-4-6"
PROMPT = "next"
WARMUP = "Warmup"
#: how a run killed at its deadline is worded (a release that hangs on a cycle)
HANG_MARK = "no exit within"
PATH = "/usr/local/bin:/usr/bin:/bin"
RESERVED_ENV = frozenset(
    {"HOME", "TMPDIR", "CLAUDE_CONFIG_DIR", "ANTHROPIC_BASE_URL", "ANTHROPIC_API_KEY"}
)
QUIET_ENV = {
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
    "DISABLE_TELEMETRY": "1",
    "DISABLE_AUTOUPDATER": "1",
    "DISABLE_ERROR_REPORTING": "1",
}
# ``claude --version`` costs a start of the CLI (~0.4 CPU-s): asked once per installed
# binary in a process, not once per connection (``check --jobs N`` connects N times).
_VERSIONS: dict[Path, str] = {}
ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
SAFE_SESSION_ID = re.compile(r"[^/\\\x00]{1,200}")
STDERR_CHARS = 8000
# How a run opens the transcript (2.1.88 picks the leaf differently for each):
# ``resume-id`` = ``-p --resume <id>``, ``continue`` = ``-p --continue`` (the newest
# session of the project dir, which holds only this one), ``resume-file`` =
# ``-p --resume <path>.jsonl``.
ENTRY_POINTS = ("resume-id", "continue", "resume-file")


@dataclass(frozen=True)
class CliCase:
    """One transcript to resume, for ``ClaudeCliOracle.map``."""

    data: bytes
    session_id: str
    env: Mapping[str, str] | None = None


@dataclass(frozen=True)
class CliResume:
    """What one ``claude -p --resume`` did with a transcript.

    ``messages``: the first model request's ``messages`` without its last item;
    ``prompt_turn``: that last item (the harness-built turn carrying the prompt);
    ``resumed_parent``: ``parentUuid`` of the prompt row the CLI appended;
    ``resumed_leaf``: the same chain followed back past other appended rows (such
    as a persisted synthetic "No response requested.") to the first uuid that
    was not appended, i.e. the transcript entry the resume continued from;
    ``forked``: with ``fork=True``, the rows of the new session file, which the
    CLI fills with the whole resumed (deserialised) conversation, uuids kept;
    ``appended``: every row appended to the copy, parsed (``{"_raw": text}`` when
    a line is not JSON); ``requests``: how many ``POST /v1/messages`` were made.
    """

    messages: list[dict[str, Any]]
    prompt_turn: dict[str, Any] | None
    resumed_parent: str | None
    resumed_leaf: str | None
    appended: list[dict[str, Any]]
    requests: int
    returncode: int
    stderr: str
    first_request: dict[str, Any] | None = None
    prefix_intact: bool = True
    seconds: float = 0.0
    other_requests: list[str] = field(default_factory=list)
    forked: list[dict[str, Any]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The CLI exited 0 after asking the model something."""
        return self.returncode == 0 and self.first_request is not None


def project_dir_name(path: str) -> str:
    """projects/<name> for a short realpath: each char outside [A-Za-z0-9] becomes '-'."""
    return re.sub(r"[^A-Za-z0-9]", "-", path)


def _check_session_id(session_id: str) -> str:
    if not SAFE_SESSION_ID.fullmatch(session_id) or session_id in {".", ".."}:
        raise OracleError(f"claude-code: unusable session_id for a file name: {session_id!r}")
    return session_id


def _check_env(env: Mapping[str, str] | None) -> dict[str, str]:
    extra = dict(env or {})
    for name, value in extra.items():
        if not ENV_NAME.fullmatch(name) or not isinstance(value, str) or name in RESERVED_ENV:
            raise OracleError(f"claude-code: unusable env entry {name!r}")
    return extra


def _parse_rows(tail: bytes) -> list[dict[str, Any]]:
    """The appended JSONL rows; a line that is not a JSON object is kept as ``_raw``."""
    rows: list[dict[str, Any]] = []
    for line in tail.split(b"\n"):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:
            row = None
        rows.append(row if isinstance(row, dict) else {"_raw": line.decode("utf-8", "replace")})
    return rows


def _is_prompt_row(row: dict[str, Any], prompt: str) -> bool:
    """The user row that carries our prompt (not a meta row, not an attachment)."""
    if row.get("type") != "user" or row.get("isMeta"):
        return False
    content = (row.get("message") or {}).get("content")
    if content == prompt:
        return True
    return isinstance(content, list) and any(
        isinstance(block, dict) and block.get("text") == prompt for block in content
    )


def _is_joined_prompt_row(row: dict[str, Any], prompt: str) -> bool:
    """A user row whose text ends with our prompt after a LF: before 2.1.200, with
    ``CLAUDE_CODE_RESUME_INTERRUPTED_TURN`` an interrupted prompt is queued in front of the
    new one and the two go as one row ("u4\nnext")."""
    if row.get("type") != "user" or row.get("isMeta"):
        return False
    content = (row.get("message") or {}).get("content")
    return isinstance(content, str) and content.endswith("\n" + prompt)


def _is_warmup(body: Any) -> bool:
    """2.0.x's start-up call: one user message whose only text is "Warmup"."""
    messages = body.get("messages") if isinstance(body, dict) else None
    if not isinstance(messages, list) or len(messages) != 1:
        return False
    content = messages[0].get("content") if isinstance(messages[0], dict) else None
    blocks = [{"text": content}] if isinstance(content, str) else content
    return (isinstance(blocks, list) and len(blocks) == 1 and isinstance(blocks[0], dict)
            and blocks[0].get("text") == WARMUP)


def chained_to(appended: list[dict[str, Any]], prompt: str,
               original: frozenset[str] = frozenset()) -> tuple[str | None, str | None]:
    """(parent of the prompt row, first non-appended ancestor of it).

    ``original`` holds the transcript's own uuids: a row copied from it (1.0.x
    writes the resumed chain into a new file, uuids kept) is not an appended one.
    """
    prompt_row = next((row for row in appended if _is_prompt_row(row, prompt)), None)
    if prompt_row is None:  # a release that sends a requeued prompt joined in front of ours
        prompt_row = next((row for row in appended if _is_joined_prompt_row(row, prompt)), None)
    if prompt_row is None:
        return None, None
    parent = prompt_row.get("parentUuid")
    by_uuid = {row["uuid"]: row for row in appended
               if isinstance(row.get("uuid"), str) and row["uuid"] not in original}
    leaf, seen = parent, set()
    while isinstance(leaf, str) and leaf in by_uuid and leaf not in seen:
        seen.add(leaf)
        leaf = by_uuid[leaf].get("parentUuid")
    return (parent if isinstance(parent, str) else None,
            leaf if isinstance(leaf, str) else None)


def _new_sessions(folder: Path, transcript: Path) -> list[dict[str, Any]]:
    """Rows of every session file the run created beside ``transcript`` (a fork writes one;
    2.0.x's "Warmup" calls write sidechain ``agent-*.jsonl`` files there, which are not it)."""
    rows: list[dict[str, Any]] = []
    for path in sorted(folder.glob("*.jsonl")):
        if path != transcript and not path.name.startswith("agent-"):
            rows.extend(_parse_rows(path.read_bytes()))
    return rows


def release_settings(version: str) -> dict[str, Any]:
    """The settings a release needs to resume a fixture at all.

    1.0.x deletes transcripts older than ``cleanupPeriodDays`` (30 by default) at
    start-up, and 0 means "write nothing" there, so a fixture with an old mtime
    needs a long period.
    """
    return {"cleanupPeriodDays": 100000} if version.split(".")[0] in ("0", "1") else {}


def hangs_on_cycles(version: str) -> bool:
    """Releases before 2.1.39 walk ``parentUuid`` without cycle detection: on a cycle they
    spin at 100 % CPU and never exit, so a run of theirs killed at the deadline is that
    hang (an answer), while any other release's is only slow (a timeout). The release
    family's ``cycle_detection`` switch says which; a version that is not three numbers is
    the caller's ``UsageError``."""
    return not seed_release(version).cycle_detection


def _stop(proc: subprocess.Popen[bytes], mark: Mark) -> None:
    """Kill the CLI and everything it started (it leads its own process group; what left
    the group carries ``mark``)."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    mark.sweep()
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=5)  # reap it and drain the pipes
    for pipe in (proc.stdout, proc.stderr):
        if pipe is not None:
            pipe.close()
    proc.wait()


class ClaudeCliOracle(Lifecycle):
    """``claude`` (2.1.332 unless ``spec`` names another installed release) resuming copies.

    Use as a context manager (it owns the fake server). ``resume`` is
    thread-safe; ``map`` runs up to ``workers`` resumes at once. ``wrapper`` is
    an argv prefix for each run (tests use ``strace``); ``extra_args`` go before
    the prompt (for experiments: the default command is the one the spec used).
    ``entry`` picks the entry point (``ENTRY_POINTS``); ``fork`` adds
    ``--fork-session`` so the resumed conversation is written out whole.
    """

    def __init__(
        self,
        *,
        workers: int = 1,
        timeout: float = 120.0,
        model: str = MODEL,
        prompt: str = PROMPT,
        wrapper: Sequence[str] = (),
        extra_args: Sequence[str] = (),
        spec: OracleSpec = CLAUDE_CODE,
        entry: str = "resume-id",
        fork: bool = False,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        if entry not in ENTRY_POINTS:
            raise ValueError(f"entry must be one of {', '.join(ENTRY_POINTS)}")
        self.spec = spec
        self.entry = entry
        self.fork = fork
        self.workers = workers
        self.timeout = timeout
        self.model = model
        self.prompt = prompt
        self.wrapper = list(wrapper)
        self.extra_args = list(extra_args)
        self._api: FakeMessagesApi | None = None
        self._lock = threading.Lock()
        self._version: str | None = None

    @staticmethod
    def available(spec: OracleSpec = CLAUDE_CODE) -> str | None:
        """None when the oracle can run here, else why not (for ``pytest.skip``)."""
        if not is_installed(spec):
            name = spec.name if spec is CLAUDE_CODE else spec.slug
            return (f"{spec.slug} is not installed: "
                    f"run `{portable.rechain(['oracle', 'install', name])}`")
        return None

    def start(self) -> None:
        """Start the shared fake API (once)."""
        reason = self.available(self.spec)
        if reason is not None:
            raise OracleError(f"claude-code is unavailable: {reason}")
        with self._lock:
            if self._api is None:
                api = FakeMessagesApi()
                api.start()
                self._api = api

    def close(self) -> None:
        """Stop the fake API; runs still in flight get connection errors."""
        with self._lock:
            if self._api is not None:
                self._api.close()
                self._api = None

    @property
    def port(self) -> int | None:
        """The fake API's port while the oracle is started (tests check connect() targets)."""
        return self._api.port if self._api is not None else None

    @property
    def binary(self) -> Path:
        """The installed ``claude`` executable."""
        return entry_path(self.spec)

    def version(self) -> str:
        """What ``claude --version`` prints, e.g. ``2.1.332 (Claude Code)``."""
        if self._version is None:
            self._version = _VERSIONS.get(self.binary)
        if self._version is None:
            with scratch("rechain-cli-") as where:
                tmp = str(where)
                env = {"PATH": PATH, "HOME": tmp, "CLAUDE_CONFIG_DIR": tmp, **QUIET_ENV}
                done = subprocess.run(
                    [str(self.binary), "--version"], capture_output=True, text=True,
                    env=env, cwd=tmp, timeout=self.timeout, check=False, stdin=subprocess.DEVNULL,
                )
            if done.returncode != 0:
                raise OracleError(f"claude-code: --version failed: {done.stderr.strip()}")
            self._version = _VERSIONS[self.binary] = done.stdout.strip()
        return self._version

    def _env(self, root: Path, api: FakeMessagesApi, key: str,
             extra: dict[str, str]) -> dict[str, str]:
        """Nothing inherited: the variables below, plus the caller's ``env``."""
        return {
            "PATH": PATH,
            "HOME": str(root / "home"),
            "TMPDIR": str(root / "tmp"),
            "LANG": "C.UTF-8",
            "CLAUDE_CONFIG_DIR": str(root / "config"),
            "ANTHROPIC_BASE_URL": api.base_url,
            "ANTHROPIC_API_KEY": key,
            **QUIET_ENV,
            **extra,
        }

    def resume(
        self, data: bytes, *, session_id: str, env: Mapping[str, str] | None = None
    ) -> CliResume:
        """Resume a copy of ``data`` once and report what the model would have received."""
        _check_session_id(session_id)
        extra = _check_env(env)
        api = self._api
        if api is None:
            raise OracleError("claude-code: use the oracle as a context manager (or start())")
        key = api.key()
        with scratch("rechain-cli-") as root:
            for sub in ("home", "tmp", "config", "project"):
                (root / sub).mkdir()
            project = root / "project"
            folder = root / "config" / "projects" / project_dir_name(str(project))
            folder.mkdir(parents=True)
            transcript = folder / f"{session_id}.jsonl"
            transcript.write_bytes(data)
            settings = release_settings(self.spec.version)
            if settings:
                (root / "config" / "settings.json").write_text(json.dumps(settings), "utf-8")
            argv = [*self.wrapper, str(self.binary), "-p", *self._opening(transcript),
                    "--model", self.model, *self.extra_args, self.prompt]
            started = time.monotonic()
            returncode, stderr = self._run(argv, self._env(root, api, key, extra), project)
            seconds = time.monotonic() - started
            after = transcript.read_bytes() if transcript.exists() else b""
            forked = _new_sessions(folder, transcript) if self.fork else []
            if after == data and not self.fork:  # 1.0.x continues in a new session file
                after = data + b"".join(p.read_bytes() for p in sorted(folder.glob("*.jsonl"))
                                        if p != transcript)
        result = self._result(data, after, api.take(key), returncode, stderr, seconds)
        return replace(result, forked=forked) if forked else result

    def _opening(self, transcript: Path) -> list[str]:
        """The arguments that open the transcript at this oracle's entry point."""
        fork = ["--fork-session"] if self.fork else []
        if self.entry == "continue":
            return ["--continue", *fork]
        if self.entry == "resume-file":
            return ["--resume", str(transcript), *fork]
        return ["--resume", transcript.stem, *fork]

    def _run(self, argv: list[str], env: dict[str, str], cwd: Path) -> tuple[int, str]:
        """One CLI run with a deadline; a hang kills its whole process group, and the
        run dies with rechain (started and waited for in this one thread)."""
        mark = Mark()
        proc = subprocess.Popen(
            argv, cwd=cwd, env=mark.on(env), stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True,
            preexec_fn=dies_with_parent(),
        )
        try:
            _, err = proc.communicate(timeout=self.timeout)
        except subprocess.TimeoutExpired:
            _stop(proc, mark)
            raise OracleError(f"claude-code: {HANG_MARK} {self.timeout:g} s") from None
        except BaseException:
            _stop(proc, mark)
            raise
        # what it left running (``npm root --global``, a config write) would write into
        # the scratch directory after it is removed: end it with its leader, in its group
        # or out of it
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)
        mark.sweep()
        return proc.returncode, err.decode("utf-8", "replace")[-STDERR_CHARS:]

    def _result(self, before: bytes, after: bytes, requests: list[Recorded], returncode: int,
                stderr: str, seconds: float) -> CliResume:
        intact = after.startswith(before)
        appended = _parse_rows(after[len(before):]) if intact else []
        copied = frozenset(row["uuid"] for row in appended if isinstance(row.get("uuid"), str)
                           and row["uuid"].encode() in before)
        parent, leaf = chained_to(appended, self.prompt, copied)
        calls = [r for r in requests if r.is_messages]
        chosen = next((r for r in calls if not _is_warmup(r.body)), None)
        body = chosen.body if chosen is not None and isinstance(chosen.body, dict) else None
        messages = list(body.get("messages") or []) if body is not None else []
        return CliResume(
            messages=messages[:-1],
            prompt_turn=messages[-1] if messages else None,
            resumed_parent=parent,
            resumed_leaf=leaf,
            appended=appended,
            requests=len(calls),
            returncode=returncode,
            stderr=stderr,
            first_request=body,
            prefix_intact=intact,
            seconds=seconds,
            other_requests=[f"{r.method} {r.path}" for r in requests if not r.is_messages],
        )

    def map(self, cases: Iterable[CliCase]) -> Iterator[CliResume]:
        """Resume every case, ``workers`` at a time, yielding results in input order.

        A case whose run fails with ``OracleError`` (a hang) re-raises it when
        its result is reached; callers that must go on can catch it per item.
        """
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="rechain-cli")
        try:
            futures = [
                pool.submit(self.resume, case.data, session_id=case.session_id, env=case.env)
                for case in cases
            ]
            for future in futures:
                yield future.result()
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    def resume_all(self, cases: Iterable[CliCase]) -> list[CliResume | OracleError]:
        """Like ``map`` but collects everything, each failure as its ``OracleError``."""
        with ThreadPoolExecutor(max_workers=self.workers,
                                thread_name_prefix="rechain-cli") as pool:
            futures = [
                pool.submit(self.resume, case.data, session_id=case.session_id, env=case.env)
                for case in cases
            ]
        results: list[CliResume | OracleError] = []
        for future in futures:
            error = future.exception()
            results.append(error if isinstance(error, OracleError) else future.result())
        return results
