"""``record(oracle, request)``: fill corpus cases' expectations from one real program.

Every oracle is one entry of ``RECORDERS`` (its name → the function that starts
it and records); ``rechain corpus record --oracle NAME`` only picks the name.
The expectations come from the real programs, never from the reference; the
pure merging lives in ``rechain.corpus.record``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rechain.conformance.claude_code_2_1_88 import record as record_2_1_88
from rechain.conformance.oracles import OracleReaderError
from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
from rechain.conformance.oracles.registry import CLAUDE_CODE
from rechain.conformance.oracles.registry import get as get_oracle
from rechain.conformance.oracles.ts_sdk import TsSdkOracle
from rechain.conformance.record_cli import record_cli_cases
from rechain.corpus.actions import record_cases, writable_root
from rechain.corpus.record import ReaderFailedError
from rechain.errors import UsageError
from rechain.reference.profiles.family import in_cli_line, in_seed_line


@dataclass(frozen=True, slots=True)
class Request:
    """Which cases to record and how: the same for every oracle."""

    root: Path | None  # the cases directory (None: the packaged corpus)
    cases: Sequence[str] = ()  # case ids; empty: every case
    jobs: int = 2  # runs at once, for the oracles that are whole programs
    unrecorded: bool = False  # only the cases tagged unrecorded (the SDK)
    switches: Mapping[str, bool] = field(default_factory=dict)  # the CLI's env switches


def record(oracle: str, request: Request) -> list[str]:
    """One line per case whose file changed (or that could not be recorded)."""
    if oracle in RECORDERS:
        return RECORDERS[oracle](request)
    if in_seed_line(oracle):  # a later JS bundle of the 2.1.88 line: its recorder
        return _record_seed_line(request, oracle.partition("@")[2])
    if in_cli_line(oracle):  # a native release the 2.1.332 profile answers with its switches
        return _record_cli(request, oracle.partition("@")[2])
    raise UsageError(f"no recorder for oracle {oracle!r}; known: {', '.join(RECORDERS)} "
                     f"and claude-code@VERSION for the releases the family answers")


def _record_sdk(request: Request) -> list[str]:
    """The TS SDK's ``getSessionMessages``; a throw inside the SDK is recorded as ``error``."""
    reason = TsSdkOracle.available()
    if reason is not None:
        raise UsageError(f"cannot record: {reason}")
    with TsSdkOracle() as oracle:
        version = oracle.version()

        def read(data: bytes, session_id: str, options: Any, env: Any) -> list[Any]:
            try:
                return oracle.session_messages(data, session_id=session_id, env=env, **options)
            except OracleReaderError as error:
                raise ReaderFailedError(f"{error.error_type}: {error.detail}") from error

        return record_cases(writable_root(request.root), list(request.cases) or None, read,
                            profile=f"agent-sdk@{version}", oracle=TsSdkOracle.spec.package,
                            version=version, only_unrecorded=request.unrecorded)


def _ready(spec: Any, jobs: int) -> None:
    """A usage error when a CLI oracle is missing or ``jobs`` is not positive."""
    reason = ClaudeCliOracle.available(spec)
    if reason is not None:
        raise UsageError(f"cannot record: {reason}")
    if jobs < 1:
        raise UsageError("--jobs must be positive")


def _record_cli(request: Request, release: str | None = None) -> list[str]:
    """The real CLI's resume (views ``api`` and ``chain``), ``jobs`` runs at a time; the
    pinned release unless ``release`` names another of its line."""
    pinned = release is None or release == CLAUDE_CODE.version
    _ready(CLAUDE_CODE if pinned else get_oracle(f"claude-code@{release}"), request.jobs)
    return record_cli_cases(writable_root(request.root), list(request.cases) or None,
                            jobs=request.jobs, switches=request.switches,
                            release=None if pinned else release)


def _record_seed_line(request: Request, release: str = "2.1.88") -> list[str]:
    """The forked resume of 2.1.88 (or a later release of its line) at every entry point."""
    _ready(get_oracle(f"claude-code@{release}"), request.jobs)
    root = writable_root(request.root)
    dirs = sorted(d for d in root.iterdir() if (d / "case.json").is_file())
    if request.cases:
        missing = set(request.cases) - {d.name for d in dirs}
        if missing:
            raise UsageError(f"no such case: {', '.join(sorted(missing))}")
        dirs = [d for d in dirs if d.name in set(request.cases)]
    return record_2_1_88.record(dirs, None, request.jobs, release)


RECORDERS: dict[str, Callable[[Request], list[str]]] = {
    "agent-sdk-ts": _record_sdk,
    "claude-code": _record_cli,
    "claude-code@2.1.88": _record_seed_line,
}
