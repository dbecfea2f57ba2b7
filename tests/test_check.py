"""``rechain check`` end to end, with deliberately wrong fake readers (tier 0 modules)."""

from __future__ import annotations

import importlib.util
import json
import shlex
import sys
import textwrap
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance import report
from rechain.corpus.lint import lint_cases

FAUX = textwrap.dedent('''
    """Fake readers, each wrong in one way (or not at all)."""
    from rechain.reference import Options, rebuild

    RECHAIN_INFO = {"name": "faux", "version": "1", "options": ["include_system_messages",
                    "limit", "offset"]}

    def _right(data, session_id, options):
        result = rebuild(data, "sdk", Options(**options))
        if result.error is not None:  # the reader it copies threw
            raise TypeError(result.error)
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]

    def right(data, session_id, options):
        """Agrees with the reference everywhere."""
        return _right(data, session_id, options)

    def empty(data, session_id, options):
        """Never finds a conversation."""
        return []

    CALLS = {"n": 0}

    def flaky(data, session_id, options):
        """Loses the last message on its very first call only."""
        CALLS["n"] += 1
        messages = _right(data, session_id, options)
        return messages[:-1] if CALLS["n"] == 1 else messages

    def ignores_offset(data, session_id, options):
        """Pages from the first message whatever the offset."""
        return _right(data, session_id, {**options, "offset": 0})

    def drops_last(data, session_id, options):
        """Loses the last message of conversations of three or more."""
        messages = _right(data, session_id, options)
        return messages[:-1] if len(messages) >= 3 else messages
''')

STRATEGIES = (importlib.util.find_spec("rechain.strategies") is not None)
needs_strategies = pytest.mark.skipif(not STRATEGIES, reason="rechain.strategies not importable")


@pytest.fixture
def faux(tmp_path: Path) -> str:
    path = tmp_path / "faux_readers.py"
    path.write_text(FAUX)
    return f"python:{path}"


def check(*argv: str) -> int:
    return main(["check", "--no-progress", *argv])


def test_the_reference_agrees_with_the_corpus(capsys):
    assert check("--examples", "0") == 0
    out = capsys.readouterr().out
    assert "agent-sdk-ts@0.3.332" in out and "(exit 0)" in out


def test_a_wrong_reader_fails_and_the_report_says_where(faux, tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:empty", "--examples", "0", "--report", str(path)) == 1
    lines = report.read(path)
    assert report.problems(lines) == []
    counts = lines[-1]["counts"]["faux@1"]["agent-sdk-ts@0.3.332"]
    assert counts["fail"] > 50
    failing = next(line for line in lines if line.get("status") == "fail")
    assert failing["difference"]["path"] == "/messages/0/uuid"
    assert failing["difference"]["left"] == {"$missing": True}
    assert "disagreements found (exit 1)" in capsys.readouterr().out


def test_a_right_reader_passes_against_the_reference(faux):
    assert check("--impl", f"{faux}:right", "--against", "reference", "--examples", "0",
                 "--jobs", "2") == 0


def test_a_recorded_failure_is_expected_from_the_reader(faux, tmp_path):
    """The TS SDK threw on this case: answering [] fails, the reference's error passes."""
    case = ("--case", "compaction-preserved-messages-not-a-list", "--examples", "0")
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:empty", *case, "--report", str(path)) == 1
    failing = [line for line in report.read(path) if line.get("status") == "fail"]
    assert len(failing) == 1
    assert "compaction-preserved-messages-not-a-list" in json.dumps(failing[0])
    assert check(*case) == 0


def test_the_skip_list_is_strict(faux, tmp_path, capsys):
    skips = tmp_path / "skips.json"
    skips.write_text(json.dumps({"version": 1, "skips": [
        {"implementation": "faux@*", "cases": ["*"], "reason": "known", "link": "#x"}]}))
    assert check("--impl", f"{faux}:empty", "--examples", "0", "--skips", str(skips)) == 1
    out = capsys.readouterr().out
    assert "skipped case now passes" in out  # empty files: [] is right, the skip is stale
    line = next(row for row in out.splitlines() if row.startswith("faux@1"))
    assert int(line.split()[-1]) > 50  # the real failures became skips


def test_a_skip_entry_naming_no_case_of_the_corpus_is_reported(faux, tmp_path, capsys,
                                                               monkeypatch):
    """A typo'd case id can never fail, so the strict list would keep it unseen: the run
    says so (a GitHub warning in Actions), whatever --case selects; entries about another
    reader, or ids that do match, are not reported."""
    skips = tmp_path / "skips.json"
    skips.write_text(json.dumps({"version": 1, "skips": [
        {"implementation": "faux@*", "cases": ["cycle-ful"], "reason": "typo", "link": "#1"},
        {"implementation": "faux@*", "cases": ["options-*"], "reason": "real", "link": "#2"},
        {"implementation": "other@*", "cases": ["no-such-case"], "reason": "n", "link": "#3"},
    ]}))
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    check("--impl", f"{faux}:right", "--examples", "0", "--case", "cycle-*", "--skips",
          str(skips))
    captured = capsys.readouterr()
    assert f"{skips}: skips[0] lists case 'cycle-ful', which matches no corpus case" in (
        captured.err)
    assert "skips[1]" not in captured.err and "skips[2]" not in captured.err
    # outside any repository: GitHub could link nothing, so no file is named
    assert "::warning title=rechain%3A stale skip::" in captured.out
    (tmp_path / ".git").mkdir()  # in a checkout: the list named from its root, however given
    (tmp_path / "sub").mkdir()
    monkeypatch.chdir(tmp_path / "sub")
    check("--impl", f"{faux}:right", "--examples", "0", "--case", "cycle-*", "--skips",
          str(skips))
    assert "::warning file=skips.json,title=rechain%3A stale skip::" in capsys.readouterr().out


def test_a_skip_list_for_another_version_of_the_reader_is_reported(faux, tmp_path, capsys):
    """--write-skips writes the exact version: after a release of the reader the entry
    covers nothing and its known failures count as new; the run says why."""
    skips = tmp_path / "skips.json"
    skips.write_text(json.dumps({"version": 1, "skips": [
        {"implementation": "faux@0.9", "cases": ["cycle-*"], "reason": "old", "link": "#1"},
        {"implementation": "faux@*", "cases": ["options-*"], "reason": "any", "link": "#2"},
    ]}))
    check("--impl", f"{faux}:right", "--examples", "0", "--no-corpus", "--skips", str(skips))
    err = capsys.readouterr().err
    assert f"{skips}: skips[0] is for faux@0.9, not faux@1 that this run checks" in err
    assert "write faux@* to keep it" in err and "skips[1]" not in err


def test_a_paging_bug_is_explained_as_paging(faux, tmp_path):
    """The explanation reads the transcript with the case's own limit and offset: a reader
    that ignores the offset shows rows outside the page, not another leaf."""
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:ignores_offset", "--examples", "0", "--case",
                 "options-paging*", "--report", str(path)) == 1
    failing = [line for line in report.read(path) if line.get("status") == "fail"]
    assert failing and all("offset=" in line["id"] for line in failing)
    assert {line["explanation"]["behaviour"] for line in failing} == {"paging"}, [
        line["explanation"]["sentence"] for line in failing]


