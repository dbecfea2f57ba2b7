"""Options are honoured or refused, never silently ignored: views as text, paging, outcomes.

``rebuild --view V --format text`` prints text for every view a profile offers,
a negative page is a usage error, and ``smoke`` says what a reader did in words.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_run import run
from transcript_rows import assistant, jsonl, result, tool_use, user

from rechain import viewtext
from rechain.conformance.outcome_text import sentence
from rechain.conformance.protocol import Answered, Crashed, Raised, Skipped, TimedOut
from rechain.reference import get_profile

SID = "0b0e4b1c-7f4e-4d53-9a43-8f1f5c4b3c2a"
VIEWS = sorted({(name, view) for name in ("sdk", "cli", "seed")
                for view in get_profile(name).views})


@pytest.fixture
def transcript(tmp_path: Path) -> Path:
    path = tmp_path / f"{SID}.jsonl"
    path.write_bytes(jsonl(
        user("u1", None, "read the file", sessionId=SID),
        assistant("a1", "u1", mid="m1", blocks=[tool_use("t1")], sessionId=SID),
        result("r1", "a1", "t1", sessionId=SID),
        assistant("a2", "r1", mid="m2", sessionId=SID),
    ))
    return path


def test_every_view_of_every_profile_is_covered() -> None:
    assert {view for _, view in VIEWS} <= set(viewtext.RENDERERS)
    assert {view for _, view in VIEWS} >= {"chain", "api", "state"}


@pytest.mark.parametrize(("profile", "view"), VIEWS)
def test_a_view_as_text_is_text_and_shows_the_view(
    capsys: pytest.CaptureFixture[str], transcript: Path, profile: str, view: str
) -> None:
    code, out, err = run(capsys, "rebuild", str(transcript), "--profile", profile,
                         "--view", view, "--format", "text")
    assert (code, err) == (0, "")
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)
    assert out.startswith(f"view {view} · profile ")
    _, as_json, _ = run(capsys, "rebuild", str(transcript), "--profile", profile,
                        "--view", view)
    shown = json.loads(as_json)
    if view == "chain":
        uuids = [e["uuid"] if isinstance(e, dict) else e for e in shown["chain"]]
        assert uuids and all(uuid in out for uuid in uuids)
    if view == "api":
        assert out.count("── user") + out.count("── assistant") == len(shown["messages"])
        assert "→ Read [t1]" in out
    if view == "state":
        assert all(key in out for key in shown["state"])


def test_a_view_without_a_text_rendering_is_refused(
    capsys: pytest.CaptureFixture[str], transcript: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(viewtext, "RENDERERS", {})
    code, out, err = run(capsys, "rebuild", str(transcript), "--profile", "cli",
                         "--view", "chain", "--format", "text")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "no text rendering" in err


@pytest.mark.parametrize("paging", [["--limit", "-1"], ["--offset", "-5"]])
def test_a_negative_page_is_refused(
    capsys: pytest.CaptureFixture[str], transcript: Path, paging: list[str]
) -> None:
    code, out, err = run(capsys, "rebuild", str(transcript), *paging)
    assert code == 2 and out == ""
    assert err == "rechain: error: --limit and --offset must not be negative\n"


@pytest.mark.parametrize("outcome", [
    Answered(({"uuid": "u1"},), leaf="u1"),
    Raised("ValueError", "bad input"),
    Skipped("no such view", "https://example.invalid/1"),
    Crashed("exit 3", stderr="boom\nlast words\n"),
    Crashed("it said so", caught=True),
    TimedOut(2.5),
], ids=lambda o: f"{type(o).__name__}{getattr(o, 'caught', '')}")
def test_every_outcome_reads_as_a_sentence(outcome: object) -> None:
    said = sentence(outcome)  # type: ignore[arg-type]
    assert type(outcome).__name__ not in said and "=" not in said
    expected = {Answered: "1 message, resumed from u1", Raised: "raised ValueError: bad input",
                Skipped: "skipped the case: no such view", TimedOut: "within 2.5 s"}
    if isinstance(outcome, Crashed):
        assert ("reported an error" if outcome.caught else "crashed: exit 3") in said
        assert outcome.caught or "last words" in said
    else:
        assert expected[type(outcome)] in said


def test_smoke_says_what_a_failing_reader_did(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "refusing.py").write_text(
        "def read(data, session_id, options):\n    raise ValueError('no thanks')\n")
    monkeypatch.chdir(tmp_path)
    code, out, _ = run(capsys, "smoke", "--impl", "python:refusing.py:read")
    assert code == 1
    assert "expected messages, but it raised ValueError: no thanks" in out
    assert "{" not in out and "Raised(" not in out


def test_a_harness_that_dies_at_start_is_one_sentence(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "smoke", "--impl", "harness:false")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "the harness crashed" in err and "Crashed(" not in err


@pytest.mark.parametrize("option", ["--report", "--write-skips", "--markdown", "--html",
                                    "--junit", "--sarif", "--badge"])
@pytest.mark.parametrize(("where", "why"), [("missing/out", "no directory"),
                                            (".", "is a directory, not a file")])
def test_an_output_that_cannot_be_written_is_refused_before_the_run(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    option: str, where: str, why: str
) -> None:
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "check", "--impl", "reference", "--no-corpus", "--examples",
                         "2", "--no-progress", option, where)
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith(f"rechain: error: {option} {where}: {why}")


def test_merging_into_an_output_that_cannot_be_written_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    shard = tmp_path / "shard.jsonl"
    assert run(capsys, "check", "--impl", "reference", "--no-corpus", "--examples", "2",
               "--no-progress", "--shard", "1/1", "--report", str(shard))[0] == 0
    code, out, err = run(capsys, "report", "merge", str(shard), "--html", str(tmp_path))
    assert code == 2 and out == ""
    assert err.strip() == f"rechain: error: --html {tmp_path}: is a directory, not a file"


@pytest.mark.parametrize(("argv", "message"), [
    (["fuzz", "--target", "reader:read", "--runs", "5", "--sarif", "missing/s.sarif"],
     "--sarif missing/s.sarif: no directory "),
    (["fuzz", "--target", "reader:read", "--runs", "5", "--work", "a-file"],
     "--work a-file: is a file, not a directory"),
    (["fuzz", "--target", "reader:read", "--runs", "5", "--work", "a-file/work"],
     "--work a-file/work: "),
    (["fuzz", "--bench", "--time", "1", "--work", "a-file", "parse-line"],
     "--work a-file: is a file, not a directory"),
    (["drift", "agent-sdk-ts", "--from", "0.3.332", "--to", "0.3.333", "--out", "a-file"],
     "--out a-file: is a file, not a directory"),
    (["matrix", "--no-run", "--out", "a-file"], "--out a-file: is a file, not a directory"),
    (["check", "--examples", "2", "--no-corpus", "--save-cases", "a-file"],
     "--save-cases a-file: is a file, not a directory"),
    (["bench", "load", "--size-mb", "1", "--keep", "missing/k.jsonl"],
     "--keep missing/k.jsonl: no directory "),
    (["corpus", "anonymise", "a-file", "a-file", "--id", "x-y", "--source", "hand-written",
      "--tag", "basic"], "OUT_DIR a-file: is a file, not a directory"),
])
def test_an_output_folder_or_file_that_cannot_be_made_is_refused_first(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    argv: list[str], message: str
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "a-file").write_text("")
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    [line] = err.strip().splitlines()
    assert line.startswith(f"rechain: error: {message}")


@pytest.mark.parametrize(("options", "message"), [
    (["--time", "-1"], "--time (or RECHAIN_FUZZ_SECONDS) -1: must be a number of seconds, not"),
    # a time that is not a number of seconds was a traceback (NaN, infinity to integer)
    (["--time", "nan"], "--time (or RECHAIN_FUZZ_SECONDS) nan: must be a number of seconds"),
    (["--time", "inf", "--runs", "5"], "--time (or RECHAIN_FUZZ_SECONDS) inf: must be a number"),
    (["--time", "0", "--shrink-seconds", "-1"], "--shrink-seconds -1: must be a positive"),
    (["--time", "0", "--shrink-seconds", "nan"], "--shrink-seconds nan: must be a positive"),
    # libFuzzer's -timeout=99999999999 left a worker that never ended
    (["--time", "0", "--timeout", "99999999999"], "--timeout 99999999999: at most 86400"),
    (["--time", "0", "--max-len", "99999999999"], "--max-len 99999999999: at most"),
    (["--time", "0", "--jobs", "0"], "--jobs 0: must be at least 1"),
    (["--time", "0", "--timeout", "0", "--rss-mb", "-3"],
     "--timeout 0, --rss-mb -3: must be at least 1"),
    (["--time", "0", "--max-len", "0"], "--max-len 0: must be at least 1"),
])
def test_a_fuzz_bound_that_cannot_run_anything_is_refused(
    capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    code, out, err = run(capsys, "fuzz", "parse-line", *options)
    assert code == 2 and out == ""
    assert err.startswith(f"rechain: error: {message}") and len(err.splitlines()) == 1


@pytest.mark.parametrize(("options", "said"), [
    (["--memory-mb", "0"], "--memory-mb 0 must be positive"),
    (["--memory-mb", "-5"], "--memory-mb -5 must be positive"),
    (["--invariant-every", "-1"], "--invariant-every -1 must be 0 or more (0 turns it off)"),
    (["--examples", "-5"], "--examples -5 must be 0 or more"),
    (["--jobs", "0", "--timeout", "-1"],
     "--jobs 0 must be positive; --timeout -1 must be positive"),
])
def test_a_check_bound_that_means_nothing_is_refused_naming_it(
    capsys: pytest.CaptureFixture[str], options: list[str], said: str
) -> None:
    code, out, err = run(capsys, "check", "--examples", "0", "--case", "cycle-full", *options)
    assert code == 2 and out == ""
    assert err.strip() == f"rechain: error: {said}"


def test_a_resumed_run_keeps_its_readers_and_profile(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Other readers or another profile would append another run's verdicts to the report;
    the same reader, spelled as the run spelled it, is fine."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("def read(data):\n    return []\n")
    argv = ["check", "--impl", "python:mine.py:read", "--examples", "0", "--case", "cycle-full",
            "--no-progress", "--report", "run.jsonl"]
    first = run(capsys, *argv)[0]
    for given, message in [(["--impl", "reference"], "the run used --impl python:"),
                           (["--against", "agent-sdk-py"], "the run had no --against, not "
                                                           "agent-sdk-py"),
                           (["--profile", "cli"], "the run used --profile agent-sdk@0.3.332, "
                                                  "not claude-code@2.1.332")]:
        code, out, err = run(capsys, "check", "--resume", "run.jsonl", *given)
        assert code == 2 and out == "", given
        assert message in err and "start a new run to change it" in err, err
    code, _, err = run(capsys, "check", "--resume", "run.jsonl", "--impl", "python:mine.py:read",
                       "--profile", "agent-sdk", "--no-progress")
    assert code == first, err


def test_a_resumed_run_keeps_its_cases_and_the_rules_that_judge_them(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another shard, a selection or another skip list would append another run's cases, or
    verdicts by other rules, to a report whose footer then counts them as one run."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "mine.py").write_text("def read(data):\n    return []\n")
    (tmp_path / "known.json").write_text('{"version": 1, "skips": []}')
    argv = ["check", "--impl", "python:mine.py:read", "--examples", "0", "--case", "cycle-*",
            "--shard", "1/2", "--no-progress", "--report", "run.jsonl"]
    first = run(capsys, *argv)[0]
    for given, message in [(["--shard", "2/2"], "the run used --shard 1/2, not --shard 2/2"),
                           (["--case", "basic-*"], "the run used --case cycle-*, not --case "
                                                   "basic-*"),
                           (["--skips", "known.json"], "the run had no --skips, not --skips "),
                           (["--no-corpus"], "the run had no --no-corpus")]:
        code, out, err = run(capsys, "check", "--resume", "run.jsonl", *given)
        assert code == 2 and out == "", given
        assert message in err and "start a new run to change it" in err, err
    code, _, err = run(capsys, "check", "--resume", "run.jsonl", "--shard", "1/2", "--jobs",
                       "2", "--no-progress")
    assert code == first, err


@pytest.mark.parametrize(("root", "message"), [("missing", "missing: not a directory"),
                                               ("empty", "no cases under empty")])
def test_recording_a_corpus_that_is_not_there_is_refused(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    root: str, message: str
) -> None:
    """A mistyped ``--root`` recorded nothing and said "all expectations up to date"."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "empty").mkdir()
    code, out, err = run(capsys, "corpus", "record", "--root", root)
    assert code == 2 and out == ""
    assert err.strip() == f"rechain: error: {message}"


def test_a_view_of_one_row_counts_it_as_written(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """'1 entry on the chain', not '1 entries'."""
    path = tmp_path / "one.jsonl"
    path.write_bytes(jsonl(user("u1", None, "hi")))
    _, chain, _ = run(capsys, "rebuild", str(path), "--profile", "cli", "--view", "chain",
                      "--format", "text")
    assert "\n1 entry on the chain, root first\n" in chain


def test_benching_an_unknown_fuzz_target_is_one_line(
    capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run(capsys, "fuzz", "--bench", "no-such-harness", "--time", "1")
    assert code == 2 and out == ""
    assert err.startswith("rechain: error: unknown target 'no-such-harness'")
    assert len(err.splitlines()) == 1
