"""A reader's known bug is recognised in generated transcripts by its minimal case's kind,
and a skip of one kind of failure hides no other cause nor another kind of row."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from real_readers import UNHURRIED

from rechain.conformance import skips
from rechain.conformance.compare import Verdict
from rechain.conformance.matrix import adapters
from rechain.errors import UsageError

TOOL_RESULT = ["cause:lost-row", "row:user:tool_result"]
LIST = skips.parse({"version": 1, "skips": [
    {"implementation": "r@1", "cases": ["diff-r-lost-result"], "cause": "lost-row",
     "kind": TOOL_RESULT, "reason": "parallel result lost", "link": "findings"},
    {"implementation": "r@1", "cases": ["diff-r-order"], "cause": "order",
     "kind": ["cause:order"], "reason": "sorted by clock", "link": "findings"}]})


def lost(*causes: str) -> Verdict:
    return Verdict("fail", "1 row(s) in scope missing", None, causes or ("lost-row",))


def test_a_generated_case_of_the_minimal_cases_kind_is_known() -> None:
    verdict = LIST.apply(lost(), "r@1", "t", "gen-00007", TOOL_RESULT,
                         ["lost-row:user:tool_result"])
    assert verdict.status == "skip" and "parallel result lost" in verdict.message


def test_another_kind_of_the_same_cause_still_fails() -> None:
    text = ["cause:lost-row", "row:assistant:text"]
    assert LIST.apply(lost(), "r@1", "t", "gen-00007", text,
                      ["lost-row:assistant:text"]).status == "fail"


def test_a_known_row_does_not_hide_an_unknown_row_lost_in_the_same_case() -> None:
    verdict = LIST.apply(lost(), "r@1", "t", "gen-00007", TOOL_RESULT,
                         ["lost-row:user:tool_result", "lost-row:user"])
    assert verdict.status == "fail" and verdict.causes == ("lost-row",)


def test_a_known_cause_does_not_hide_another_cause_of_the_same_case() -> None:
    verdict = LIST.apply(lost("lost-row", "extra-row"), "r@1", "t", "gen-00007", TOOL_RESULT,
                         ["lost-row:user:tool_result", "extra-row:assistant:text"])
    assert verdict.status == "fail" and verdict.causes == ("extra-row",)
    assert "besides the known lost-row" in verdict.message


def test_the_kind_covers_only_its_reader_and_generated_passes_stay_passes() -> None:
    assert LIST.apply(lost(), "other@1", "t", "gen-1", TOOL_RESULT,
                      ["lost-row:user:tool_result"]).status == "fail"
    assert LIST.apply(Verdict("pass"), "r@1", "t", "gen-1").status == "pass"
    assert LIST.apply(Verdict("pass"), "r@1", "t", "diff-r-lost-result").status == "fail"


def test_a_kind_must_name_its_cause_and_come_with_its_case() -> None:
    for bad in ({"kind": ["cause:order"]}, {"kind": []}, {"kind": "cause:lost-row"}):
        entry = {"implementation": "r@1", "cases": ["c"], "cause": "lost-row",
                 "reason": "x", "link": "y", **bad}
        with pytest.raises(UsageError, match="kind"):
            skips.parse({"version": 1, "skips": [entry]})


def test_every_shipped_kind_is_its_minimal_cases_recorded_signature() -> None:
    for adapter in adapters.shipped():
        path = adapter.folder / "skips.json"
        for entry in json.loads(path.read_text())["skips"] if path.exists() else ():
            if "kind" not in entry:
                continue
            (case,) = entry["cases"]
            recorded = json.loads((adapters.ROOT / "found" / case / "case.json").read_text())
            signature = set(recorded["provenance"]["differential"]["signature"])
            assert signature <= set(entry["kind"]), (case, entry["kind"])
            assert f"cause:{entry['cause']}" in entry["kind"]


def _case(tmp: Path, source: str, new_id: str, rewrite: object = None) -> None:
    """A copy of a minimal case under another id (and uuids), as a generated case is."""
    origin = adapters.ROOT / "found" / source
    target = tmp / new_id
    target.mkdir()
    lines = (origin / "transcript.jsonl").read_text().splitlines()
    rows = [json.loads(line) for line in lines]
    uuids = {r["uuid"]: r["uuid"][:-4] + "beef" for r in rows if isinstance(r.get("uuid"), str)}
    text = "\n".join(lines) + "\n"
    for old, new in uuids.items():
        text = text.replace(old, new)
    if callable(rewrite):
        text = rewrite(text)
    (target / "transcript.jsonl").write_text(text)
    case = json.loads((origin / "case.json").read_text())
    case["id"] = new_id
    case["expectations"] = []
    case["provenance"] = {"source": "hand-written", "notes": f"{source}, renamed"}
    (target / "case.json").write_text(json.dumps(case))


def test_claude_code_logs_lost_parallel_result_is_known_in_any_transcript_and_other_losses_fail(
        tmp_path: Path) -> None:
    from rechain.cli import main

    log = next(a for a in adapters.shipped() if a.name == "claude-code-log")
    if not log.installed():
        pytest.skip("claude-code-log is not installed (rechain matrix --reader claude-code-log)")
    source = "diff-claude-code-log-vs-agent-sdk-cause-lost-row-row-user-tool-result-77b1a54d"
    corpus = tmp_path / "cases"
    corpus.mkdir()
    _case(corpus, source, "renamed")

    def untimed_prompt(text: str) -> str:  # claude-code-log drops a row without timestamp
        last = json.loads(text.splitlines()[-1])
        row = {"type": "user", "uuid": "9a4d4c3e-0000-4000-8000-00000000beef",
               "parentUuid": last["uuid"], "sessionId": last.get("sessionId"),
               "isSidechain": False, "userType": "external", "cwd": last.get("cwd", "/w"),
               "version": last.get("version", "2.1.332"),
               "message": {"role": "user", "content": "Prompt without a clock"}}
        return text + json.dumps(row) + "\n"

    _case(corpus, source, "renamed-and-untimed", untimed_prompt)
    report = tmp_path / "r.jsonl"
    main(["check", "--no-progress", *UNHURRIED, "--impl", "adapter:claude-code-log", "--corpus",
          str(corpus), "--no-shrink", "--examples", "0", "--report", str(report),
          "--skips", str(log.folder / "skips.json")])
    lines = [json.loads(line) for line in report.read_text().splitlines()]
    status = {line["id"]: (line["status"], line.get("causes")) for line in lines
              if line["kind"] == "case"}
    assert status["renamed"][0] == "skip", status
    assert status["renamed-and-untimed"] == ("fail", ["lost-row"]), status


def test_a_listed_kind_is_not_shrunk_again() -> None:
    assert LIST.known_kind("r@1", "t", TOOL_RESULT)
    assert not LIST.known_kind("r@1", "t", ["cause:lost-row", "row:assistant:text"])
    assert not LIST.known_kind("other@1", "t", TOOL_RESULT)


ROWS = skips.parse({"version": 1, "skips": [
    {"implementation": "r@1", "cases": ["diff-r-duplicate"], "rows": ["extra-row:*+duplicate"],
     "reason": "a row written twice is shown twice", "link": "findings"}]})


def extra(*causes: str) -> Verdict:
    return Verdict("fail", "a row not in scope shown", None, causes or ("extra-row",))


def test_a_row_entry_accepts_its_kind_of_row_in_any_case() -> None:
    verdict = ROWS.apply(extra(), "r@1", "t", "gen-00003", ["cause:extra-row"],
                         ["extra-row:assistant:text+duplicate", "extra-row:user+duplicate"])
    assert verdict.status == "skip" and "shown twice" in verdict.message


def test_a_row_entry_hides_no_other_row_nor_cause() -> None:
    other = ["extra-row:assistant:text+duplicate", "extra-row:assistant:text+missing-uuid"]
    assert ROWS.apply(extra(), "r@1", "t", "gen-00003", (), other).status == "fail"
    verdict = ROWS.apply(extra("lost-row", "extra-row"), "r@1", "t", "gen-00003", (),
                         ["extra-row:user+duplicate", "lost-row:user"])
    assert verdict.status == "fail" and verdict.causes == ("lost-row",)
    assert "besides the known extra-row" in verdict.message
    assert ROWS.apply(extra(), "other@1", "t", "gen-1", (),
                      ["extra-row:user+duplicate"]).status == "fail"


def test_a_row_entry_is_strict_on_its_cases() -> None:
    """Its minimal case must still fail on a row it names (toml-test's strict skips)."""
    passed = ROWS.apply(Verdict("pass"), "r@1", "t", "diff-r-duplicate")
    assert passed.status == "fail" and passed.message.startswith(skips.NOW_PASSES)
    moved = ROWS.apply(extra(), "r@1", "t", "diff-r-duplicate", (),
                       ["extra-row:user+missing-uuid"])
    assert moved.status == "fail" and moved.message.startswith(skips.ROWS_GONE)
    assert "extra-row:user+missing-uuid" in moved.message
    assert ROWS.apply(Verdict("pass"), "r@1", "t", "gen-1").status == "pass"


def test_a_row_entry_names_rows_with_its_cases_and_nothing_else() -> None:
    for bad in ({"rows": []}, {"rows": ["duplicate"]}, {"rows": "extra-row:*"},
                {"rows": ["extra-row:*"], "cause": "extra-row"}):
        entry = {"implementation": "r@1", "cases": ["c"], "reason": "x", "link": "y", **bad}
        with pytest.raises(UsageError, match="rows"):
            skips.parse({"version": 1, "skips": [entry]})
    with pytest.raises(UsageError, match="rows"):
        skips.parse({"version": 1, "skips": [{"implementation": "r@1", "reason": "x",
                                              "link": "y", "rows": ["extra-row:*"],
                                              "signature": "cause:*"}]})


def test_a_kind_whose_row_a_row_entry_names_is_not_shrunk_again() -> None:
    assert ROWS.known_kind("r@1", "t", ["cause:extra-row", "row:assistant:text+duplicate"])
    assert not ROWS.known_kind("r@1", "t", ["cause:extra-row", "row:assistant:text"])
    assert not ROWS.known_kind("r@1", "t", ["cause:extra-row"])
