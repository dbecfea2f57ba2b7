"""A CI run's report used on another machine: resumed from a developer's checkout, or
merged with shards that ran in other directories. The run's directory is not there; what
the run was given relative to it is read from where the report is used, and only a
reader, version or option that really differs is refused, saying what differs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.replay_line import ReplayLine

READER = 'RECHAIN_INFO = {"name": "mine", "version": "VERSION"}\n\n' \
         'def read(data):\n    return []\n'
SKIPS = '{"version": 1, "skips": []}'


def _project(folder: Path, version: str = "1") -> Path:
    folder.mkdir(parents=True)
    (folder / "mine.py").write_text(READER.replace("VERSION", version))
    (folder / "known.json").write_text(SKIPS)
    return folder


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_bytes().splitlines()]


def _interrupted(path: Path, keep: int) -> None:
    """The report as a run stopped after ``keep`` cases leaves it (no footer)."""
    lines = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(b"".join(lines[:1 + keep]))


def _cases(lines: list[dict]) -> list[tuple[str, str]]:
    return [(line["id"], line["status"]) for line in lines if line["kind"] == "case"]


RUN = ["check", "--impl", "python:mine.py:read", "--examples", "0", "--case", "cycle-*",
       "--skips", "known.json", "--no-progress"]


def test_a_runner_report_resumes_in_another_checkout(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """As the action runs it: the reader and skip list relative to the checkout, the
    reports absolute in the runner's temporary folder; the artefact downloaded elsewhere."""
    runner = _project(tmp_path / "runner" / "work" / "proj")
    reports = tmp_path / "runner" / "temp" / "reports"
    reports.mkdir(parents=True)
    monkeypatch.chdir(runner)
    whole = main([*RUN, "--report", str(reports / "run.jsonl"),
                  "--markdown", str(reports / "summary.md")])
    assert whole == 1  # the empty reader misses a cycle case
    expected = _cases(_lines(reports / "run.jsonl"))
    _interrupted(reports / "run.jsonl", keep=2)
    artefact = tmp_path / "laptop" / "artefact"
    shutil.copytree(reports, artefact)
    (artefact / "summary.md").unlink()
    checkout = tmp_path / "laptop" / "proj"
    shutil.copytree(runner, checkout)
    shutil.rmtree(tmp_path / "runner")  # the runner is gone: this is another machine
    monkeypatch.chdir(checkout)
    capsys.readouterr()

    code = main(["check", "--resume", "../artefact/run.jsonl", "--no-progress"])
    err = capsys.readouterr().err
    assert code == whole, err
    assert "is not on this machine: reading its relative paths from" in err
    assert _cases(_lines(artefact / "run.jsonl")) == expected  # every case once, same verdicts
    assert (artefact / "summary.md").is_file()  # written beside the report, as on the runner


