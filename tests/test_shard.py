"""``--shard I/N`` and ``rechain report merge``: a split run merges back into the unsplit one."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance import report, report_html, report_text
from rechain.shard import Shard, parse

READER = textwrap.dedent('''
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "drops", "version": "1"}

    def read(data, session_id, options):
        """Loses the last message of conversations of three or more."""
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:
            raise TypeError(result.error)
        messages = [{k: v for k, v in m.items() if k != "line"} for m in result.messages]
        return messages[:-1] if len(messages) >= 3 else messages
''')
#: a few corpus cases (some long enough to fail) plus generated transcripts
RUN = ("--case", "compaction-*", "--case", "rewind-*", "--examples", "14", "--seed", "11",
       "--no-shrink", "--no-progress", "--against", "reference")
TIMING = {"started", "seconds", "rates", "argv"}


def test_shard_parsing_and_slices_cover_every_position_once() -> None:
    assert parse("2/3") == Shard(2, 3) and str(parse(" 1/1 ")) == "1/1"
    for bad in ("0/3", "4/3", "3", "a/b", "1/0", "-1/2"):
        with pytest.raises(ValueError):
            parse(bad)
    items = list(range(10))
    slices = [[p for p, _ in Shard(i, 3).take(items)] for i in (1, 2, 3)]
    assert sorted(p for s in slices for p in s) == items
    assert [len(s) for s in slices] == [4, 3, 3]


def _check(tmp_path: Path, name: str, *extra: str) -> tuple[int, Path]:
    reader = tmp_path / "drops_reader.py"
    reader.write_text(READER)
    path = tmp_path / f"{name}.jsonl"
    code = main(["check", "--impl", f"python:{reader}:read", *RUN, *extra, "--report", str(path)])
    return code, path


def _merge(tmp_path: Path, name: str, paths: list[Path]) -> tuple[int, list[dict], str]:
    out, html = tmp_path / f"{name}.jsonl", tmp_path / f"{name}.html"
    code = main(["report", "merge", *map(str, paths), "--report", str(out), "--html", str(html),
                 "--badge", str(tmp_path / f"{name}.badge.json")])
    return code, report.read(out), html.read_text()


def _untimed(lines: list[dict]) -> list[dict]:
    return [{k: v for k, v in line.items() if k not in TIMING} for line in lines]


def _fixed_timing(lines: list[dict]) -> list[dict]:
    """The lines with every timing field set to one value, for renderers that show them."""
    fixed = {"started": "2026-01-01T00:00:00+00:00", "seconds": 1.0, "rates": {}, "argv": []}
    return [{k: fixed.get(k, v) if k in TIMING else v for k, v in line.items()}
            for line in lines]


def test_three_shards_merge_into_the_unsplit_run(tmp_path, capsys) -> None:
    whole_code, whole = _check(tmp_path, "whole", "--badge", str(tmp_path / "whole.badge.json"))
    one_code, one = _check(tmp_path, "one", "--shard", "1/1")
    shards = [_check(tmp_path, f"shard{i}", "--shard", f"{i}/3") for i in (1, 2, 3)]
    unsplit = report.read(whole)
    assert whole_code == one_code == 1  # the reader disagrees somewhere: a real exit to match
    assert {code for code, _ in shards} <= {0, 1}
    sizes = [sum(line["kind"] == "case" for line in report.read(p)) for _, p in shards]
    assert min(sizes) > 0 and sum(sizes) == sum(line["kind"] == "case" for line in unsplit)
    capsys.readouterr()

    n1_code, n1, n1_html = _merge(tmp_path, "merged1", [one])
    n1_summary = capsys.readouterr().out
    n3_code, n3, n3_html = _merge(tmp_path, "merged3", [p for _, p in reversed(shards)])
    n3_summary = capsys.readouterr().out

    assert n1_code == n3_code == whole_code
    assert report.problems(n3) == []
    assert _untimed(n3) == _untimed(n1) == _untimed(unsplit)
    assert n3_html == report_html.render(n3) and n1_html == report_html.render(n1)
    assert report_html.render(_fixed_timing(n3)) == report_html.render(_fixed_timing(unsplit))
    assert n3_summary == report_text.terminal(n3) and n1_summary == report_text.terminal(n1)
    assert report_text.terminal(_fixed_timing(n3)) == report_text.terminal(
        _fixed_timing(unsplit))
    assert "disagreements found (exit 1)" in n3_summary
    badges = {name: (tmp_path / f"{name}.badge.json").read_text()
              for name in ("whole", "merged1", "merged3")}
    assert badges["merged3"] == badges["merged1"] == badges["whole"]  # the same share passing
    assert not any(word.startswith("--shard") or "/3" in word for word in n3[0]["argv"])


def test_merge_refuses_incomplete_repeated_or_foreign_shards(tmp_path, capsys) -> None:
    _, first = _check(tmp_path, "a", "--shard", "1/2")
    _, again = _check(tmp_path, "b", "--shard", "1/2")
    _, other_seed = _check(tmp_path, "c", "--shard", "2/2", "--seed", "12")
    assert main(["report", "merge", str(first)]) == 2
    assert "shard 2/2 missing" in capsys.readouterr().err
    assert main(["report", "merge", str(first), str(again)]) == 2
    assert "again" in capsys.readouterr().err
    assert main(["report", "merge", str(first), str(other_seed)]) == 2
    assert "seed differs" in capsys.readouterr().err
    # the same seed, but other cases or other rules: not the unsplit run either
    known = tmp_path / "known.json"
    known.write_text('{"version": 1, "skips": []}')
    for extra, flag in ((["--case", "cycle-*"], "--case"), (["--skips", str(known)], "--skips"),
                        (["--no-skips"], "--no-skips")):
        _, other = _check(tmp_path, f"d{flag}", "--shard", "2/2", *extra)
        capsys.readouterr()
        assert main(["report", "merge", str(first), str(other)]) == 2
        assert f"{flag} differs" in capsys.readouterr().err


def test_a_shard_with_nothing_to_run_is_a_usage_error(tmp_path, capsys) -> None:
    reader = tmp_path / "drops_reader.py"
    reader.write_text(READER)
    code = main(["check", "--impl", f"python:{reader}:read", "--case", "rewind-*",
                 "--examples", "0", "--shard", "40/40", "--no-progress"])
    assert code == 2
    assert "use fewer shards" in capsys.readouterr().err
    assert main(["check", "--shard", "3/2"]) == 2
    assert "between 1 and N" in capsys.readouterr().err


def test_findings_of_one_kind_from_two_shards_become_one() -> None:
    from rechain.conformance.report_merge import merge

    def shard_report(index: int, finding: dict) -> list[dict]:
        head = {"kind": "header", "report_version": 1, "rechain": "0", "protocol": 1,
                "started": f"2026-01-0{index}T00:00:00+00:00", "seed": 1, "examples": 2,
                "implementations": [], "targets": ["t"], "shard": {"index": index, "count": 2}}
        case = {"kind": "case", "seq": index, "id": f"gen-0000{index}", "group": "generated",
                "implementation": "r", "against": "t", "status": "fail"}
        foot = {"kind": "footer", "counts": {}, "rates": {"r": {"calls": 1, "seconds": 0.5}},
                "seconds": float(index), "exit": 1, "interrupted": False}
        return [head, case, {"kind": "finding", "implementation": "r", "against": "t",
                             "signature": ["k"], **finding}, foot]

    big = {"seen": 3, "case_id": "big", "lines": 9, "replay": "x"}
    small = {"seen": 2, "case_id": "small", "lines": 2, "replay": "y"}
    merged = merge([shard_report(2, big), shard_report(1, small)], ["b", "a"])
    [finding] = [line for line in merged if line["kind"] == "finding"]
    assert (finding["case_id"], finding["seen"]) == ("small", 5)
    assert [line["seq"] for line in merged if line["kind"] == "case"] == [1, 2]
    assert merged[0]["started"].startswith("2026-01-01") and "shard" not in merged[0]
    foot = merged[-1]
    assert foot["exit"] == 1 and foot["seconds"] == 2.0
    assert foot["rates"]["r"]["calls"] == 2 and foot["counts"] == {"r": {"t": {"fail": 2}}}


def test_the_merged_summary_names_the_merged_files_not_a_shards(tmp_path, capsys) -> None:
    """Each shard's summary points at its own report; the merge's at what the merge wrote."""
    shards = [_check(tmp_path, f"part{i}", "--shard", f"{i}/2", "--html",
                     str(tmp_path / f"part{i}.html"))[1] for i in (1, 2)]
    merged = tmp_path / "merged"
    merged.mkdir()
    summary = merged / "summary.md"
    code = main(["report", "merge", *map(str, shards), "--report", str(merged / "all.jsonl"),
                 "--html", str(merged / "all.html"), "--markdown", str(summary)])
    assert code == 1
    text = summary.read_text()
    full = next(line for line in text.splitlines() if line.startswith("Full report:"))
    assert str(merged / "all.jsonl") in full and str(merged / "all.html") in full
    assert "part1" not in text
    assert "part1" not in capsys.readouterr().out


def test_merged_findings_point_at_the_cases_where_the_merge_finds_them(tmp_path, capsys) -> None:
    """Each shard saves its shrunk cases beside its report; the merge job downloads the
    folders elsewhere: the merged replay names the downloaded cases, and runs as printed."""
    reader = tmp_path / "drops_reader.py"
    reader.write_text(READER)
    runner, downloaded = tmp_path / "runner", tmp_path / "downloaded"
    downloaded.mkdir()
    for i in (1, 2):
        folder = runner / f"shard{i}"
        folder.mkdir(parents=True)
        main(["check", "--impl", f"python:{reader}:read", "--against", "reference",
              "--no-corpus", "--examples", "14", "--seed", "11", "--no-progress",
              "--max-shrink", "1", "--shard", f"{i}/2", "--report", str(folder / "report.jsonl"),
              "--save-cases", str(folder / "cases")])
        folder.rename(downloaded / f"rechain-report-{i}")
    capsys.readouterr()
    merged = tmp_path / "merged.jsonl"
    main(["report", "merge", *(str(downloaded / f"rechain-report-{i}" / "report.jsonl")
                               for i in (1, 2)), "--report", str(merged)])
    findings = [line for line in report.read(merged) if line["kind"] == "finding"]
    assert findings, "no shard shrank a disagreement"
    for finding in findings:
        assert Path(finding["path"]).is_dir() and str(downloaded) in finding["path"]
        corpus = finding["replay"].split("--corpus ", 1)[1].split(" ", 1)[0]
        assert Path(corpus, finding["case_id"]).is_dir()
