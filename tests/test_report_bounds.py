"""A run report stays small whatever a reader answers: 10,000 messages, a uuid of a million
characters, a value nested hundreds of levels deep. Each line keeps what a person needs (the
difference where it lies, the explanation, the replay command) within ``LINE_LIMIT``, says
what it left out, and ``report merge`` and ``--resume`` read the bounded lines back."""

from __future__ import annotations

import json
import shlex
import textwrap
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance import report
from rechain.conformance.compare import MISSING, Difference, judge
from rechain.conformance.protocol import Answered, Crashed, outcome_to_json
from rechain.conformance.report_bounds import (
    LINE_LIMIT,
    TEXT_KEPT,
    clip,
    clip_start,
    head,
    parted,
    shorten,
)

READER = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "runaway", "version": "1"}


    def _right(data, options):
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:
            raise TypeError(result.error)
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]


    def many(data, session_id, options):
        """The right messages, then 10,000 more, the first with a uuid of a million
        characters."""
        extra = [{"type": "user", "uuid": f"extra-{i:05d}",
                  "message": {"role": "user", "content": "x"}} for i in range(10_000)]
        extra[0]["uuid"] = "u" * 1_000_000
        return _right(data, options) + extra


    def bloated(data, session_id, options):
        """The right rows; the first message's content a million characters, a list of
        100,000 numbers under a key of 100,000 characters, and 300 levels of nesting."""
        messages = _right(data, options)
        deep = "bottom"
        for _ in range(300):
            deep = [deep]
        if messages:
            messages[0] = {**messages[0], "message": {
                "content": "c" * 1_000_000, "deep": deep, "k" * 100_000: list(range(100_000))}}
        return messages
