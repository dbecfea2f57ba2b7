"""A reader under test may answer any JSON value: ``rechain check`` judges every answer
(pass, fail or crash, with why when it did not pass) and renders every report from it.

The answers reach the run where every tier's do: ``protocol.outcome_from_result`` (tier 0's
worker and tier 1's stdout) and ``protocol.parse_run_reply`` (tier 2). From there the real
``check`` loop judges them against a corpus case's recorded answer, the reference, or a
contract's answer, and the report lines go through every renderer ``rechain check`` has.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rechain.commands import _outputs
from rechain.conformance import report, report_ci
from rechain.conformance.check import loop, plan
from rechain.conformance.check.settings import Settings
from rechain.conformance.impls import Validating
from rechain.conformance.protocol import (
    CaseInput,
    ImplementationInfo,
    Outcome,
    outcome_from_result,
    parse_run_reply,
)
from rechain.conformance.runner import corpus_items
from rechain.corpus.cases_io import load_cases

SPEC = "answers-under-test"
# small corpus cases: an answer of three messages, and one the real reader raised on
CASES = ("cli-malformed-user-empty-blocks", "compaction-preserved-messages-not-a-list")
# and one the CLI answers in its resume views (api messages and the leaf)
CLI_CASES = ("cli-hook-context-sent",)


@dataclass(frozen=True, slots=True)
class Mode:
    """How the run judges: the options of ``rechain check`` that change the judging path."""

    profile: str = "sdk"
    against: str | None = None
    contract: Mapping[str, Any] | None = None
    fields: str | None = None
    validate: bool = False
    tier2: bool = False  # the answer arrives as a tier-2 ``run`` reply, not a bare result


MODES = (
    Mode(), Mode(validate=True), Mode(fields="uuids"), Mode(fields="types"),
    Mode(against="reference"), Mode(tier2=True), Mode(contract={"scope": "chain"}),
    Mode(contract={"scope": "archive", "strictness": "uuids"}),
    Mode(contract={"scope": "file-order"}), Mode(contract={"scope": "usage"}),
    Mode(profile="cli"), Mode(profile="cli", against="reference:cli"),
)


@dataclass
class Answers:
    """A reader that answers the same JSON value to every case, as any tier would decode it."""

    answer: Any
    info: ImplementationInfo
    tier2: bool = False
    strict: bool = False
    seq: list[int] = field(default_factory=lambda: [0])

    def run(self, case: CaseInput) -> Outcome:
        if self.tier2:
            self.seq[0] += 1
            return parse_run_reply({"seq": self.seq[0], "result": self.answer}, self.seq[0],
                                   strict=self.strict)
        return outcome_from_result(self.answer, strict=self.strict)

    def close(self) -> None:
        """Nothing runs."""


def _info(mode: Mode) -> ImplementationInfo:
    views = ("api", "chain") if mode.profile == "cli" else ("session-messages",)
    contract = ({"name": "answers", "version": "1", **mode.contract}
                if mode.contract is not None else None)
    return ImplementationInfo("answers", "1", "json", views=views, contract=contract)


class _Bar:
    def step(self, not_passing: int = 0) -> None:
        """No display in tests."""

    def end(self) -> None:
        """No display in tests."""


@contextmanager
def _reader(answer: Any, mode: Mode) -> Iterator[None]:
    real = plan.connect_checked

    def connect(spec: str, limits: Any, validate: bool, venv: Path | None = None) -> Any:
        if spec != SPEC:
            return real(spec, limits, validate, venv)
        made = Answers(answer, _info(mode), tier2=mode.tier2, strict=validate)
        return Validating(made) if validate else made

    with mock.patch.object(plan, "connect_checked", connect), \
            mock.patch.object(plan, "default_against", lambda *_: None):
        yield


def run_check(answer: Any, mode: Mode, out: Path) -> list[dict[str, Any]]:
    """The report lines of ``rechain check`` over the cases with a reader answering ``answer``,
    after every output ``check`` writes has been rendered from them."""
    chosen = Settings(seed=0, save_cases=out / "cases", started=dt.datetime.now(dt.UTC),
                      impl=(SPEC,), against=mode.against, profile=mode.profile, examples=0,
                      case=CLI_CASES if mode.profile == "cli" else CASES,
                      report=out / "run.jsonl", fields=mode.fields, validate=mode.validate,
                      invariant_every=1)
    with _reader(answer, mode):
        finished = loop.check(chosen, lambda _: None, lambda _: _Bar())
    args = argparse.Namespace(write_skips=out / "skips.json", markdown=out / "run.md",
                              html=out / "run.html", junit=out / "junit.xml",
                              sarif=out / "run.sarif", badge=out / "badge.json",
                              corpus=None)
    _outputs.render(args, finished.lines)
    report_ci.annotations(finished.lines, base=out)
    # the file reads back (``rechain report``, ``report merge``, ``check --resume`` read it)
    again = report.read(out / "run.jsonl")
    assert [(line["kind"], line.get("status")) for line in again] == [
        (line["kind"], line.get("status")) for line in finished.lines]
    return finished.lines


# --- answers of any JSON shape ------------------------------------------------------------

# nesting as deep as ``json.loads`` goes (past orjson's 255 levels)
deep = st.builds(lambda depth, key: json.loads(f'{{"{key}":' * depth + "1" + "}" * depth),
                 st.sampled_from([300, 990]), st.sampled_from(["uuid", "content", "x"]))
# what ``json.loads`` hands rechain: NaN and the infinities, ints of any size, lone surrogates
scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**64)
           | st.floats() | st.text(st.characters(codec=None), max_size=8)
           | st.sampled_from(["", "\x00", "\ud800", "uuid\udfff", "1" * 400]) | deep)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6) | st.sampled_from(
                          ["uuid", "type", "message", "leaf", "usage", "raised", "messages",
                           "content", "role", "line", "parentUuid", "\ud800"]),
                          inner, max_size=4),
                      max_leaves=8)


def _base(mode: Mode) -> dict[str, Any]:
    """A real expected answer of the run's first case: the thing a wrong reader bends."""
    profile = "cli" if mode.profile == "cli" else "agent-sdk@0.3.332"
    view = "api" if mode.profile == "cli" else "session-messages"
    cases = CLI_CASES if mode.profile == "cli" else CASES
    item = corpus_items(load_cases(None), profile, view, selected=[cases[0]])[0]
    messages = [dict(m) for m in getattr(item.recorded, "messages", ())]
    leaf = getattr(item.recorded, "leaf", None)
    return {"messages": messages, **({"leaf": leaf} if leaf else {})}


