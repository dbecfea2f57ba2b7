"""Connectables: turn an ``--impl`` spec into a running reader that answers ``CaseInput``s.

Spec grammar (Bowtie's connectables, for transcript readers)::

    reference[:PROFILE]        the embedded reference loader (tier 0, default profile sdk)
    agent-sdk-ts | agent-sdk-py | claude-code
                               the pinned real readers (``rechain oracle install``)
    python:MODULE:FUNCTION     tier 0: FUNCTION(data: bytes[, session_id, options]) -> messages,
                               called in a worker process (``tier0``), never in rechain's
    cmd:COMMAND LINE           tier 1: one process per case, ``{path}`` or stdin, JSON on stdout
    cmd[VIEW,...]:COMMAND LINE the same, answering those views (e.g. ``cmd[api,chain]:...``)
    harness:COMMAND LINE       tier 2: one process speaking protocol v1 (JSON lines)
    adapter:NAME               a shipped adapter of a real reader (``implementations/NAME``),
                               installed in its own environment on first use

Every implementation has ``info`` (an ``ImplementationInfo``), ``run(case) ->
Outcome`` and ``close()``; nothing here raises for what a reader does.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Protocol

import orjson

from rechain import __version__
from rechain.conformance.claude_code_2_1_88 import answers as forked_answers
from rechain.conformance.claude_code_2_1_88.forked import dump as dump_resume
from rechain.conformance.claude_code_2_1_88.forked import load as load_resume
from rechain.conformance.contracts.model import from_spec
from rechain.conformance.matrix.adapters import installed_spec
from rechain.conformance.oracles import OracleError, OracleReaderError, cli_answers
from rechain.conformance.oracles.calls import MessagesCall
from rechain.conformance.oracles.claude_cli import (
    HANG_MARK,
    ClaudeCliOracle,
    CliResume,
    hangs_on_cycles,
)
from rechain.conformance.oracles.cli_context import without_context
from rechain.conformance.oracles.py_sdk import PySdkOracle
from rechain.conformance.oracles.registry import (
    AGENT_SDK_PY,
    AGENT_SDK_TS,
    CLAUDE_CODE,
    OracleSpec,
)
from rechain.conformance.oracles.registry import get as get_oracle
from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.conformance.protocol import (
    FORKED_VIEWS,
    LEGACY_VIEWS,
    OPTION_NAMES,
    RESUME_VIEWS,
    VIEWS,
    Answered,
    CaseInput,
    Crashed,
    ImplementationInfo,
    Outcome,
    ProtocolError,
    Raised,
    TimedOut,
    View,
    check_messages,
)
from rechain.conformance.protocol_process import (
    Harness,
    Limits,
    OneShot,
    cannot_start,
    split_command,
)
from rechain.conformance.report_bounds import clip
from rechain.conformance.tier0 import connect_python
from rechain.errors import UsageError
from rechain.reference import Options, get_profile, rebuild
from rechain.reference.profiles.claude_code_2_1_88.resume import DEFAULT_ENTRY
from rechain.reference.profiles.claude_code_2_1_332.options import SWITCH_ENV, switches_from_env
from rechain.reference.profiles.family import in_seed_line

PY_SDK_FIELDS = frozenset(
    {"type", "uuid", "session_id", "message", "parent_tool_use_id", "parent_agent_id"}
)
PRECOMPACT_ENV = "CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP"
#: characters of a reader's label in reports (``name@version (profile)``)
LABEL_KEPT = 160
def recorded_views(profile: str) -> tuple[str, tuple[View, ...]]:
    """A profile's full name and the views its expectations are recorded in (the first is
    the view the check asks in): a release of the 2.1.88 line's forked resume per entry
    point, the CLI's ``api`` + ``chain`` for a profile that offers both, else the SDKs'
    session messages."""
    chosen = get_profile(profile)
    if in_seed_line(chosen.name):
        return chosen.name, FORKED_VIEWS
    return chosen.name, (("api", "chain") if set(chosen.views) >= RESUME_VIEWS
                         else ("session-messages",))


class Implementation(Protocol):
    """A connected reader: what every tier looks like to the runner."""

    info: ImplementationInfo

    def run(self, case: CaseInput) -> Outcome: ...

    def close(self) -> None: ...


# --- tier 0 -----------------------------------------------------------------------------


@dataclass
class Reference:
    """The embedded reference loader in one profile."""

    profile: str = "sdk"
    info: ImplementationInfo = field(init=False)

    def __post_init__(self) -> None:
        self.profile, views = recorded_views(self.profile)
        resume = views != ("session-messages",)
        self.info = ImplementationInfo(
            name="reference",
            version=__version__,
            language="python",
            homepage="https://github.com/rechain/rechain",
            views=views,
            options=frozenset() if resume else frozenset(OPTION_NAMES),
            env=frozenset({PRECOMPACT_ENV, *(SWITCH_ENV if resume else ())}),
            choices={"profile": self.profile},
        )

    def run(self, case: CaseInput) -> Outcome:
        options = Options(
            include_system_messages=bool(case.option("include_system_messages")),
            limit=case.option("limit"),
            offset=int(case.option("offset") or 0),
            disable_precompact_skip=bool(case.env.get(PRECOMPACT_ENV, "").strip()),
            **switches_from_env(case.env),
        )
        if case.view == forked_answers.CHAIN_VIEW and case.view in self.info.views:
            entry = case.options.get("entry")
            return forked_answers.from_rebuild(rebuild(
                case.data, self.profile, replace(options, entry=entry if entry else None),
                session_id=case.session_id))
        if case.view in RESUME_VIEWS and case.view in self.info.views:
            return self._resumed(case, options)
        result = rebuild(case.data, self.profile, options, session_id=case.session_id)
        if result.error is not None:
            kind = re.search(r"\((\w+Error)\)\s*$", result.error)
            return Raised(kind.group(1) if kind else "Error", result.error)
        # built once here: an answer is compared and reported several times, and keeps
        # no reference to the rebuild's rows
        return Answered(tuple(result.messages), result.leaf)

    def _resumed(self, case: CaseInput, options: Any) -> Outcome:
        """Views ``api`` and ``chain`` in one answer: the messages, and the tip as ``leaf``."""
        rebuilt = rebuild(case.data, self.profile, options, session_id=case.session_id)
        api = rebuilt.view("api")
        if api.get("error"):
            return Raised("exit 1", str(api["error"]))
        tip = rebuilt.view("chain").get("tip")
        return Answered(tuple(api["messages"]), tip if isinstance(tip, str) else None)

    def close(self) -> None:
        """In-process: nothing to stop."""


# --- the pinned oracles ---------------------------------------------------------------------


@dataclass
class TsSdk:
    """``@anthropic-ai/claude-agent-sdk``'s ``getSessionMessages`` through its Node bridge."""

    limits: Limits = field(default_factory=Limits)
    spec: OracleSpec = AGENT_SDK_TS
    info: ImplementationInfo = field(init=False)

    def __post_init__(self) -> None:
        reason = TsSdkOracle.available(self.spec)
        if reason is not None:
            raise UsageError(f"agent-sdk-ts: {reason}")
        self._oracle = TsSdkOracle(timeout=self.limits.timeout, spec=self.spec)
        self.info = ImplementationInfo(
            name="agent-sdk-ts",
            version=self.spec.version,
            language="typescript",
            homepage="https://www.npmjs.com/package/@anthropic-ai/claude-agent-sdk",
            env=frozenset({PRECOMPACT_ENV}),
        )

    def run(self, case: CaseInput) -> Outcome:
        return self.run_many([case])[0]

    def run_many(self, cases: list[CaseInput]) -> list[Outcome]:
        """Many cases in one request to the bridge (its calls overlap): far fewer round trips."""
        return _batched(self._oracle, [_messages_call(c) for c in cases], self.limits)

    def close(self) -> None:
        self._oracle.close()


