"""A reader under test may answer any JSON value: ``rechain check`` judges every answer
(pass, fail or crash, with why when it did not pass; skip when the side it is compared
with gave no answer) and renders every report from it.

The answers reach the run where every tier's do: ``protocol.outcome_from_result`` (tier 0's
worker and tier 1's stdout) and ``protocol.parse_run_reply`` (tier 2). From there the real
``check`` loop judges them against a corpus case's recorded answer, the reference, or a
contract's answer, and the report lines go through every renderer ``rechain check`` has.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import functools
import json
import shlex
import sys
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from unittest import mock
from xml.etree import ElementTree

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from rechain.commands import _outputs
from rechain.conformance import report, report_ci, report_text
from rechain.conformance.check import inputs, loop, plan
from rechain.conformance.check.settings import Settings
from rechain.conformance.impls import Validating, recorded_views
from rechain.conformance.protocol import (
    CaseInput,
    ImplementationInfo,
    Outcome,
    outcome_from_result,
    parse_run_reply,
)
from rechain.conformance.runner import Item, corpus_items
from rechain.corpus.cases_io import Case, load_cases

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
    tier2: bool = False  # the answer arrives as a tier-2 ``run`` reply's result
    reply: bool = False  # the answer is the whole tier-2 reply (its ``seq`` set when an object)
    expected: bool = False  # the odd reader is ``--against``, the reference is under test


MODES = (
    Mode(), Mode(validate=True), Mode(fields="uuids"), Mode(fields="types"),
    Mode(against="reference"), Mode(tier2=True), Mode(reply=True),
    Mode(contract={"scope": "chain"}),
    Mode(contract={"scope": "archive", "strictness": "uuids"}),
    Mode(contract={"scope": "file-order"}), Mode(contract={"scope": "usage"}),
    Mode(profile="cli"), Mode(profile="cli", against="reference:cli"), Mode(profile="seed"),
    Mode(expected=True), Mode(profile="cli", expected=True),
)


@dataclass
class Answers:
    """A reader that answers the same JSON value to every case, as any tier would decode it."""

    answer: Any
    info: ImplementationInfo
    mode: Mode
    strict: bool = False
    seq: list[int] = field(default_factory=lambda: [0])

    def run(self, case: CaseInput) -> Outcome:
        self.seq[0] += 1
        if self.mode.reply:
            reply = ({**self.answer, "seq": self.seq[0]} if isinstance(self.answer, dict)
                     else self.answer)
            return parse_run_reply(reply, self.seq[0], strict=self.strict)
        if self.mode.tier2:
            return parse_run_reply({"seq": self.seq[0], "result": self.answer}, self.seq[0],
                                   strict=self.strict)
        return outcome_from_result(self.answer, strict=self.strict)

    def close(self) -> None:
        """Nothing runs."""


def _info(mode: Mode) -> ImplementationInfo:
    views = recorded_views(mode.profile)[1]
    contract = ({"name": "answers", "version": "1", **mode.contract}
                if mode.contract is not None else None)
    return ImplementationInfo("answers", "1", "json", views=views, contract=contract)


class _Bar:
    def step(self, not_passing: int = 0) -> None:
        """No display in tests."""

    def end(self) -> None:
        """No display in tests."""


Made = dict[tuple[str, str], list[Item]]


@functools.cache
def _corpus(root: Path | None, option: str = "--corpus") -> list[Case]:
    """The packaged corpus, read once for all examples."""
    assert root is None
    return load_cases(None)


@pytest.fixture(scope="module")
def generated() -> Made:
    """The run's two generated transcripts per profile, made before any example: their
    generation is a Hypothesis run of its own, which must not nest in the property's."""
    made: Made = {}
    for name in ("sdk", "cli", "seed"):
        profile, views = recorded_views(name)
        made[(profile, views[0])] = inputs.generated(2, 0, profile, lambda _: None, views[0])
    return made


