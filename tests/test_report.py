"""Run reports: the JSONL lines, their schema, and the terminal, Markdown and HTML views."""

from __future__ import annotations

from pathlib import Path

import pytest

from rechain.conformance import report, report_text
from rechain.conformance.compare import Difference, Verdict
from rechain.conformance.protocol import Answered, Crashed, ImplementationInfo, Raised, TimedOut
from rechain.conformance.runner import Record
from rechain.errors import UsageError

INFO = ImplementationInfo("faux", "1", "python")
OTHER = ImplementationInfo("other", "2", "go")


def record(seq: int, case_id: str, status: str, *, impl: str = "faux@1", group: str = "basic",
           difference: Difference | None = None) -> Record:
    outcome = {"pass": Answered(({"uuid": "u1"},)), "fail": Answered(()),
               "crash": Crashed("died", "trace"), "timeout": TimedOut(1.0),
               "skip": Raised("E")}[status]
    return Record(seq, case_id, group, impl, "other@2", Verdict(status, "msg", difference),
                  outcome, Answered(({"uuid": "u1"},)), 0.001, frozenset({"only-right:user"}))


def lines_for(records: list[Record], *, findings: tuple[dict, ...] = ()) -> list[dict]:
    head = report.header([("faux@1", INFO), ("other@2", OTHER)], ["other@2"], seed=5,
                         examples=3)
    cases = [report.case_line(r) for r in records]
    rates = {"faux@1": report.Rate(10, 0.5), "other@2": report.Rate(10, 0.0)}
    return [head, *cases, *findings, report.footer(cases, rates, 1.5)]


FINDING = {"kind": "finding", "implementation": "faux@1", "against": "other@2",
           "signature": ["only-right:user"], "seen": 3, "case_id": "diff-faux-vs-other-x-1234abcd",
           "path": "/tmp/x", "replay": "rechain check --case diff-faux", "lines": 2,
           "shrink_calls": 40, "difference": None}


def test_every_line_is_valid_against_the_schema():
    records = [record(1, "a", "pass"), record(2, "b", "fail", difference=Difference(
        "/messages/0/uuid", "u1", {"$missing": True})), record(3, "c", "crash"),
        record(4, "d", "timeout"), record(5, "e", "skip")]
    lines = lines_for(records, findings=(FINDING,))
    assert report.problems(lines) == []
    broken = [dict(lines[1], status="maybe")]
    assert report.problems(broken)


def test_counts_and_exit_code():
    lines = lines_for([record(1, "a", "pass"), record(2, "b", "skip")])
    assert lines[-1]["counts"] == {"faux@1": {"other@2": {"pass": 1, "skip": 1}}}
    assert lines[-1]["exit"] == 0
    for bad in ("fail", "crash", "timeout"):
        assert lines_for([record(1, "a", bad)])[-1]["exit"] == 1


def test_rates_say_cases_per_second():
    foot = lines_for([record(1, "a", "pass")])[-1]
    assert foot["rates"]["faux@1"] == {"calls": 10, "seconds": 0.5, "per_second": 20.0}
    assert foot["rates"]["other@2"]["per_second"] is None