def _messages_call(case: CaseInput) -> Any:
    """A case as one session-messages call (options a reader lacks are ignored by it)."""
    return MessagesCall(case.data, case.session_id,
                        bool(case.option("include_system_messages")), case.option("limit"),
                        int(case.option("offset") or 0), dict(case.env))


def _batched(oracle: Any, calls: list[Any], limits: Limits) -> list[Outcome]:
    """Each call's outcome from one batch request; when the worker breaks or times out on
    the batch, the calls go again one by one so the blame lands on the right case."""
    try:
        answers = oracle.session_messages_many(calls) if len(calls) > 1 else None
    except OracleError:
        answers = None
    if answers is None:
        answers = []
        for call in calls:
            try:
                answers.extend(oracle.session_messages_many([call]))
            except OracleError as error:
                answers.append(error)
    return [_outcome(answer, limits) for answer in answers]


def _outcome(answer: Any, limits: Limits) -> Outcome:
    """A pinned SDK's answer (messages, or the error its adapter gave) as an outcome."""
    if isinstance(answer, OracleReaderError):
        return Raised(answer.error_type, answer.detail)
    if isinstance(answer, OracleError):
        return _oracle_failure(str(answer), limits)
    return Answered(tuple(answer))


@dataclass
class PySdk:
    """PyPI ``claude-agent-sdk``'s ``get_session_messages`` in its private venv."""

    limits: Limits = field(default_factory=Limits)
    spec: OracleSpec = AGENT_SDK_PY
    info: ImplementationInfo = field(init=False)

    def __post_init__(self) -> None:
        reason = PySdkOracle.available(self.spec)
        if reason is not None:
            raise UsageError(f"agent-sdk-py: {reason}")
        self._oracle = PySdkOracle(timeout=self.limits.timeout, spec=self.spec)
        self.info = ImplementationInfo(
            name="agent-sdk-py",
            version=self.spec.version,
            language="python",
            homepage="https://pypi.org/project/claude-agent-sdk/",
            fields=PY_SDK_FIELDS,
            options=frozenset({"limit", "offset"}),
            choices={"invalid-utf8": "raises UnicodeDecodeError", "large-file-skip": "none"},
        )

    def run(self, case: CaseInput) -> Outcome:
        return self.run_many([case])[0]

    def run_many(self, cases: list[CaseInput]) -> list[Outcome]:
        """Many cases in one request to the worker: one round trip instead of one per case."""
        return _batched(self._oracle, [_messages_call(c) for c in cases], self.limits)

    def close(self) -> None:
        self._oracle.close()