@contextmanager
def _reader(answer: Any, mode: Mode, made: Made | None) -> Iterator[None]:
    real = plan.connect_checked

    def connect(spec: str, limits: Any, validate: bool, venv: Path | None = None) -> Any:
        if spec != SPEC:
            return real(spec, limits, validate, venv)
        made = Answers(answer, _info(mode), mode, strict=validate)
        return Validating(made) if validate else made

    def generate(count: int, seed: int, profile: str, say: Any, view: str) -> list[Item]:
        assert made is not None and count in (0, 2) and seed == 0
        return made[(profile, view)] if count else []

    with contextlib.ExitStack() as patches:
        patches.enter_context(mock.patch.object(plan, "connect_checked", connect))
        patches.enter_context(mock.patch.object(plan, "default_against", lambda *_: None))
        if made is not None:
            patches.enter_context(mock.patch.object(inputs, "generated", generate))
            patches.enter_context(mock.patch.object(inputs, "corpus_cases", _corpus))
        yield


def run_check(answer: Any, mode: Mode, out: Path, made: Made | None = None
              ) -> list[dict[str, Any]]:
    """The report lines of ``rechain check`` over the cases and two generated transcripts
    with a reader answering ``answer``, after every output ``check`` writes has been
    rendered from them."""
    cli = mode.profile != "sdk"  # the resume views: their own cases, generated ones if --against
    chosen = Settings(seed=0, save_cases=out / "cases", started=dt.datetime.now(dt.UTC),
                      impl=(f"reference:{mode.profile}",) if mode.expected else (SPEC,),
                      against=SPEC if mode.expected else mode.against, profile=mode.profile,
                      examples=0 if cli and not (mode.against or mode.expected) else 2,
                      case=CLI_CASES if cli else CASES, report=out / "run.jsonl",
                      fields=mode.fields, validate=mode.validate, invariant_every=1,
                      no_shrink=made is not None, max_shrink=2)
    with _reader(answer, mode, made):
        finished = loop.check(chosen, lambda _: None, lambda _: _Bar())
    args = argparse.Namespace(write_skips=out / "skips.json", markdown=out / "run.md",
                              html=out / "run.html", junit=out / "junit.xml",
                              sarif=out / "run.sarif", badge=out / "badge.json",
                              corpus=None)
    _outputs.render(args, finished.lines)
    report_ci.annotations(finished.lines, base=out)
    ElementTree.parse(out / "junit.xml")  # well-formed XML whatever the reader said
    for name in ("run.sarif", "badge.json", "skips.json"):
        json.loads((out / name).read_text(encoding="utf-8"))
    for line in finished.lines:  # what the pytest plugin shows of a case
        if line["kind"] == "case":
            report_text.describe_case(line)
            report_text.explained(line)
    # the file reads back (``rechain report``, ``report merge``, ``check --resume`` read it)
    again = report.read(out / "run.jsonl")
    assert [(line["kind"], line.get("status")) for line in again] == [
        (line["kind"], line.get("status")) for line in finished.lines]
    return finished.lines


# --- answers of any JSON shape ------------------------------------------------------------

def nested(depth: int, key: str = "a") -> Any:
    """``{key: {key: ... 1}}``, ``depth`` objects deep, built without recursion."""
    value: Any = 1
    for _ in range(depth):
        value = {key: value}
    return value


# nesting as deep as ``json.loads`` goes (past orjson's 255 levels)
deep = st.builds(nested, st.sampled_from([300, 990]), st.sampled_from(["uuid", "content", "x"]))
# what ``json.loads`` hands rechain: NaN and the infinities, ints of any size, lone surrogates
scalars = (st.none() | st.booleans() | st.integers() | st.integers(min_value=2**64)
           | st.floats() | st.text(st.characters(codec=None), max_size=8)
           | st.sampled_from(["", "\x00", "\ud800", "uuid\udfff", "1" * 400]) | deep)
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3)
                      | st.dictionaries(st.text(max_size=6) | st.sampled_from(
                          ["uuid", "type", "message", "leaf", "usage", "raised", "messages",
                           "content", "role", "line", "parentUuid", "view", "id",
                           "input_tokens", "output_tokens", "\ud800"]),
                          inner, max_size=4),
                      max_leaves=8)


