"""One tokenised form of a printed replay: the rewrites change words, never substrings."""

from __future__ import annotations

import shlex

from rechain.conformance.matrix import render
from rechain.conformance.replay_line import ReplayLine


def test_a_line_splits_into_assignments_program_and_check_on() -> None:
    line = ReplayLine.parse("A=1 B='x y' /opt/my\\ env/bin/python -m rechain check --case c")
    assert line == ReplayLine(("A=1", "B=x y"), ("/opt/my env/bin/python", "-m", "rechain"),
                              ("check", "--case", "c"))
    assert shlex.split(str(line)) == shlex.split(
        "A=1 B='x y' /opt/my\\ env/bin/python -m rechain check --case c")


def test_a_line_without_check_or_with_an_open_quote_is_left_alone() -> None:
    assert ReplayLine.parse("rechain fuzz run x") is None
    assert ReplayLine.parse("rechain check --corpus 'open") is None
    assert render.portable("rechain check --corpus 'open", "x", "cases") == \
        "rechain check --corpus 'open"


def test_an_option_is_rewritten_in_either_form_and_only_as_a_whole_word() -> None:
    line = ReplayLine.parse("rechain check --corpus /w/cases --impl=cmd:/a --impl cmd:/b "
                            "--case /w/cases-2")
    assert line is not None and line.option("--corpus") == "/w/cases"
    assert line.option("--impl") == "cmd:/a"
    moved = line.with_option("--corpus", "/here/my cases").with_option("--impl", "adapter:r")
    assert shlex.split(str(moved))[2:] == ["--corpus", "/here/my cases", "--impl=adapter:r",
                                           "--impl", "adapter:r", "--case", "/w/cases-2"]


def test_a_quoted_cases_folder_is_pointed_here_like_any_other(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "my cases").mkdir()
    row = render.Row("r", "contract", 0, 1, {}, (
        {"replay": "rechain check --corpus 'my cases' --case c"},), 0)
    local = render.here(row, "/x/bin/python -m rechain", tmp_path)
    assert shlex.split(local.findings[0]["replay"]) == [
        "/x/bin/python", "-m", "rechain", "check", "--corpus", str(tmp_path / "my cases"),
        "--case", "c"]
