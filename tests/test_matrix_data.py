"""The published matrix is kept as data and re-renders from a fresh checkout; readers
that group a session into turns declare merged prompts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.contracts.answers import Row
from rechain.conformance.contracts.judge import merged_prompts
from rechain.conformance.matrix import adapters, render

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_a_matrix_with_nothing_to_render_leaves_nothing_and_says_what_to_run(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Outside the repository, --no-run finds no results: no empty docs/badges and
    docs/matrix-data folders are left behind, and each reader's line says the command
    that makes its results, as printed from anywhere."""
    out = tmp_path / "docs"
    assert main(["matrix", "--no-run", "--reader", "ccusage", "--out", str(out), "--cases",
                 str(tmp_path / "cases")]) == 1
    assert not out.exists()
    err = capsys.readouterr().err
    assert "run it first: " in err, err
    assert f"matrix --reader ccusage --out {out} --cases {tmp_path / 'cases'}" in err, err


def test_the_committed_matrix_re_renders_from_its_committed_data(tmp_path: Path) -> None:
    shutil.copytree(DOCS / "matrix-data", tmp_path / "matrix-data")
    kept = {p.name: p.read_bytes() for p in (tmp_path / "matrix-data").iterdir()}
    assert {f"{a.name}.jsonl" for a in adapters.shipped()} <= set(kept)
    assert main(["matrix", "--no-run", "--out", str(tmp_path), "--cases",
                 str(tmp_path / "no-reports")]) == 0
    for name in ("matrix.md", "matrix.html"):
        assert (tmp_path / name).read_text() == (DOCS / name).read_text(), name
    for badge in (tmp_path / "badges").iterdir():
        assert badge.read_text() == (DOCS / "badges" / badge.name).read_text(), badge.name
    assert {p.name: p.read_bytes() for p in (tmp_path / "matrix-data").iterdir()} == kept


def test_every_committed_row_counts_only_what_its_cases_say(tmp_path: Path) -> None:
    for path in sorted((DOCS / "matrix-data").iterdir()):
        lines = [json.loads(line) for line in path.read_text().splitlines()]
        row = render.row_of_data(lines)
        cases = [line for line in lines if line["kind"] == "case"]
        assert row.total == sum(c["status"] != "skip" for c in cases) > 0, path.name
        assert row.passed + sum(row.causes.values()) == row.total, path.name
        for finding in row.findings:  # each minimal case is committed and replays by name
            assert (adapters.ROOT / "found" / finding["case_id"] / "transcript.jsonl").is_file()
            assert "--corpus implementations/found" in finding["replay"]


def test_a_report_and_the_data_kept_from_it_give_the_same_row() -> None:
    report = [{"kind": "header", "seed": 7, "examples": 3},
              {"kind": "case", "id": "gen-00000", "status": "pass", "seconds": 1.0},
              {"kind": "case", "id": "gen-00001", "status": "skip", "cause": "lost-row"},
              {"kind": "case", "id": "cor-00000", "status": "fail", "cause": "raised",
               "causes": ["raised"], "outcome": {"status": "raised"}},
              {"kind": "finding", "cause": "raised", "seen": 1, "case_id": "diff-x", "lines": 2,
               "difference": {"path": "/", "left": "raised X", "right": "1 rows"},
               "replay": "rechain check --impl 'cmd[name=x]:/abs/py r.py {path}' --corpus "
                         "/abs/found --case diff-x", "comparisons": [{"big": "x" * 500}]}]
    row = render.row_of("x@1", "file-order", report, "x", "implementations/found")
    kept = render.data(row, report[0], report)
    again = render.row_of_data(json.loads(json.dumps(kept)))
    assert (again.passed, again.total, again.skipped, again.causes) == (
        row.passed, row.total, row.skipped, row.causes) == (1, 2, 1, {"raised": 1})
    assert render.page([again], "m") == render.page([row], "m")
    assert render.markdown([again], render.command([kept[0]])) == render.markdown(
        [row], "rechain matrix --seed 7 --examples 3")
    assert "x" * 500 not in json.dumps(kept)  # only what the matrix shows is kept


def test_nothing_to_render_is_a_failure(tmp_path: Path) -> None:
    assert main(["matrix", "--no-run", "--reader", "ccusage", "--out", str(tmp_path),
                 "--cases", str(tmp_path)]) == 1


def row(line: int, role: str, *fragments: str) -> Row:
    return Row(f"u{line}", "message", role, line, None, fragments)


def test_merged_prompts_join_adjacent_prompt_rows_only() -> None:
    rows = (row(2, "user", "caveat"), row(3, "user", "/status"), row(4, "assistant", "hi"),
            row(5, "user", "tool_result:t1"), row(6, "user", "next"), row(8, "user", "later"))
    merged = merged_prompts(rows)
    assert [(r.uuid, r.fragments) for r in merged] == [
        ("u2", ("caveat", "/status")), ("u4", ("hi",)), ("u5", ("tool_result:t1",)),
        ("u6", ("next",)), ("u8", ("later",))]



def test_running_one_reader_keeps_the_other_readers_rows(tmp_path: Path) -> None:
    """``rechain matrix --reader NAME`` re-renders the page with every reader: the others'
    rows come from their kept data, instead of a page of that one reader."""
    shutil.copytree(DOCS / "matrix-data", tmp_path / "matrix-data")
    assert main(["matrix", "--no-run", "--reader", "ccusage", "--out", str(tmp_path),
                 "--cases", str(tmp_path / "no-reports")]) == 0
    assert (tmp_path / "matrix.md").read_text() == (DOCS / "matrix.md").read_text()
