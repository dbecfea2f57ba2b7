"""Record the real CLI's resume (views ``api`` and ``chain``) into corpus cases, in parallel.

A CLI run costs seconds, so the cases are resumed ``jobs`` at a time through
one ``ClaudeCliOracle``; each case file is rewritten only when what the CLI
answered (or its version) changed. The expectations come from the real CLI,
never from the reference.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rechain.corpus.cases_io import CASE_FILE, Case, case_dirs, dumps_case, load_case
from rechain.corpus.record import CLI_PROFILE, key, record_cli_case
from rechain.corpus.splice import splice
from rechain.errors import UsageError

Json = dict[str, Any]


def row_type(data: bytes, uuid: str) -> str:
    """The ``type`` of the last row of ``data`` whose ``uuid`` is ``uuid`` (``?`` if none).

    Lenient on purpose: the CLI reads rows strict JSON rejects (a second value on the
    line, a value spanning lines), so each line start is decoded as far as a value goes.
    """
    import json

    found = "?"
    decoder = json.JSONDecoder()
    text = data.decode("utf-8", "replace")
    start = 0
    while start <= len(text):
        end = text.find("\n", start)
        line_end = len(text) if end < 0 else end
        head = text[start:line_end].lstrip(" \t\r\ufeff\x0c")
        if uuid in text[start:line_end + 1] or head.startswith("{"):
            offset = line_end - len(text[start:line_end].lstrip(" \t\r\ufeff\x0c"))
            try:
                value, _ = decoder.raw_decode(text, offset)
            except ValueError:
                value = None
            if isinstance(value, dict) and value.get("uuid") == uuid:
                found = str(value.get("type"))
        if end < 0:
            break
        start = end + 1
    return found


def cli_env(case: Case, options: Mapping[str, Any]) -> dict[str, str]:
    """The environment of one CLI run: the case's, plus what its options ask of the CLI."""
    from rechain.reference.profiles.claude_code_2_1_332.options import env_for_options

    return {**dict(case.env), **env_for_options(options)}


def record_cli_cases(
    root: Path, ids: Sequence[str] | None, *, jobs: int = 2, timeout: float = 120.0,
    switches: Mapping[str, bool] | None = None, release: str | None = None,
) -> list[str]:
    """Resume every chosen case with the real CLI; one line per case whose file changed.

    Each case is recorded with the default options, every CLI option set it already
    records, and, when ``switches`` turns some on, that option set too. ``release``
    names another installed release of the CLI line (its answers are recorded under
    ``claude-code@release``, the data of that release's profile and of ``rechain history``).
    """
    from rechain.conformance.oracles.claude_cli import ClaudeCliOracle, CliCase
    from rechain.conformance.oracles.cli_context import without_context
    from rechain.conformance.oracles.registry import CLAUDE_CODE
    from rechain.conformance.oracles.registry import get as get_oracle

    spec = CLAUDE_CODE if release is None else get_oracle(f"claude-code@{release}")
    profile = CLI_PROFILE if release is None else f"claude-code@{release}"

    directories = {d.name: Path(str(d)) for d in case_dirs(root)}
    unknown = [i for i in ids or () if i not in directories]
    if unknown:
        raise UsageError(f"no case with id {unknown[0]!r} under {root}")
    chosen = [load_case(directories[name]) for name in (ids or sorted(directories))]
    runs = [(case, options) for case in chosen
            for options in cli_option_sets(case, switches or {}, profile)]
    today = datetime.now(UTC).date().isoformat()
    with ClaudeCliOracle(workers=jobs, timeout=timeout, spec=spec) as oracle:
        version = oracle.version().split()[0]
        results = oracle.resume_all([
            CliCase(case.input_bytes(), case.session_id, cli_env(case, options))
            for case, options in runs])
    updated: dict[str, Case] = {case.id: case for case in chosen}
    lines = []
    for (case, options), result in zip(runs, results, strict=True):
        if isinstance(result, Exception):
            lines.append(f"{case.id}: not recorded ({result})")
            continue
        data = case.input_bytes()
        tip = ({"type": row_type(data, result.resumed_leaf), "uuid": result.resumed_leaf}
               if result.ok and result.resumed_leaf is not None else None)
        # the harness's own context block of a release before 2.1.268 is not the transcript's
        messages = without_context(result.messages) if result.ok else []
        updated[case.id] = record_cli_case(
            updated[case.id], data, lambda *_, answer=(messages, tip): answer,
            oracle="claude-code",
            version=version, today=today, options=options, profile=profile)
    for case in chosen:
        directory = directories[case.id]
        text = dumps_case(_merged(load_case(directory), updated[case.id], profile).to_json())
        if text != (directory / CASE_FILE).read_bytes():
            (directory / CASE_FILE).write_bytes(text)
            lines.append(f"{case.id}: recorded ({profile})")
    return lines


def _merged(current: Case, recorded: Case, profile: str) -> Case:
    """The case as it is on disk now (others may have edited it), with the CLI's expectations."""
    from dataclasses import replace

    mine = [e for e in recorded.expectations if e.profile == profile]
    placed = splice(current.expectations, mine, lambda e: e.profile == profile, key)
    return replace(current, expectations=tuple(placed))


def cli_option_sets(case: Case, switches: Mapping[str, bool],
                    profile: str = CLI_PROFILE) -> list[Json]:
    """The default options, every option set the case records for ``profile``, and
    ``switches`` on.

    The CLI's switches live in its own expectations' options, not in the case's
    ``variants`` (those are the SDKs' ``getSessionMessages`` option sets).
    """
    from rechain.corpus.cases_io import DEFAULT_OPTIONS

    wanted: list[Json] = [dict(DEFAULT_OPTIONS)]
    extra = {name: True for name, on in switches.items() if on}
    found = [dict(e.options) for e in case.expectations if e.profile == profile]
    for options in [*found, *([{**DEFAULT_OPTIONS, **extra}] if extra else [])]:
        if options not in wanted:
            wanted.append(options)
    return wanted