def test_a_resumed_runner_report_still_refuses_another_reader_or_version(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    runner = _project(tmp_path / "runner")
    monkeypatch.chdir(runner)
    main([*RUN, "--report", "run.jsonl"])
    _interrupted(runner / "run.jsonl", keep=1)
    laptop = tmp_path / "laptop"
    shutil.copytree(runner, laptop)
    shutil.rmtree(runner)
    monkeypatch.chdir(laptop)
    (laptop / "other.py").write_text(READER.replace("VERSION", "1"))
    capsys.readouterr()

    assert main(["check", "--resume", "run.jsonl", "--impl", "python:other.py:read"]) == 2
    err = capsys.readouterr().err
    assert (f"the run used --impl python:mine.py:read (in {laptop}), not "
            f"python:other.py:read (in {laptop}): resume without --impl") in err, err
    assert main(["check", "--resume", "run.jsonl", "--skips", "other.json"]) == 2
    assert "the run used --skips" in capsys.readouterr().err
    (laptop / "mine.py").write_text(READER.replace("VERSION", "2"))
    assert main(["check", "--resume", "run.jsonl", "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "not the readers the run checked: mine@1 is now mine@2" in err, err
    assert "install the version the run checked" in err
    assert len(_lines(laptop / "run.jsonl")) == 2  # nothing appended by a refused run


def test_shards_run_in_other_directories_merge(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Two runners with other workspace paths, the same relative skip list: one run. A
    shard given another skip list is not, and the error names both."""
    shards = tmp_path / "shards"
    shards.mkdir()
    for index, folder in ((1, "a"), (2, "b")):
        project = _project(tmp_path / folder / "proj")
        monkeypatch.chdir(project)
        main([*RUN, "--seed", "7", "--shard", f"{index}/2", "--report", "r.jsonl"])
        shutil.copy(project / "r.jsonl", shards / f"{index}.jsonl")
    other = tmp_path / "c" / "proj"
    _project(other)
    (other / "other.json").write_text(SKIPS)
    monkeypatch.chdir(other)
    main([*RUN[:-3], "--skips", "other.json", "--no-progress", "--seed", "7", "--shard", "2/2",
          "--report", "r.jsonl"])
    newer = _project(tmp_path / "d" / "proj", version="2")
    monkeypatch.chdir(newer)
    main([*RUN, "--seed", "7", "--shard", "2/2", "--report", "r.jsonl"])
    main([*RUN, "--seed", "8", "--shard", "2/2", "--report", "s.jsonl"])
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()

    assert main(["report", "merge", "shards/1.jsonl", "shards/2.jsonl",
                 "--report", "merged.jsonl"]) == 1, capsys.readouterr().err
    assert main(["report", "merge", "shards/1.jsonl", str(other / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert ("--skips differs from shards/1.jsonl's: --skips other.json, not --skips "
            "known.json (paths as read from each shard's directory)") in err, err
    assert main(["report", "merge", "shards/1.jsonl", str(newer / "r.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "implementations differs from shards/1.jsonl's: mine@2, not mine@1" in err, err
    assert "the same readers, at the same versions" in err
    assert main(["report", "merge", "shards/1.jsonl", str(newer / "s.jsonl")]) == 2
    assert ("seed differs from shards/1.jsonl's: 8, not 7: not shards of one run (give every "
            "shard the same --seed") in capsys.readouterr().err


def test_a_merge_in_another_checkout_replays_its_cases_from_there(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Shards ran in runners' workspaces that are gone; the merge runs in a checkout of
    the same project: each failing case's replay names the reader and skip list there
    (it named the runner's workspace, so it ran nowhere)."""
    shards = tmp_path / "shards"
    shards.mkdir()
    for index in (1, 2):
        runner = _project(tmp_path / f"runner{index}" / "proj")
        monkeypatch.chdir(runner)
        main([*RUN, "--seed", "7", "--shard", f"{index}/2", "--report", "r.jsonl"])
        shutil.copy(runner / "r.jsonl", shards / f"{index}.jsonl")
        monkeypatch.chdir(tmp_path)
        shutil.rmtree(runner.parent)
    laptop = _project(tmp_path / "laptop" / "proj")
    monkeypatch.chdir(laptop)
    capsys.readouterr()
    assert main(["report", "merge", str(shards / "1.jsonl"), str(shards / "2.jsonl"),
                 "--report", "merged.jsonl"]) == 1, capsys.readouterr().err
    replays = [line["replay"] for line in _lines(laptop / "merged.jsonl")
               if line["kind"] == "case" and line.get("replay")]
    assert replays, "no failing case carried a replay"
    for replay in replays:
        assert "runner" not in replay, replay
        assert f"python:{laptop / 'mine.py'}:read" in replay, replay
        assert str(laptop / "known.json") in replay, replay
    words = ReplayLine.parse(replays[0])
    assert words is not None and not words.assignments
    assert main(list(words.arguments)) == 1  # it runs here, and the case still fails
