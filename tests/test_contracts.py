"""Contracts: each declared scope has an exact answer, and each difference a cause."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from rechain.conformance.compare import Verdict
from rechain.conformance.contracts import Contract, Rows, answer, judge_contract
from rechain.conformance.contracts.model import from_json, from_spec
from rechain.conformance.impls import connect
from rechain.conformance.protocol import Answered, Raised, TimedOut
from rechain.conformance.skips import parse
from rechain.errors import UsageError
from rechain.strategies import rows
from rechain.strategies.formatting import reformat

U = "00000000-0000-4000-8000-{:012d}"


def row(n: int, kind: str, parent: int | None, content: object, **extra: object) -> bytes:
    entry = {"type": kind, "uuid": U.format(n), "parentUuid": U.format(parent) if parent else None,
             "sessionId": "s", "timestamp": f"2026-01-01T00:00:{n:02d}.000Z",
             "message": {"role": kind, "content": content}, **extra}
    return rows.line(entry)


def assistant(n: int, parent: int, block: dict[str, object], mid: str,
              usage: dict[str, int]) -> bytes:
    entry = {"type": "assistant", "uuid": U.format(n), "parentUuid": U.format(parent),
             "sessionId": "s", "requestId": f"req-{mid}", "timestamp": f"2026-01-01T00:00:{n:02d}Z",
             "message": {"id": mid, "role": "assistant", "content": [block], "usage": usage}}
    return rows.line(entry)


# U1 → A2 (tool t1) → A3 (tool t2, same response) → R4 (t2) ; R5 (t1, parent A2) → A6
USAGE = {"input_tokens": 4, "output_tokens": 10}
PARALLEL = b"".join([
    row(1, "user", None, "go"),
    assistant(2, 1, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}, "m1", USAGE),
    assistant(3, 2, {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}, "m1", USAGE),
    row(4, "user", 3, [{"type": "tool_result", "tool_use_id": "t2", "content": "out 2"}]),
    row(5, "user", 2, [{"type": "tool_result", "tool_use_id": "t1", "content": "out 1"}]),
    assistant(6, 5, {"type": "text", "text": "done"}, "m2", USAGE),
    row(7, "user", 6, "aside", isMeta=True),
])


def contract(**kwargs: object) -> Contract:
    return Contract("r", "1", **kwargs)  # type: ignore[arg-type]


def shown(*numbers: int) -> Answered:
    return Answered(tuple({"uuid": U.format(n), "type": "assistant" if n in (2, 3, 6) else "user"}
                          for n in numbers))


def test_archive_has_every_row_once_and_rows_decide_meta() -> None:
    plain = answer(PARALLEL, contract(scope="archive"))
    assert plain.uuids == [U.format(n) for n in range(1, 7)]
    with_meta = answer(PARALLEL, contract(scope="archive", rows=Rows(meta=True)))
    assert with_meta.uuids[-1] == U.format(7)


def test_usage_counts_a_split_response_once() -> None:
    totals = answer(PARALLEL, contract(scope="usage")).usage
    assert totals["input_tokens"] == 8 and totals["output_tokens"] == 20


def test_a_lost_tool_result_is_lost_row_and_shown_twice_is_duplicate() -> None:
    want = answer(PARALLEL, contract(scope="archive"))
    lost = judge_contract(shown(1, 2, 3, 4, 6), want, contract(scope="archive", content="ignored"))
    assert lost.status == "fail" and lost.cause == "lost-row" and "line 5" in lost.message
    twice = judge_contract(shown(1, 2, 3, 4, 5, 5, 6), want,
                           contract(scope="archive", content="ignored"))
    assert twice.causes[0] == "duplicate-row"


def test_a_reader_with_uuids_leads_with_a_lost_row_before_a_row_shown_twice() -> None:
    """A row shown twice above a row lost: the verdict's words and difference are the lost
    row's (losing a row is worse than seeing one twice), as for a reader without uuids,
    and a skip accepting the lost row leads with the row shown twice."""
    want = answer(PARALLEL, contract(scope="archive"))
    terms = contract(scope="archive", content="ignored")
    got = shown(1, 2, 2, 3, 4, 6)  # A2 twice, R5 (line 5) lost
    verdict = judge_contract(got, want, terms)
    assert verdict.causes == ("lost-row", "duplicate-row")
    assert verdict.message == "1 row(s) in scope missing, first on line 5"
    assert verdict.difference is not None and verdict.difference.path.endswith("/uuid")
    assert [lead[0] for lead in verdict.leads] == ["duplicate-row"]
    listed = parse({"version": 1, "skips": [{
        "implementation": "r@1", "cases": ["a-case"], "cause": "lost-row",
        "reason": "known", "link": "docs"}]})
    rest = listed.apply(verdict, "r@1", "agent-sdk@0.3.332 archive", "a-case")
    assert rest.causes == ("duplicate-row",)
    assert rest.message == "row shown twice (besides the known lost-row)"
    assert rest.difference is not None and rest.difference.left == U.format(2)


def test_archive_accepts_any_order_with_parents_first_but_not_a_child_first() -> None:
    want = answer(PARALLEL, contract(scope="archive"))
    terms = contract(scope="archive", content="ignored")
    assert judge_contract(shown(1, 2, 5, 6, 3, 4), want, terms).status == "pass"
    assert judge_contract(shown(1, 3, 2, 4, 5, 6), want, terms).cause == "order"


def test_usage_that_counts_nothing_is_lost_row() -> None:
    want = answer(PARALLEL, contract(scope="usage"))
    verdict = judge_contract(Answered((), usage={"input_tokens": 0, "output_tokens": 0}), want,
                             contract(scope="usage"))
    assert verdict.cause == "lost-row" and verdict.difference is not None
    assert verdict.difference.path == "/usage/input_tokens"


def test_raising_is_its_own_cause() -> None:
    want = answer(PARALLEL, contract())
    assert judge_contract(Raised("AttributeError", "x"), want, contract()).cause == "raised"


def test_a_reader_that_answers_where_the_real_reader_raised_shows_rows_it_lacks() -> None:
    """The real reader throws on the file, yours returns rows: that is rows the real reader
    does not show (``extra-row``), never a row lost; an empty answer differs only there."""
    from rechain.conformance.compare import judge
    from rechain.conformance.contracts.causes import plain_causes

    threw = Raised("TypeError", "Cannot read properties of undefined (reading '0')")
    for got, cause in ((shown(1, 2), "extra-row"), (Answered(()), "field")):
        assert plain_causes(judge(got, threw), got, threw) == (cause,)
    assert plain_causes(judge(threw, shown(1)), threw, shown(1)) == ("raised",)


def test_text_equivalent_finds_a_missing_fragment() -> None:
    want = answer(PARALLEL, contract(scope="file-order"))
    terms = contract(scope="file-order", content="text-equivalent")
    rows = [{"uuid": U.format(n), "type": t, "text": text} for n, t, text in (
        (1, "user", "go"), (2, "assistant", "t1"), (3, "assistant", "t2"), (4, "user", "t2"),
        (5, "user", "t1"), (6, "assistant", "done"))]
    assert judge_contract(Answered(tuple(rows)), want, terms).status == "pass"
    rows[5] = {**rows[5], "text": ""}
    verdict = judge_contract(Answered(tuple(rows)), want, terms)
    assert verdict.cause == "field" and verdict.difference.right == "done"  # type: ignore[union-attr]


def test_position_and_role_identity_for_readers_without_uuids() -> None:
    want = answer(PARALLEL, contract(scope="file-order"))
    terms = contract(scope="file-order", identity="position+role", content="ignored")
    roles = ["user", "assistant", "assistant", "user", "user", "assistant"]
    assert judge_contract(Answered(tuple({"role": r} for r in roles)), want,
                          terms).status == "pass"
    del roles[3]
    assert judge_contract(Answered(tuple({"role": r} for r in roles)), want,
                          terms).cause == "lost-row"


def test_a_cmd_spec_declares_name_version_and_contract(tmp_path: Path) -> None:
    reader = connect("cmd[name=viewer,version=1.2,scope=archive,rows=meta+sidechain]:"
                     "python3 -c pass")
    assert reader.info.slug == "viewer@1.2"
    declared = from_json(dict(reader.info.contract or {}))
    assert declared.scope == "archive" and declared.rows.meta and declared.rows.sidechain
    assert not declared.rows.system
    with pytest.raises(UsageError, match="unknown rows"):
        from_spec("rows=metta")
    with pytest.raises(UsageError, match="scope"):
        from_json({"name": "x", "version": "1", "scope": "everything"})


def test_a_cmd_spec_declares_the_options_and_env_it_honours() -> None:
    """A one-shot reader without paging says so in its spec, as a harness does in its start
    reply: paging cases are skipped for it rather than failed, and no contract is implied."""
    reader = connect("cmd[name=viewer,version=1,options=include_system_messages,"
                     "env=CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP]:python3 -c pass")
    assert reader.info.options == frozenset({"include_system_messages"})
    assert reader.info.env == frozenset({"CLAUDE_CODE_DISABLE_PRECOMPACT_SKIP"})
    assert reader.info.contract is None
    assert connect("cmd[name=v,version=1,options=]:python3 -c pass").info.options == frozenset()
    with pytest.raises(UsageError, match="options=offst: unknown options"):
        connect("cmd[name=v,version=1,options=offst]:python3 -c pass")


def test_a_skip_names_one_cause_and_hides_no_other() -> None:
    skips = parse({"version": 1, "skips": [{"implementation": "r@*", "cases": ["c1"],
                                            "cause": "extra-row", "reason": "shows meta",
                                            "link": "x"}]})
    both = Verdict("fail", "m", None, ("lost-row", "extra-row"))
    assert skips.apply(both, "r@1", "t", "c1").causes == ("lost-row",)
    only = Verdict("fail", "m", None, ("extra-row",))
    assert skips.apply(only, "r@1", "t", "c1").status == "skip"


def test_reformatting_keeps_rows_and_broken_lines() -> None:
    data = PARALLEL + b"{broken\n"
    spaced = reformat(data, "spaced")
    assert b'"type": "user"' in spaced and spaced.endswith(b"{broken\n")
    assert [orjson.loads(x) for x in spaced.splitlines()[:-1]] == [
        orjson.loads(x) for x in data.splitlines()[:-1]]


def test_fields_level_narrows_a_plain_comparison_and_the_report_says_so(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rechain.cli import main

    reader = tmp_path / "typeless.py"
    reader.write_text(
        "from rechain.reference import rebuild\n"
        "def read(data, session_id):\n"
        "    return [{'uuid': m['uuid'], 'type': m['type']}\n"
        "            for m in rebuild(data, 'sdk', session_id=session_id).messages]\n")
    argv = ["check", "--no-progress", "--impl", f"python:{reader}:read", "--examples", "0",
            "--case", "cycle-*", "--report", str(tmp_path / "r.jsonl")]
    assert main([*argv, "--fields", "messages"]) == 1
    assert main([*argv, "--fields", "types"]) == 0
    assert "fields compared: types" in capsys.readouterr().out
    head = orjson.loads((tmp_path / "r.jsonl").read_bytes().splitlines()[0])
    assert head["fields"] == "types"


class _ByteCounter:
    """Counts usage of rows it finds by their bytes: a spaced row counts nothing."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("byte-counter", "1", "python")

    def run(self, case: object) -> Answered:
        total = {"input_tokens": 0, "output_tokens": 0}
        seen = set()
        for line in case.data.splitlines():  # type: ignore[attr-defined]
            if b'"type":"assistant"' in line:
                row = orjson.loads(line)
                if row["message"]["id"] in seen:
                    continue
                seen.add(row["message"]["id"])
                for key in total:
                    total[key] += row["message"]["usage"][key]
        return Answered((), usage=total)

    def close(self) -> None:
        """Nothing to stop."""