def test_a_broken_skip_list_is_a_usage_error(tmp_path, capsys):
    skips = tmp_path / "skips.json"
    skips.write_text(json.dumps({"version": 1, "skips": [{"implementation": "x"}]}))
    assert check("--examples", "0", "--skips", str(skips)) == 2
    assert "needs a non-empty string 'reason'" in capsys.readouterr().err


@pytest.mark.parametrize("argv", [
    ["--impl", "nonsense"],
    ["--corpus", "/no/such/dir"],
    ["--case", "no-such-case-*"],
    ["--jobs", "0"],
])
def test_usage_errors_exit_2(argv):
    assert check(*argv, "--examples", "0") == 2


def test_markdown_and_html_outputs(faux, tmp_path, capsys):
    html = tmp_path / "m.html"
    assert check("--impl", f"{faux}:empty", "--examples", "0", "--case", "cycle-*",
                 "--markdown", "-", "--html", str(html)) == 1
    out = capsys.readouterr().out
    assert "### rechain check: ❌ disagreements" in out
    assert "why: " in out and "input (" in out  # the Markdown explains a failure
    page = html.read_text()
    assert "faux@1" in page and '<span class="status fail">fail</span>' in page
    assert '<section class="kind"' in page and '<p class="why">' in page


@needs_strategies
def test_no_arguments_checks_generated_transcripts_too(capsys):
    assert check("--examples", "20", "--seed", "1", "--case", "cycle-*") == 0
    out = capsys.readouterr().out
    # compared with the TS SDK when it runs, else with what the generator intended
    assert ("intended" in out or "agent-sdk-ts@0.3.332" in out) and "20 generated (seed 1)" in out


@needs_strategies
def test_disagreements_are_shrunk_into_cases_that_replay(faux, tmp_path, capsys):
    saved = tmp_path / "cases"
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:drops_last", "--against", "reference", "--no-corpus",
                 "--examples", "30", "--seed", "2", "--save-cases", str(saved),
                 "--report", str(path)) == 1
    lines = report.read(path)
    findings = [line for line in lines if line["kind"] == "finding"]
    assert findings, "a disagreement on generated input was not shrunk"
    first = findings[0]
    case_dir = Path(first["path"])
    assert first["signature"] and case_dir.name == first["case_id"]
    assert first["case_id"].startswith("diff-faux-vs-ref-")
    assert first["cause"] == "lost-row"  # a cause, as a corpus case's, not a signature token
    assert lint_cases(saved) == []
    shrunk = (case_dir / "transcript.jsonl").read_bytes()
    generated = [line for line in lines if line["kind"] == "case" and line["status"] == "fail"]
    assert shrunk.count(b"\n") <= 12 and len(generated) >= 1
    capsys.readouterr()
    replay = shlex.split(first["replay"])  # started as this rechain runs: its own words
    at = replay.index("check")
    assert Path(replay[0]).name == "rechain" or replay[1:at] == ["-m", "rechain"]
    document = json.loads((case_dir / "case.json").read_text())
    stored = shlex.split(document["provenance"]["differential"]["replay"])
    assert stored == ["rechain", *replay[at:]]  # the case file travels: the rechain on PATH
    assert main([*replay[at:], "--no-progress"]) == 1
    assert first["case_id"] in capsys.readouterr().out


