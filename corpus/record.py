"""Fill a case's expectations from a real reader (an oracle), never from the reference.

``record_case`` is pure: the reader is passed in as a function, so tests can
use a fake and the command can use the TS SDK oracle. An expectation whose
output and oracle version did not change keeps its old provenance, so
re-recording an unchanged corpus changes no file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from rechain.corpus.cases_io import DEFAULT_OPTIONS, VIEW, Case, Expectation, Json
from rechain.corpus.materialise import UNRECORDED
from rechain.corpus.splice import expectation_key, splice

RECORDED_BY = "rechain corpus record"

Reader = Callable[[bytes, str, Mapping[str, Any], Mapping[str, str]], list[Json]]


class ReaderFailedError(Exception):
    """Raised by a ``Reader`` when the real reader failed on the input (recorded as ``error``)."""

    def __init__(self, message: str, exit_code: int | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code

    def outcome(self) -> Json:
        """The expectation's ``error`` object."""
        out: Json = {"message": self.message}
        if self.exit_code is not None:
            out["exit_code"] = self.exit_code
        return out


def option_sets(case: Case, profile: str) -> list[dict[str, Any]]:
    """The option sets to record: the case's variants, then any other ones already recorded."""
    wanted = [dict(v) for v in case.variants]
    for expectation in case.expectations:
        if expectation.profile == profile and expectation.view == VIEW:
            options = dict(expectation.options)
            if options not in wanted:
                wanted.append(options)
    return wanted


def record_case(
    case: Case,
    data: bytes,
    read: Reader,
    *,
    profile: str,
    oracle: str,
    version: str,
    today: str,
) -> Case:
    """``case`` with one fresh expectation of ``profile`` per option set, and no unrecorded tag."""
    old = {_key(e.options): e for e in case.expectations if e.profile == profile and e.view == VIEW}
    fresh: list[Expectation] = []
    for options in option_sets(case, profile):
        error: Json | None = None
        try:
            messages = tuple(read(data, case.session_id, options, case.env))
        except ReaderFailedError as failure:
            messages, error = (), failure.outcome()
        previous = old.get(_key(options))
        provenance: Mapping[str, Any] = {
            "oracle": oracle,
            "version": version,
            "recorded_by": RECORDED_BY,
            "recorded_at": today,
        }
        if (previous is not None and _same(previous, messages, oracle, version)
                and previous.error == error):
            provenance = previous.provenance
        fresh.append(Expectation(profile, VIEW, options, messages, dict(provenance), error))
    expectations = splice(case.expectations, fresh,
                          lambda e: e.profile == profile and e.view == VIEW, key)
    tags = tuple(t for t in case.tags if t != UNRECORDED)
    return replace(case, expectations=tuple(expectations), tags=tags)


def _canonical(messages: Sequence[Json]) -> str:
    return json.dumps(list(messages), sort_keys=True, ensure_ascii=True)


def _key(options: Mapping[str, Any]) -> tuple[Any, ...]:
    return tuple(sorted(options.items()))


def key(expectation: Expectation) -> Hashable:
    """The expectation's place in its case: reader, view and option set."""
    return expectation_key(expectation.profile, expectation.view, expectation.options)


def _same(previous: Expectation, messages: tuple[Json, ...], oracle: str, version: str) -> bool:
    """Equal output (as JSON text, so ``1``, ``1.0`` and ``true`` differ) from the same oracle."""
    return (
        _canonical(previous.messages) == _canonical(messages)
        and previous.provenance.get("oracle") == oracle
        and previous.provenance.get("version") == version
    )


# --- the CLI (claude -p --resume): views ``api`` and ``chain`` ---------------------------

CLI_PROFILE = "claude-code@2.1.332"
CLI_VIEWS = ("api", "chain")

# (transcript, session_id, env) -> (the request's messages before the prompt's turn,
#                                    the entry the prompt was chained to as {type, uuid})
CliReader = Callable[[bytes, str, Mapping[str, str]], tuple[list[Json], Json | None]]


def record_cli_case(
    case: Case, data: bytes, resume: CliReader, *, oracle: str, version: str, today: str,
    options: Mapping[str, Any] | None = None, profile: str = CLI_PROFILE,
) -> Case:
    """``case`` with fresh ``api`` and ``chain`` expectations of the CLI for one option set,
    under ``profile`` (the release that answered: the pinned CLI unless another is named)."""
    chosen = dict(options if options is not None else DEFAULT_OPTIONS)
    messages, tip = resume(data, case.session_id, case.env)
    outputs = {"api": tuple(messages), "chain": (tip,) if tip is not None else ()}
    provenance = {"oracle": oracle, "version": version, "recorded_by": RECORDED_BY,
                  "recorded_at": today}

    def mine(expectation: Expectation) -> bool:
        return (expectation.profile == profile and expectation.view in CLI_VIEWS
                and _key(expectation.options) == _key(chosen))

    old = {e.view: e for e in case.expectations if mine(e)}
    fresh: list[Expectation] = []
    for view in CLI_VIEWS:
        previous = old.get(view)
        kept: Mapping[str, Any] = provenance
        if previous is not None and _same(previous, outputs[view], oracle, version):
            kept = dict(previous.provenance)
        fresh.append(Expectation(profile, view, chosen, outputs[view], kept))
    return replace(case, expectations=tuple(splice(case.expectations, fresh, mine, key)))