def test_the_contract_target_reruns_the_reader_on_reformatted_rows_one_case_in_k() -> None:
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    reader = _ByteCounter()
    counters = frozenset({"input_tokens", "output_tokens"})
    target = ContractTarget(reader, Contract("byte-counter", "1", scope="usage", fields=counters),
                            every=4)
    item = Item(CaseInput("c", PARALLEL, "s"), "generated")
    for seq, status in ((1, "pass"), (4, "fail"), (0, "fail")):  # 4: spaced; 0: every style
        target.expect(item)
        verdict = target.judge(item, reader.run(item.case), seq)
        assert verdict.status == status, seq
        if status == "fail":
            assert verdict.cause == "invariant:unchanged-by-formatting"
            assert "written spaced" in verdict.message


class _StrictParser:
    """Reads every line as JSON and raises on the first that is not (a torn last line)."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("strict", "1", "python")

    def run(self, case: object) -> Answered | Raised:
        try:
            rows = [orjson.loads(line) for line in case.data.splitlines()]  # type: ignore[attr-defined]
        except orjson.JSONDecodeError:
            return Raised("exit 4", "parse error: Unfinished JSON term")
        return Answered(tuple({"uuid": r["uuid"], "type": r["type"]} for r in rows))

    def close(self) -> None:
        """Nothing to stop."""


class _FirstArgument:
    """A text viewer without uuids that sums up a call by its input's first value, as
    agent-chat-reader does: reordered keys change the text, not the rows."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("first-argument", "1", "python")

    def run(self, case: object) -> Answered:
        shown = []
        for line in case.data.splitlines():  # type: ignore[attr-defined]
            try:
                entry = orjson.loads(line)
            except orjson.JSONDecodeError:  # a torn line is skipped, as readers do
                continue
            content = entry["message"]["content"]
            calls = [next(iter(b["input"].values())) for b in content
                     if isinstance(b, dict) and b.get("type") == "tool_use"] if isinstance(
                content, list) else []
            shown.append({"type": entry["type"], "text": str(calls or content)})
        return Answered(tuple(shown))

    def close(self) -> None:
        """Nothing to stop."""