def _oracle_failure(text: str, limits: Limits) -> Outcome:
    """An adapter's own failure as an outcome: the call timed out, or the worker broke."""
    if "no answer to" in text:
        return TimedOut(limits.timeout)
    return Crashed(text)


@dataclass
class ClaudeCode:
    """The real CLI resuming a copy (``claude -p --resume``) against a loopback fake API.

    Views ``api`` and ``chain`` in one answer: the messages are what the model
    would receive (the harness-built last turn left out, and an older release's context
    block in the first message: ``cli_context``), ``leaf`` is the entry
    the new prompt was chained to (possibly a system row). A run that exits
    non-zero (e.g. "No conversation found") raised. The options that are CLI
    switches arrive as the case's environment variables and are passed on.
    """

    limits: Limits = field(default_factory=Limits)
    spec: OracleSpec = CLAUDE_CODE
    info: ImplementationInfo = field(init=False)
    #: wall seconds the CLI's processes ran for this connection (answers from the store add
    #: nothing): ``rechain bench oracles`` compares it with the jobs' time
    process_seconds: float = field(default=0.0, init=False)

    def __post_init__(self) -> None:
        reason = ClaudeCliOracle.available(self.spec)
        if reason is not None:
            raise UsageError(f"claude-code: {reason}")
        self._oracle = ClaudeCliOracle(timeout=self.limits.timeout, spec=self.spec)
        self._oracle.start()
        self._forks: dict[str, ClaudeCliOracle] = {}  # entry point -> a forking oracle
        # a release of the 2.1.88 line also answers in its recorded views (a forked resume)
        forking = FORKED_VIEWS[:1] if in_seed_line(self.spec.slug) else ()
        self.info = ImplementationInfo(
            name="claude-code",
            version=self.spec.version,
            language="typescript",
            homepage="https://www.npmjs.com/package/@anthropic-ai/claude-code",
            views=("api", "chain", *forking),
            options=frozenset(),
            env=frozenset({PRECOMPACT_ENV, *SWITCH_ENV}),
            choices={"model": "claude-sonnet-4-6", "prompt": "next"},
        )

    def run(self, case: CaseInput) -> Outcome:
        if case.view == forked_answers.CHAIN_VIEW:
            return self._forked(case)
        key = cli_answers.answer_key(self._oracle.version(), self._oracle.model,
                                     self._oracle.prompt, case.data, case.session_id, case.env)
        stored = cli_answers.load(key)
        if stored is None:
            try:
                resumed = self._oracle.resume(case.data, session_id=case.session_id,
                                              env=dict(case.env))
            except OracleError as error:
                text = str(error)
                return (TimedOut(self.limits.timeout) if HANG_MARK in text
                        else Crashed(text))
            self.process_seconds += resumed.seconds
            lines = [line for line in resumed.stderr.splitlines() if line.strip()]
            stored = {"ok": resumed.ok, "returncode": resumed.returncode,
                      "messages": resumed.messages, "leaf": resumed.resumed_leaf,
                      "error": lines[-1][:300] if lines else ""}
            cli_answers.save(key, stored)
        if not stored.get("ok"):
            return Raised(f"exit {stored.get('returncode')}", str(stored.get("error", "")))
        leaf = stored.get("leaf")
        messages = tuple(without_context(stored.get("messages") or ()))
        return Answered(messages, leaf if isinstance(leaf, str) else None)

    def _forked(self, case: CaseInput) -> Outcome:
        """A forked resume at the case's entry point, judged by what it wrote and sent."""
        entry = str(case.options.get("entry") or DEFAULT_ENTRY)
        oracle = self._forks.get(entry)
        if oracle is None:
            oracle = ClaudeCliOracle(timeout=self.limits.timeout, spec=self.spec, entry=entry,
                                     fork=True)
            oracle.start()
            self._forks[entry] = oracle
        key = cli_answers.answer_key(self._oracle.version(), oracle.model, oracle.prompt,
                                     case.data, case.session_id, case.env,
                                     extra=("fork", entry, f"{oracle.timeout:g}"))
        stored = cli_answers.load(key)
        hangs = hangs_on_cycles(self.spec.version)
        if stored is None:
            try:
                resumed: CliResume | OracleError = oracle.resume(
                    case.data, session_id=case.session_id, env=dict(case.env))
            except OracleError as error:  # a hang is an answer (a release that never exits)
                resumed = error
            stored = dump_resume(resumed)
            if not isinstance(resumed, OracleError) or (hangs and HANG_MARK in str(resumed)):
                cli_answers.save(key, stored)
        outcome = forked_answers.from_resume(case.data, load_resume(stored), hangs)
        return TimedOut(self.limits.timeout) if isinstance(outcome, TimedOut) else outcome

    def close(self) -> None:
        self._oracle.close()
        for oracle in self._forks.values():
            oracle.close()