@st.composite
def mutated(draw: st.DrawFn, mode: Mode) -> Any:
    """A real answer with one to three of its values replaced, removed or added."""
    answer: Any = json.loads(json.dumps(_base(mode)))
    for _ in range(draw(st.integers(1, 3))):
        holder: Any = answer
        while isinstance(holder, dict | list) and holder and draw(st.booleans()):
            key = (draw(st.sampled_from(sorted(holder))) if isinstance(holder, dict)
                   else draw(st.integers(0, len(holder) - 1)))
            if not isinstance(holder[key], dict | list) or not holder[key]:
                break
            holder = holder[key]
        if isinstance(holder, dict):
            named = ["uuid", "type", "leaf", "usage", "raised", "line", "extra"]
            key = draw(st.sampled_from(sorted(holder) + named))
            if key in holder and draw(st.booleans()):
                del holder[key]
            else:
                holder[key] = draw(values)
        elif isinstance(holder, list) and holder:
            holder[draw(st.integers(0, len(holder) - 1))] = draw(values)
        else:
            return draw(values)
    return answer


@st.composite
def cases(draw: st.DrawFn) -> tuple[Mode, Any]:
    mode = draw(st.sampled_from(MODES))
    answer = draw(mutated(mode) | values | st.lists(values, max_size=3).map(
        lambda ms: {"messages": ms}))
    return mode, answer


def _judged(lines: list[dict[str, Any]]) -> None:
    judged = [line for line in lines if line["kind"] == "case"]
    assert judged, "no case was judged"
    for line in judged:
        assert line["status"] in ("pass", "fail", "crash", "skip"), line
        if line["status"] in ("fail", "crash"):
            assert line["explanation"] or line["message"], line
            assert report_ci.failure_text(line).strip(), line
    assert lines[-1]["kind"] == "footer"


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(cases())
# a message whose ``message`` is no object, shown in the explanation's rows
@example((Mode(), {"messages": [{"uuid": "x", "message": 3}]}))
@example((Mode(profile="cli", against="reference:cli"), {"messages": [{"message": [[]]}]}))
# a lone surrogate the report writes as an escape orjson will not read back
@example((Mode(), {"messages": [{"uuid": "uuid\udfff"}]}))
def test_any_answer_is_judged_and_reported(tmp_path: Path, drawn: tuple[Mode, Any]) -> None:
    mode, answer = drawn
    out = tmp_path / str(abs(hash(json.dumps(answer, default=repr))))
    out.mkdir(exist_ok=True)
    _judged(run_check(answer, mode, out))