@needs_strategies
def test_a_disagreement_that_does_not_reproduce_is_kept_unshrunk(faux, tmp_path):
    path = tmp_path / "r.jsonl"
    assert check("--impl", f"{faux}:flaky", "--against", "reference", "--no-corpus",
                 "--examples", "4", "--seed", "3", "--save-cases", str(tmp_path / "cases"),
                 "--report", str(path)) == 1
    findings = [line for line in report.read(path) if line["kind"] == "finding"]
    assert len(findings) == 1 and findings[0]["shrink_calls"] == 0
    assert Path(findings[0]["path"], "transcript.jsonl").exists()


def test_written_skips_cover_the_failures_and_stay_strict(faux, tmp_path, capsys):
    written = tmp_path / "skips.json"
    assert check("--impl", f"{faux}:drops_last", "--examples", "0", "--case", "cycle-*",
                 "--case", "options-*", "--write-skips", str(written)) == 1
    document = json.loads(written.read_text())
    ids = [i for entry in document["skips"] for i in entry["cases"]]
    assert f"wrote {len(ids)} known failures to {written}" in capsys.readouterr().err
    assert ids and all(entry["reason"].startswith("TODO") for entry in document["skips"])
    assert any("[[]" in i for i in ids)  # variant ids like options-paging[limit=3] are escaped
    assert check("--impl", f"{faux}:drops_last", "--examples", "0", "--case", "cycle-*",
                 "--case", "options-*", "--skips", str(written)) == 0
    assert check("--impl", f"{faux}:right", "--examples", "0", "--case", "cycle-*",
                 "--case", "options-*", "--skips", str(written)) == 1  # stale skips fail


@needs_strategies
def test_one_case_per_minimal_input_holds_every_comparison_that_failed(faux, tmp_path, capsys):
    saved = tmp_path / "cases"
    path = tmp_path / "r.jsonl"
    naive = f"harness:{sys.executable} {Path(__file__).parents[1] / 'examples/naive_reader.py'}"
    assert check("--impl", f"{faux}:drops_last", "--impl", naive, "--no-corpus",
                 "--examples", "20", "--seed", "2", "--save-cases", str(saved),
                 "--report", str(path)) == 1
    lines = report.read(path)
    assert report.problems(lines) == []
    findings = [line for line in lines if line["kind"] == "finding"]
    assert findings
    shown: set[tuple[str, str, tuple[str, ...]]] = set()
    for finding in findings:  # a kind an earlier minimal input already shows is not shrunk
        kind = (finding["implementation"], finding["against"], tuple(finding["signature"]))
        assert kind not in shown
        shown |= {(c["implementation"], c["against"], tuple(c["signature"]))
                  for c in finding["comparisons"]}
    digests = [finding["case_id"].rsplit("-", 1)[1] for finding in findings]
    assert len(set(digests)) == len(digests)
    assert sorted(p.name for p in saved.iterdir()) == sorted(f["case_id"] for f in findings)
    shared = [f for f in findings if len({c["implementation"] for c in f["comparisons"]}) == 2]
    assert shared, "no minimal input on which both readers fail"
    for finding in findings:
        document = json.loads((saved / finding["case_id"] / "case.json").read_text())
        listed = document["provenance"]["differential"]["comparisons"]
        assert [c["implementation"] for c in listed] == [
            c["implementation"] for c in finding["comparisons"]]
        assert all(c["explanation"]["sentence"] for c in finding["comparisons"])
    capsys.readouterr()
    replay = shlex.split(shared[0]["replay"])
    assert replay.count("--impl") == 2
    assert main([*replay[replay.index("check"):], "--no-progress"]) == 1
    out = capsys.readouterr().out
    rows = [row.split() for row in out.splitlines() if row.startswith(("faux@1", "naive"))]
    assert len(rows) >= 2 and all(int(row[3]) >= 1 for row in rows[:2])  # both fail again


def test_a_reader_of_stdout_that_leaves_early_changes_no_verdict_and_no_file(faux, tmp_path):
    """``rechain check … | head``: once the pipe's reader is gone, what is printed is
    dropped and the run still writes its files and exits with its verdict (a closed pipe
    ended it with exit 0 and no --html, so a failing reader passed a pipefail CI step)."""
    import subprocess

    html = tmp_path / "report.html"
    argv = [sys.executable, "-m", "rechain", "check", "--no-progress", "--impl",
            f"{faux}:empty", "--examples", "0", "--case", "cycle-*", "--html", str(html),
            "--markdown", "-"]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            cwd=tmp_path)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader of the pipe left before the first line
    _, err = proc.communicate(timeout=300)
    assert proc.returncode == 1, err.decode()[-2000:]
    assert html.is_file() and b"Traceback" not in err