def test_a_reader_changed_by_a_torn_line_is_told_so_in_words_with_its_own_error() -> None:
    """The answers agree, the torn line appended makes the reader raise: the failure names
    that invariant and quotes what the reader said, never a field `/` of value "unchanged"."""
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.explain import explain
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    data = row(1, "user", None, "go") + row(2, "user", 1, "on")
    reader = _StrictParser()
    target = ContractTarget(reader, contract(scope="file-order", content="ignored"), every=4)
    item = Item(CaseInput("c", data, "s"), "generated")
    expected = target.expect(item)
    verdict = target.judge(item, reader.run(item.case), 4)
    assert (verdict.status, verdict.cause) == ("fail", "invariant:unchanged-by-invalid-line")
    assert verdict.message == ("appending one torn line changed the answer: 2 rows became no "
                               "answer, yours raised exit 4: parse error: Unfinished JSON term")
    said = explain(data, reader.run(item.case), expected, verdict.difference.to_json(),  # type: ignore[union-attr]
                   target=target.label, message=verdict.message, causes=verdict.causes)
    assert (said["behaviour"], said["title"]) == ("invariant:unchanged-by-invalid-line",
                                                  "answer changed by one torn line")
    assert said["sentence"].startswith("appending one torn line changed the answer")


class _SlowOnChangedFiles:
    """Answers the case as written and runs out of time on any other file: a reader near its
    limit on a loaded machine, whatever the line appended."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("slow", "1", "python")

    def __init__(self, data: bytes) -> None:
        self.data = data

    def run(self, case: object) -> Answered | TimedOut:
        if case.data != self.data:  # type: ignore[attr-defined]
            return TimedOut(300.0)
        return _StrictParser().run(case)  # type: ignore[return-value]

    def close(self) -> None:
        """Nothing to stop."""


def test_a_reread_that_times_out_is_no_verdict_on_the_invariants() -> None:
    """A changed file the reader ran out of time on says nothing about the change: the case
    passes on its answer (it was "answer changed", a verdict that moved with the load)."""
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    data = row(1, "user", None, "go") + row(2, "user", 1, "on")
    reader = _SlowOnChangedFiles(data)
    target = ContractTarget(reader, contract(scope="file-order", content="ignored"), every=4)
    item = Item(CaseInput("c", data, "s"), "generated")
    target.expect(item)
    verdict = target.judge(item, reader.run(item.case), 4)
    assert verdict.status == "pass", verdict.message


class _Hangs:
    """Never answers: each call is a full timeout, so one call per case is all it may cost."""

    from rechain.conformance.protocol import ImplementationInfo

    info = ImplementationInfo("hangs", "1", "python")

    def __init__(self) -> None:
        self.calls = 0

    def run(self, case: object) -> object:
        from rechain.conformance.protocol import Crashed, TimedOut

        self.calls += 1
        return TimedOut(30.0) if self.calls % 2 else Crashed("killed by signal 9")

    def close(self) -> None:
        """Nothing to stop."""


def test_a_reader_that_timed_out_or_crashed_is_not_run_again_for_the_invariants() -> None:
    """Reading the file again checks an answer; a reader that gave none keeps its timeout or
    crash, and is not run eight more times (eight more timeouts) on each case file."""
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    reader = _Hangs()
    target = ContractTarget(reader, contract(scope="file-order"), every=1)
    item = Item(CaseInput("c", PARALLEL, "s"), "real")  # a case file: every invariant
    for status in ("timeout", "crash"):
        target.expect(item)
        calls = reader.calls
        verdict = target.judge(item, reader.run(item.case), 0)
        assert (verdict.status, reader.calls - calls) == (status, 1)


def test_the_invariants_reuse_the_answer_already_given() -> None:
    """The file as it is was read once for the verdict: the invariants read only the
    changed files (a torn line appended, each style of formatting), not that one again."""
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item
    from rechain.strategies.formatting import STYLES

    reader = _StrictParser()
    seen: list[bytes] = []
    run = reader.run
    reader.run = lambda case: (seen.append(case.data), run(case))[1]  # type: ignore[method-assign]
    target = ContractTarget(reader, contract(scope="file-order", content="ignored"), every=1)
    data = row(1, "user", None, "go")
    item = Item(CaseInput("c", data, "s"), "real")
    target.expect(item)
    target.judge(item, run(item.case), 0)
    changed = [style for style in STYLES if reformat(data, style) != data]
    assert data not in seen and len(seen) == 1 + len(changed) >= 3


def test_a_reader_that_ignores_content_is_judged_on_rows_when_its_rows_are_reformatted() -> None:
    """Reformatting (reversed keys) changes the text a reader renders from a call's first
    argument: with ``content: ignored`` only its rows are compared, so that is no failure;
    a reader that declares its content is judged on the text, and fails."""
    from rechain.conformance.contracts.target import ContractTarget
    from rechain.conformance.protocol import CaseInput
    from rechain.conformance.runner import Item

    data = b"".join([row(1, "user", None, "go"), row(2, "assistant", 1, [
        {"type": "tool_use", "id": "t1", "name": "Task",
         "input": {"description": "first", "prompt": "second"}}])])
    reader = _FirstArgument()
    item = Item(CaseInput("c", data, "s"), "generated")
    for content, status in (("ignored", "pass"), ("text-equivalent", "fail")):
        terms = contract(scope="file-order", identity="position+role", content=content,
                         strictness="types")
        target = ContractTarget(reader, terms, every=4)
        target.expect(item)
        verdict = target.judge(item, reader.run(item.case), 0)  # 0: every style
        assert verdict.status == status, content
        if status == "fail":
            assert verdict.cause == "invariant:unchanged-by-formatting"
            assert "second" in verdict.message


def test_a_kind_names_the_cause_and_the_row_so_different_losses_shrink_apart() -> None:
    from rechain.conformance.contracts.judge import kind_of

    terms = contract(scope="archive", content="ignored")
    want = answer(PARALLEL, terms)
    expected = Answered(tuple({"uuid": u} for u in want.uuids))
    result_lost = shown(1, 2, 3, 4, 6)
    text_lost = shown(1, 2, 3, 4, 5)
    kinds = [kind_of(PARALLEL, judge_contract(got, want, terms), got, expected)
             for got in (result_lost, text_lost)]
    assert kinds == [frozenset({"cause:lost-row", "row:user:tool_result"}),
                     frozenset({"cause:lost-row", "row:assistant:text"})]
    passing = shown(1, 2, 3, 4, 5, 6)
    assert kind_of(PARALLEL, judge_contract(passing, want, terms), passing, expected) == set()


def test_a_python_reader_declares_its_contract_in_rechain_info(tmp_path: Path) -> None:
    from rechain.cli import main

    reader = tmp_path / "dump.py"
    reader.write_text(
        "import json\n"
        "RECHAIN_INFO = {'name': 'dump', 'version': '2', 'contract': {'scope': 'file-order',\n"
        "                'rows': {'meta': True}, 'content': 'ignored'}}\n"
        "def read(data):\n"
        "    out, seen = [], set()\n"
        "    for line in data.splitlines():\n"
        "        try:\n"
        "            row = json.loads(line)\n"
        "        except ValueError:\n"
        "            continue\n"
        "        if isinstance(row, dict) and row.get('type') in ('user', 'assistant') \\\n"
        "                and not row.get('isSidechain') and row.get('uuid') not in seen:\n"
        "            seen.add(row.get('uuid'))\n"
        "            out.append({'uuid': row.get('uuid'), 'type': row['type']})\n"
        "    return out\n")
    report = tmp_path / "r.jsonl"
    assert main(["check", "--no-progress", "--impl", f"python:{reader}:read", "--examples", "0",
                 "--case", "cycle-*", "--report", str(report)]) == 0
    lines = [orjson.loads(line) for line in report.read_bytes().splitlines()]
    cases = [line for line in lines if line["kind"] == "case"]
    assert cases and {line["against"] for line in cases} == {"agent-sdk@0.3.332 file-order"}
    assert lines[0]["implementations"][0]["info"]["contract"]["scope"] == "file-order"


def test_two_skips_of_one_case_accept_its_two_causes() -> None:
    entry = {"implementation": "r@*", "cases": ["c1"], "reason": "r", "link": "x"}
    skips = parse({"version": 1, "skips": [{**entry, "cause": "extra-row"},
                                           {**entry, "cause": "field"}]})
    both = Verdict("fail", "m", None, ("extra-row", "field"))
    assert skips.apply(both, "r@1", "t", "c1").status == "skip"
    three = Verdict("fail", "m", None, ("lost-row", "extra-row", "field"))
    assert skips.apply(three, "r@1", "t", "c1").causes == ("lost-row",)


# U1 → A2 (tool t1) → A3 (tool t2, same response) → R4 (t1, parent A3) → R5 (t2) → A6
PAIRED = b"".join([
    row(1, "user", None, "go"),
    assistant(2, 1, {"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}, "m1", USAGE),
    assistant(3, 2, {"type": "tool_use", "id": "t2", "name": "Bash", "input": {}}, "m1", USAGE),
    row(4, "user", 3, [{"type": "tool_result", "tool_use_id": "t1", "content": "out 1"}]),
    row(5, "user", 4, [{"type": "tool_result", "tool_use_id": "t2", "content": "out 2"}]),
    assistant(6, 5, {"type": "text", "text": "done"}, "m2", USAGE),
])


def test_results_beside_their_call_is_a_declared_order_not_a_failure() -> None:
    """A viewer that pairs each call with its output (claude-code-log) shows t1's result
    before A3, the row it hangs off: with ``results: beside-call`` that is the answer, in an
    archive and in file order; without it, an order failure."""
    paired = shown(1, 2, 4, 3, 5, 6)
    for scope in ("archive", "file-order"):
        terms = contract(scope=scope, content="ignored", results="beside-call")
        want = answer(PAIRED, terms)
        assert want.uuids == [U.format(n) for n in (1, 2, 4, 3, 5, 6)]
        assert judge_contract(paired, want, terms).status == "pass"
        written = contract(scope=scope, content="ignored")
        assert judge_contract(paired, answer(PAIRED, written), written).cause == "order"
    declared = from_json({"name": "v", "version": "1", "scope": "archive",
                          "results": "beside-call"})
    assert declared.results == "beside-call" and "results beside-call" in declared.summary
    assert from_json(declared.to_json()) == declared


# U1 → A2 (thinking only) → A3 (calls t1) → R4 (t1's result) → U5 (result and text) → U6
# (blank) → A7 (text)
TEXTS = b"".join([
    row(1, "user", None, "go"),
    row(2, "assistant", 1, [{"type": "thinking", "thinking": "hmm"}]),
    row(3, "assistant", 2, [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {}}]),
    row(4, "user", 3, [{"type": "tool_result", "tool_use_id": "t1", "content": "out 1"}]),
    row(5, "user", 4, [{"type": "tool_result", "tool_use_id": "t1", "content": "again"},
                       {"type": "text", "text": "and stop"}]),
    row(6, "user", 5, "   "),
    row(7, "assistant", 6, [{"type": "text", "text": "done"}]),
])


def test_hidden_results_and_blank_rows_are_declared_text_views_not_lost_rows() -> None:
    """A text viewer renders a row's texts and calls: with ``results: hidden`` a row of tool
    results only is no row (a row with text besides stays, without its result), with
    ``blank: hidden`` neither is a reply of thinking only nor a blank prompt. Without
    them, the same reader loses rows."""
    hidden = contract(scope="file-order", content="ignored", results="hidden")
    assert answer(TEXTS, hidden).uuids == [U.format(n) for n in (1, 2, 3, 5, 6, 7)]
    both = contract(scope="file-order", content="ignored", results="hidden", blank="hidden")
    want = answer(TEXTS, both)
    assert want.uuids == [U.format(n) for n in (1, 3, 5, 7)]
    assert want.rows[2].fragments == ("and stop",)  # its result is not asked for
    blank = contract(scope="file-order", content="ignored", blank="hidden")
    assert answer(TEXTS, blank).uuids == [U.format(n) for n in (1, 3, 4, 5, 7)]
    texts = Answered(tuple({"uuid": U.format(n), "type": "assistant" if n in (3, 7) else "user"}
                           for n in (1, 3, 5, 7)))
    assert judge_contract(texts, want, both).status == "pass"
    every = contract(scope="file-order", content="ignored")
    assert judge_contract(texts, answer(TEXTS, every), every).cause == "lost-row"
    declared = from_json({"name": "v", "version": "1", "scope": "file-order",
                          "results": "hidden", "blank": "hidden"})
    assert "results hidden, blank hidden" in declared.summary
    assert from_json(declared.to_json()) == declared
    with pytest.raises(UsageError, match="blank"):
        from_json({"name": "v", "version": "1", "blank": "folded"})


def _recorded(case: str, profile: str, view: str) -> list[dict[str, object]]:
    """The messages a real program answered on a corpus case (its recorded expectation)."""
    import json

    document = json.loads((Path(__file__).parents[1] / "corpus" / "cases" / case
                           / "case.json").read_text())
    return next(e["messages"] for e in document["expectations"]
                if e["profile"] == profile and e["view"] == view)


def _texts(content: object) -> set[str]:
    if isinstance(content, str):
        return {content.strip()}
    return {str(b["text"]).strip() for b in content if isinstance(b, dict)  # type: ignore[union-attr]
            and b.get("type") == "text"} if isinstance(content, list) else set()


@pytest.mark.parametrize("case", ["parse-bom", "diff-cli-vs-ref-bom-first-line-1aee3c19"])
def test_a_reader_declares_how_it_reads_a_line_after_a_byte_order_mark(case: str) -> None:
    """A line opening with a UTF-8 BOM: the SDK drops it (the default), Claude Code's CLI
    reads the file's first line past the mark and drops a later one (first-line-read),
    2.1.88 reads every such line (every-line-read); each answer is held to what the real
    program answered on the corpus case."""
    data = (Path(__file__).parents[1] / "corpus" / "cases" / case / "transcript.jsonl"
            ).read_bytes()
    assert data.startswith(b"\xef\xbb\xbf")
    sdk = [m["uuid"] for m in _recorded(case, "agent-sdk@0.3.332", "session-messages")]
    assert answer(data, contract(content="ignored")).uuids == sdk
    # the CLI's request holds the texts of exactly the lines it read (besides what it adds:
    # an answer to a prompt left without one)
    cli = {t for m in _recorded(case, "claude-code@2.1.332", "api")
           for t in _texts(m["content"]) if t.encode() in data}
    read = answer(data, contract(scope="file-order", content="ignored",
                                 bom="first-line-read"))
    assert set().union(*(_texts(read.entries[u]["message"]["content"])
                         for u in read.uuids)) == cli
    assert read.rows[0].line == 1
    every = [m["uuid"] for m in _recorded(case, "claude-code@2.1.88", "resumed-chain")
             if not str(m["uuid"]).startswith("synthetic")]
    assert answer(data, contract(content="ignored", bom="every-line-read")).uuids == every
    assert from_json({"name": "r", "version": "1", "bom": "first-line-read"}).bom == (
        "first-line-read")
    with pytest.raises(UsageError):
        from_json({"name": "r", "version": "1", "bom": "kept"})