''')
RUN = ("--case", "compaction-plain", "--case", "compaction-twice", "--examples", "2",
       "--seed", "3", "--against", "reference", "--max-shrink", "1", "--no-progress")


def _deep(levels: int) -> object:
    value: object = "bottom"
    for _ in range(levels):
        value = [value]
    return value


def test_a_long_string_keeps_its_start_and_says_how_much_is_left_out() -> None:
    text = "a" * 10_000
    assert clip(text) == "a" * TEXT_KEPT + "… (9700 more characters)"
    assert clip("short") == "short"
    assert clip("a" * (TEXT_KEPT + 5)) == "a" * (TEXT_KEPT + 5)  # no marker longer than the cut
    assert clip_start("x" * 5000 + "the end", 7) == "(5000 earlier characters) …the end"


def test_a_long_list_keeps_its_head_and_counts_the_rest() -> None:
    assert head(list(range(50_000)), 3) == [0, 1, 2, "… (49997 more items)"]
    assert head([1, 2, 3, 4], 3) == [1, 2, 3, 4]


def test_a_value_keeps_its_shape_within_its_budget_at_any_depth() -> None:
    value = {"content": "c" * 1_000_000, "k" * 5000: list(range(100_000)), "deep": _deep(50_000)}
    shown = shorten(value)
    text = json.dumps(shown)
    assert len(text) < 3000
    assert "(999700 more characters)" in shown["content"]
    assert any("more items" in str(item) for item in shown["k" * TEXT_KEPT + "… (4700 more "
                                                         "characters)"])
    assert "a list of 1 item" in text  # the nesting below the kept levels, summarised
    assert shorten({"a": [1, {"b": None}]}) == {"a": [1, {"b": None}]}


def test_two_long_strings_are_shown_where_they_part() -> None:
    left, right = "x" * 5000 + "LEFT" + "y" * 5000, "x" * 5000 + "RIGHT"
    mine, theirs = parted(left, right)
    assert mine.startswith("(4960 earlier characters) …") and "LEFT" in mine
    assert theirs.endswith("RIGHT") and len(mine) < TEXT_KEPT + 100
    assert parted("abc", "abd") == ("abc", "abd")


def test_the_verdict_is_reached_on_the_whole_values() -> None:
    """Two answers alike in everything a report shows differ past it: still a failure."""
    same = "u" * 1_000_000
    got = Answered(({"type": "user", "uuid": same + "a"},))
    expected = Answered(({"type": "user", "uuid": same + "b"},))
    verdict = judge(got, expected)
    assert verdict.status == "fail" and verdict.difference is not None
    shown = verdict.difference.to_json()
    assert shown["left"].endswith("a") and shown["right"].endswith("b")
    assert "(999960 earlier characters)" in shown["left"]
    assert Difference("/x", MISSING, 1).to_json()["left"] == {"$missing": True}


def test_an_outcome_lists_the_first_uuids_each_clipped_and_the_count() -> None:
    answer = Answered(tuple({"uuid": "u" * 1_000_000 if i == 0 else str(i)}
                            for i in range(50_000)))
    shown = outcome_to_json(answer)
    assert shown["count"] == 50_000 and shown["uuids"][-1] == "… (49980 more items)"
    assert shown["uuids"][0].endswith("(999700 more characters)")
    assert len(json.dumps(shown)) < 2000
    crashed = outcome_to_json(Crashed("died", stderr="noise\n" * 100_000 + "MemoryError"))
    assert crashed["stderr"].startswith("(") and crashed["stderr"].endswith("MemoryError")


@pytest.mark.parametrize("function", ["many", "bloated"])
def test_every_line_of_a_runaway_reader_s_report_stays_bounded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], function: str) -> None:
    (tmp_path / "runaway.py").write_text(READER)
    path, html, junit = tmp_path / "run.jsonl", tmp_path / "run.html", tmp_path / "run.xml"
    code = main(["check", "--impl", f"python:{tmp_path / 'runaway.py'}:{function}", *RUN,
                 "--report", str(path), "--html", str(html), "--junit", str(junit),
                 "--save-cases", str(tmp_path / "cases")])
    out = capsys.readouterr().out
    assert code == 1
    raw = path.read_bytes().splitlines()
    lines = report.read(path)
    assert report.problems(lines) == []
    assert max(len(line) for line in raw) <= LINE_LIMIT
    cases = [line for line in lines if line["kind"] == "case"]
    assert {line["status"] for line in cases} == {"fail"}
    findings = [line for line in lines if line["kind"] == "finding"]
    assert findings, "the disagreement was shrunk"
    text = path.read_text()
    if function == "many":
        assert all(line["outcome"]["count"] > 10_000 for line in cases)
        assert "more items)" in text and "(999" in text  # the uuids' list, the long uuid
        assert any("more rows" in str(row.get("got")) for line in cases
                   for row in line["explanation"]["rows"])
    else:
        assert "(999700 more characters)" in text and "more items)" in text
    # what renders from the lines stays small too
    assert len(out) < 100_000 and html.stat().st_size < 500_000
    assert junit.stat().st_size < 500_000
    # the shrunk case replays: its file holds the input, the reader answers again; what the
    # reader answered is abbreviated in the file's provenance as in the report
    written = list((tmp_path / "cases").glob("*/case.json"))
    assert written and all(case.stat().st_size <= LINE_LIMIT for case in written)
    replay = shlex.split(findings[0]["replay"])  # rechain, its script or python -m rechain
    assert main([*replay[replay.index("check"):], "--no-progress"]) == 1


def test_merge_and_resume_read_a_runaway_reader_s_bounded_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runaway.py").write_text(READER)
    reader = f"python:{tmp_path / 'runaway.py'}:many"
    shards = []
    for index in (1, 2):
        shard = tmp_path / f"shard{index}.jsonl"
        main(["check", "--impl", reader, *RUN, "--no-shrink", "--shard", f"{index}/2",
              "--report", str(shard)])
        shards.append(shard)
    merged = tmp_path / "merged.jsonl"
    assert main(["report", "merge", *map(str, shards), "--report", str(merged),
                 "--html", str(tmp_path / "merged.html")]) == 1
    lines = report.read(merged)
    assert report.problems(lines) == []
    assert max(len(line) for line in merged.read_bytes().splitlines()) <= LINE_LIMIT
    every = sorted(line["id"] for shard in shards for line in report.read(shard)
                   if line["kind"] == "case")
    assert sorted(line["id"] for line in lines if line["kind"] == "case") == every

    # a run killed after its first case line: --resume runs the rest from the bounded lines
    whole = tmp_path / "whole.jsonl"
    main(["check", "--impl", reader, *RUN, "--no-shrink", "--report", str(whole)])
    kept = whole.read_bytes().splitlines(keepends=True)[:2]
    whole.write_bytes(b"".join(kept))
    assert main(["check", "--resume", str(whole)]) == 1
    resumed = report.read(whole)
    assert report.problems(resumed) == []
    assert sorted(line["id"] for line in resumed if line["kind"] == "case") == every
    assert max(len(line) for line in whole.read_bytes().splitlines()) <= LINE_LIMIT
    capsys.readouterr()


def test_smoke_says_what_a_runaway_reader_answered_in_a_few_lines(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "runaway.py").write_text(READER)
    assert main(["smoke", "--impl", f"python:{tmp_path / 'runaway.py'}:many"]) == 1
    out = capsys.readouterr().out
    assert "FAIL" in out and "more items)" in out and "more characters)" in out
    assert len(out) < 50_000


def test_a_reader_declaring_a_runaway_version_keeps_every_line_bounded(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The label names the reader on every line; the header keeps what it declared, both
    abbreviated when they run away."""
    (tmp_path / "vain.py").write_text(READER.replace('"version": "1"', '"version": "v" * 10**6'))
    path = tmp_path / "run.jsonl"
    assert main(["check", "--impl", f"python:{tmp_path / 'vain.py'}:many", *RUN, "--no-shrink",
                 "--report", str(path)]) == 1
    assert max(len(line) for line in path.read_bytes().splitlines()) <= LINE_LIMIT
    lines = report.read(path)
    assert report.problems(lines) == []
    assert lines[1]["implementation"].startswith("runaway@vvv")
    assert "more characters)" in lines[1]["implementation"]
    assert len(capsys.readouterr().out) < 100_000