def _base(mode: Mode) -> dict[str, Any]:
    """A real expected answer of the run's first case: the thing a wrong reader bends."""
    profile, views = recorded_views(mode.profile)
    cases = CASES if mode.profile == "sdk" else CLI_CASES
    item = corpus_items(_corpus(None), profile, views[0], selected=[cases[0]])[0]
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
def modes(draw: st.DrawFn) -> Mode:
    """The named modes first (they shrink to them), then any mix of the options."""
    if draw(st.booleans()):
        return draw(st.sampled_from(MODES))
    profile = draw(st.sampled_from(["sdk", "cli", "seed"]))
    expected = draw(st.booleans())
    contract = None if expected or profile != "sdk" else draw(st.sampled_from(
        [None, *(m.contract for m in MODES if m.contract is not None)]))
    return Mode(profile=profile, expected=expected,
                against=None if expected else draw(st.sampled_from([None, f"reference:{profile}"])),
                contract=contract, fields=draw(st.sampled_from([None, "uuids", "types"])),
                validate=draw(st.booleans()), tier2=draw(st.booleans()),
                reply=draw(st.booleans()))


@st.composite
def cases(draw: st.DrawFn) -> tuple[Mode, Any]:
    mode = draw(modes())
    answer = draw(mutated(mode) | values | st.lists(values, max_size=3).map(
        lambda ms: {"messages": ms}))
    return mode, answer


def _judged(lines: list[dict[str, Any]]) -> None:
    judged = [line for line in lines if line["kind"] == "case"]
    assert judged, "no case was judged"
    for line in judged:
        assert line["status"] in ("pass", "fail", "crash", "skip"), line
        # decoding an answer never raises: the runner's last resort names no adapter bug
        assert " in the adapter: " not in str(line["message"]), line
        if line["status"] in ("fail", "crash"):
            assert line["explanation"] or line["message"], line
            assert report_ci.failure_text(line).strip(), line
    assert lines[-1]["kind"] == "footer"


@settings(max_examples=100, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.function_scoped_fixture])
@given(cases())
# a message whose ``message`` is no object, shown in the explanation's rows
@example((Mode(), {"messages": [{"uuid": "x", "message": 3}]}))
@example((Mode(profile="cli", against="reference:cli"), {"messages": [{"message": [[]]}]}))
# a lone surrogate the report writes as an escape orjson will not read back
@example((Mode(), {"messages": [{"uuid": "uuid\udfff"}]}))
def test_any_answer_is_judged_and_reported(tmp_path: Path, generated: Made,
                                           drawn: tuple[Mode, Any]) -> None:
    mode, answer = drawn
    out = Path(tempfile.mkdtemp(dir=tmp_path))
    _judged(run_check(answer, mode, out, generated))



ODD = [
    {"messages": [{"uuid": "uuid\udfff", "type": "user"}]},
    {"messages": [{"uuid": {"id": ["x"]}, "message": 7}, {"uuid": float("nan")}]},
    {"messages": [{"uuid": 2**70, "type": None}], "leaf": {"uuid": "x"}, "usage": [1]},
    {"messages": [nested(400, "uuid")]},
]


@pytest.mark.parametrize("answer", ODD, ids=["surrogate", "object-uuid", "huge-int", "deep"])
def test_a_disagreement_on_an_odd_answer_is_shrunk_and_saved(tmp_path: Path,
                                                             answer: Any) -> None:
    """Shrinking runs the reader again and freezes its answer as a case file: both take
    whatever it answers."""
    lines = run_check(answer, Mode(), tmp_path)
    _judged(lines)
    found = [line for line in lines if line["kind"] == "finding"]
    assert found, [line["kind"] for line in lines]
    assert all(line["path"] and Path(line["path"]).is_dir() for line in found)
    saved = {case.id for case in load_cases(tmp_path / "cases")}
    assert saved == {line["case_id"] for line in found}