def test_write_then_read_round_trips(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    with path.open("wb") as stream:
        writer = report.Writer(stream)
        for line in lines_for([record(1, "a", "fail")]):
            writer.write(line)
    assert report.read(path) == writer.lines
    (tmp_path / "bad.jsonl").write_text('{"kind": "case"}\n')
    with pytest.raises(UsageError, match="not a rechain report"):
        report.read(tmp_path / "bad.jsonl")


def test_terminal_summary_shows_counts_failures_and_findings():
    difference = Difference("/messages/1/uuid", "a2", "a1")
    text = report_text.terminal(lines_for(
        [record(1, "a", "pass"), record(2, "b-case", "fail", difference=difference)],
        findings=(FINDING,)))
    assert "faux@1" in text and "other@2" in text
    table_row = next(line for line in text.splitlines() if line.startswith("faux@1"))
    assert table_row.split()[2:] == ["1", "1", "0", "0", "0"]
    assert "b-case" in text and "/messages/1/uuid" in text and "'a2' vs 'a1'" in text
    assert "replay: rechain check --case diff-faux" in text
    assert "faux@1 20 cases/s" in text
    assert text.rstrip().endswith("(exit 1)")


def test_markdown_is_a_table_with_a_verdict():
    text = report_text.markdown(lines_for([record(1, "a", "pass")]))
    assert text.startswith("### rechain check: ✅")
    assert "| `faux@1` | `other@2` | 1 | 0 | 0 | 0 | 0 |" in text
    failing = report_text.markdown(lines_for([record(1, "a", "crash"), record(2, "b", "crash")]))
    assert "❌" in failing and "<details><summary>1 other cases</summary>" in failing


EXPLANATION = {
    "behaviour": "leaf-choice", "title": "leaf choice",
    "sentence": "the real reader continued from the last-written row (line 9); yours from the "
                "newest timestamp (line 7)",
    "also": [], "input_lines": 2,
    "input": [{"line": 7, "text": "7 · user · prompt · hello"},
              {"line": 9, "text": "9 · assistant · text · hi (parent: line 7)"}],
    "rows": [{"mark": "=", "got": "7 · user · prompt · hello",
              "expected": "7 · user · prompt · hello"},
             {"mark": "-", "got": "", "expected": "9 · assistant · text · hi", "first": True}],
}


def explained_lines(count: int, *, tags: tuple[str, ...] = ("rewind",)) -> list[dict]:
    """A run of ``count`` failures of one behaviour plus one pass, with tags."""
    head = report.header([("faux@1", INFO)], ["other@2"], seed=5, examples=count)
    cases = [report.case_line(record(n, f"case-{n:06d}", "fail"), tags=tags,
                              explanation=EXPLANATION) for n in range(1, count + 1)]
    cases.append(report.case_line(record(count + 1, "ok", "pass"), tags=("basic",)))
    return [head, *cases, report.footer(cases, {}, 1.0)]


def test_case_lines_with_an_explanation_and_tags_are_valid():
    assert report.problems(explained_lines(2)) == []
    broken = explained_lines(1)
    broken[1]["explanation"] = {"behaviour": "leaf-choice"}
    assert report.problems(broken)


def test_the_terminal_explains_each_kind_once_and_ends_with_feature_counts():
    text = report_text.terminal(explained_lines(3))
    assert text.count("why: leaf choice: the real reader continued from the last-written row "
                      "(line 9); yours from the newest timestamp (line 7)") == 1
    assert "  9 · assistant · text · hi (parent: line 7)" in text
    assert ">- 9 · assistant · text · hi" in text
    assert "also: case-000002, case-000003" in text
    tail = text.splitlines()[-4:]
    assert tail[0].split() == ["FEATURE", "faux@1"]
    assert tail[1].split() == ["rewind", "0/3"] and tail[2].split() == ["basic", "1/1"]


@pytest.mark.parametrize("count", [1, 20_000])
def test_the_markdown_fits_a_step_summary_at_any_size(count):
    text = report_text.markdown(explained_lines(count))
    assert len(text.encode("utf-8")) < 1024 * 1024
    assert "#### leaf choice: " + str(count) in text and "why: leaf choice:" in text
    assert "| rewind | 0/" + str(count) + " |" in text
    assert text.rstrip().endswith("to keep every case.")


def test_the_markdown_keeps_to_its_budget_by_leaving_out_whole_kinds():
    lines = explained_lines(3)
    other = dict(EXPLANATION, behaviour="hidden-row", title="row the real reader hides")
    lines.insert(2, report.case_line(record(99, "z", "fail"), explanation=other))
    small = report_text.markdown(lines, budget=len(report_text.markdown(lines).encode()) - 10)
    assert "more kinds of failure are in the full report" in small
    assert small.count("why: ") == 1


def test_every_report_states_which_fields_were_compared():
    from rechain.conformance import report_html

    lines = explained_lines(1)
    for level, shown in (("uuids", "fields compared: uuids"),
                         (None, "fields compared: messages (the default")):
        lines[0] = {**lines[0], "fields": level}
        assert shown in report_text.terminal(lines).splitlines()[0]
        assert shown in report_text.markdown(lines)
        assert shown in report_html.render(lines)


def test_counts_in_the_title_and_an_explanation_read_as_written():
    """'1 corpus case' and 'input (1 line, all)', as a person writes them."""
    from rechain.conformance.explain import as_text

    text = report_text.terminal(lines_for([record(1, "a", "pass")]))
    assert ": 1 corpus case, 0 generated (seed 5)" in text.splitlines()[0]
    lines = as_text({"title": "t", "sentence": "s", "input": [{"line": 1, "text": "1 · x"}],
                     "input_lines": 1, "rows": []})
    assert "input (1 line, all):" in lines


def test_a_one_line_case_seen_once_reads_as_written_in_the_terminal_and_the_page():
    from rechain.conformance import report_html

    lines = lines_for([record(1, "a", "fail")], findings=({**FINDING, "lines": 1, "seen": 1},))
    text = report_text.terminal(lines)
    assert "seen 1x, 1 line, fails against" in text
    page = report_html.render(lines)
    assert "1 line, seen 1 time;" in page and "1 lines" not in page


def test_a_skip_that_now_passes_is_said_once_in_the_one_line_description() -> None:
    """The answers agree, so the explanation is the verdict's own words: the line that the
    pytest plugin prints first says them once, not as message, title and sentence."""
    from rechain.conformance.explain import explain

    data = (b'{"type":"user","uuid":"u1","parentUuid":null,'
            b'"message":{"role":"user","content":"x"}}\n')
    same = Answered(({"uuid": "u1"},))
    message = "skipped case now passes: remove its skip (known)"
    record = Record(1, "basic-one", "basic", "faux@1", "other@2", Verdict("fail", message),
                    same, same, 0.0, frozenset())
    line = report.case_line(record, explanation=explain(data, same, same, None,
                                                        target="other@2", message=message))
    assert report_text.describe_case(line).count("remove its skip") == 1
    assert line["explanation"]["behaviour"] == "skip-now-passes"  # a SARIF rule id, a group