def nearest_message(data: bytes, uuid: str | None) -> str | None:
    """``uuid`` or its nearest user/assistant ancestor by ``parentUuid`` in the file."""
    entries: dict[str, dict[str, Any]] = {}
    for line in data.split(b"\n"):
        try:
            value = orjson.loads(line.lstrip(bytes(range(0x21))))
        except orjson.JSONDecodeError:
            continue
        if isinstance(value, dict) and isinstance(value.get("uuid"), str):
            entries[value["uuid"]] = value
    seen: set[str] = set()
    current = uuid
    while isinstance(current, str) and current in entries and current not in seen:
        seen.add(current)
        if entries[current].get("type") in ("user", "assistant"):
            return current
        current = entries[current].get("parentUuid")
    return uuid


ORACLES: Mapping[str, Callable[[Limits, OracleSpec], Implementation]] = {
    "agent-sdk-ts": lambda limits, spec: TsSdk(limits, spec),
    "agent-sdk-py": lambda limits, spec: PySdk(limits, spec),
    "claude-code": lambda limits, spec: ClaudeCode(limits, spec),
}


def connect(spec: str, limits: Limits | None = None, *, strict: bool = False,
            venv: Path | None = None) -> Implementation:
    """A running implementation for ``spec``; a bad spec or a harness that won't start is
    the user's to fix (``UsageError``). ``venv`` is the interpreter of ``python:`` readers."""
    limits = limits or Limits()
    kind, _, rest = spec.partition(":")
    if kind == "reference":
        return Reference(rest or "sdk")
    if spec.partition("@")[0] in ORACLES:  # a pinned oracle, or NAME@VERSION / NAME@latest
        release = get_oracle(spec)
        return ORACLES[release.name](limits, release)
    if kind == "python":
        return connect_python(rest, limits, venv=venv, strict=strict)
    if kind == "adapter":  # a shipped adapter of a real reader (implementations/NAME)
        return connect(installed_spec(rest), limits, strict=strict)
    declared = _CMD_VIEWS.fullmatch(kind)
    if kind in ("cmd", "harness") or declared:
        try:
            argv = split_command(rest)
        except ValueError as error:
            raise UsageError(f"{spec!r}: {error}") from None
        if kind != "harness":
            problem = cannot_start(argv[0])
            if problem is not None:
                raise UsageError(f"{spec}: {problem}")
            return OneShot(argv, _cmd_info(argv, declared.group(1) if declared else None),
                           limits, strict)
        try:
            return Harness(argv, limits, strict=strict)
        except ProtocolError as error:
            raise UsageError(f"{spec}: {error}") from None
    known = ", ".join(["reference[:PROFILE]", *ORACLES, "python:MOD:FN", "cmd[VIEWS]:CMD",
                       "harness:CMD", "adapter:NAME"])
    raise UsageError(f"unknown implementation {spec!r}; use one of: {known}")