@pytest.mark.parametrize("profile", ["sdk", "cli", "seed"])
def test_the_real_answer_passes(tmp_path: Path, profile: str) -> None:
    """The answers the property bends start from the recorded one, which passes as is (so
    a verdict above is the judging's, not the harness's)."""
    mode = Mode(profile=profile)
    lines = run_check(_base(mode), mode, tmp_path)
    judged = [line for line in lines if line["kind"] == "case"
              and line["id"].split("[")[0] == (CASES if profile == "sdk" else CLI_CASES)[0]]
    assert judged and {line["status"] for line in judged} == {"pass"}


def test_the_matrix_keeps_whatever_a_reader_answered(tmp_path: Path) -> None:
    """``rechain matrix`` keeps a reader's report as data (``matrix-data``) and renders it
    again from there: a lone surrogate it answered (in a finding's difference) is kept."""
    from rechain.commands.matrix import _kept
    from rechain.conformance.matrix import render
    from rechain.jsonio import dumps, loads

    run_check({"messages": [{"uuid": "uuid\udfff", "type": "user"}]}, Mode(), tmp_path)
    adapter = argparse.Namespace(name="answers", version="1", slug="answers@1",
                                 contract={"scope": "chain"})
    kept = _kept(adapter, tmp_path / "run.jsonl", tmp_path / "cases", tmp_path)
    again = [loads(line) for line in b"".join(dumps(line) + b"\n" for line in kept).splitlines()]
    row = render.row_of_data(again)
    assert row == render.row_of_data(kept) and row.findings
    assert "\\udfff" in json.dumps(row.findings[0]["difference"])  # kept, escaped
    assert str(row.findings[0]["case_id"]) in render.markdown([row], "rechain matrix")


@pytest.mark.parametrize("mode", [Mode(validate=True), Mode(validate=True, reply=True)],
                         ids=["result", "tier-2 reply"])
def test_an_answer_too_deep_to_validate_is_a_crash_that_says_so(tmp_path: Path,
                                                                 mode: Mode) -> None:
    """``--validate`` walks the answer recursively: one nested past that is the reader's
    crash, saying why, not an error of the adapter."""
    lines = run_check({"messages": [{"uuid": "x", "message": nested(990)}]}, mode, tmp_path)
    _judged(lines)
    crashed = [line for line in lines if line["kind"] == "case" and line["status"] == "crash"]
    assert crashed and all("too deep" in line["message"] for line in crashed)


DEEP_ONESHOT = """import sys
sys.stdin.buffer.read()
sys.stdout.write('{"messages": [' + '[' * 5000 + ']' * 5000 + ']}')
"""
DEEP_HARNESS = """import json, sys
for line in sys.stdin:
    request = json.loads(line)
    if request["cmd"] == "start":
        info = {"name": "deep", "version": "1", "language": "python"}
        sys.stdout.write(json.dumps({"version": 1, "implementation": info}) + "\\n")
    elif request["cmd"] == "run":
        deep = "[" * 5000 + "]" * 5000
        sys.stdout.write('{"seq": %d, "result": [%s]}\\n' % (request["seq"], deep))
    else:
        break
    sys.stdout.flush()
"""


@pytest.mark.parametrize(("tier", "script"), [("cmd", DEEP_ONESHOT), ("harness", DEEP_HARNESS)])
def test_json_nested_past_what_python_reads_is_the_readers_crash(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], tier: str, script: str) -> None:
    """Valid JSON nested 5000 deep cannot be parsed by ``json``: a crash of that case that
    says so, not a bug blamed on rechain's adapter."""
    from rechain.cli import main

    (tmp_path / "deep.py").write_text(script)
    spec = f"{tier}:{shlex.quote(sys.executable)} {shlex.quote(str(tmp_path / 'deep.py'))}"
    report_file = tmp_path / "run.jsonl"
    assert main(["check", "--impl", spec, "--case", CASES[0], "--examples", "0",
                 "--report", str(report_file)]) == 1
    judged = [line for line in report.read(report_file) if line["kind"] == "case"]
    assert [line["status"] for line in judged] == ["crash"]
    assert "nested too deep to read" in judged[0]["message"], judged[0]["message"]