# tier 1 declares its views, name, version and contract in the spec:
# ``cmd[api,chain]:COMMAND`` (default session-messages),
# ``cmd[name=foo,version=1.2,scope=archive,rows=meta+sidechain]:COMMAND``
_CMD_VIEWS = re.compile(r"cmd\[([^\]]*)\]")


def _cmd_info(argv: list[str], bracket: str | None) -> ImplementationInfo:
    """Who a tier-1 reader is: what its spec's brackets declare, else its program's name."""
    program = Path(argv[-1] if Path(argv[0]).name.startswith("python") else argv[0]).stem
    declared = from_spec(bracket or "")
    views = [w for w in (bracket or "").split(",") if w.strip() and "=" not in w]
    name = str(declared.pop("name", "")) or re.sub(r"[^A-Za-z0-9._-]", "-", program) or "cmd"
    version = str(declared.pop("version", "unknown"))
    language = str(declared.pop("language", "unknown"))
    honoured = {key: [w for w in str(declared.pop(key)).split("+") if w]
                for key in ("options", "env") if key in declared}  # the reader's, no contract
    unknown = sorted(set(honoured.get("options", ())) - set(OPTION_NAMES))
    if unknown:
        raise UsageError(f"options={'+'.join(honoured['options'])}: unknown options "
                         f"{unknown}; known: {'+'.join(OPTION_NAMES)}")
    return ImplementationInfo.from_json({
        "name": name, "version": version, "language": language,
        "views": list(_views(",".join(views) if views else None)), **honoured,
        **({"contract": declared} if declared else {}),
    })


def _views(text: str | None) -> tuple[View, ...]:
    """The views a ``cmd[...]`` spec declares; an unknown name is the user's to fix."""
    if text is None:
        return ("session-messages",)
    names = tuple(dict.fromkeys(name.strip() for name in text.split(",") if name.strip()))
    unknown = [name for name in names if name not in VIEWS]
    if unknown or not names:
        raise UsageError(f"cmd[{text}]: views are {', '.join(VIEWS)} (comma-separated)")
    return tuple(LEGACY_VIEWS.get(name, name) for name in names)  # type: ignore[misc]


def label(spec: str, info: ImplementationInfo) -> str:
    """How reports name a connected implementation: the slug, plus the profile if any
    (clipped: a reader's declared version may run away, and the label is on every line)."""
    profile = info.choices.get("profile")
    return clip(f"{info.slug} ({profile})" if profile else info.slug, LABEL_KEPT)


@dataclass
class Validating:
    """Wraps any implementation so an answer that breaks ``result.json`` is a crash (``-V``)."""

    inner: Implementation

    @property
    def info(self) -> ImplementationInfo:
        return self.inner.info

    def run(self, case: CaseInput) -> Outcome:
        outcome = self.inner.run(case)
        if isinstance(outcome, Answered):
            problem = check_messages(outcome.messages)
            if problem is not None:
                return Crashed(f"answer breaks result.json: {problem}")
        return outcome

    def close(self) -> None:
        self.inner.close()
