"""``cov 0 ft 0`` is explained: what it means and what to do.

(A run that executed nothing has no note: it fails and says why,
``test_fuzz_run.test_a_campaign_that_executed_nothing_fails_and_says_why``.)
"""

from __future__ import annotations

import importlib.util
import io
import json
from pathlib import Path

import pytest
from fuzz_runs import run_fuzz

from rechain.commands.fuzz import _print_report
from rechain.fuzz.runner import Report, _Reader, coverage_note

needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")


def test_status_lines_without_cov_say_zero() -> None:
    """libFuzzer leaves ``cov:`` out of its status lines while it is 0."""
    said = (b"#449\tINITED exec/s: 0 rss: 50Mb\n"
            b"#65536\tpulse  corp: 1/1b lim: 652 exec/s: 32768 rss: 50Mb\n")
    report = Report("t", "m:f")
    reader = _Reader(io.BytesIO(said), io.BytesIO(), 0.0, report)
    reader.run()
    assert report.coverage[0][1:] == (449, 0, 0) and reader.last_execs == 65536
    report.executions = reader.executions
    assert report.to_json()["coverage"]["note"].startswith(
        "cov 0 ft 0: inputs ran but no instrumented code reported coverage")


def test_the_note_is_only_for_zero_coverage_of_inputs_that_ran() -> None:
    assert coverage_note(100, 7) == ""
    assert coverage_note(0, 0) == ""  # nothing ran: the run fails and says why instead
    assert coverage_note(100, 0, sampled=False).startswith("cov 0 ft 0: not measured")


def test_the_report_prints_the_note(capsys) -> None:
    report = Report("r-read", "r:read", executions=10, coverage=[(0.1, 10, 0, 0)]).to_json()
    report["findings"] = []
    _print_report(report)
    out = capsys.readouterr().out.splitlines()
    assert out[0].endswith("cov 0 ft 0, 0 findings (0 new)")
    assert out[1].startswith("  cov 0 ft 0: inputs ran but no instrumented code reported")
    assert "--instrument PKG" in out[1]


@needs_atheris
def test_a_reader_whose_code_is_not_instrumented_is_explained(tmp_path: Path) -> None:
    """The target is the standard library's ``len`` under another name: nothing of it is
    instrumented, so libFuzzer reports no coverage and the report says what that means."""
    (tmp_path / "elsewhere.py").write_text("read = len\n")
    done = run_fuzz(tmp_path, "--target", "elsewhere:read", "--runs", "600")
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stdout.splitlines()
    assert "cov 0 ft 0" in lines[0]
    assert lines[1].startswith("  cov 0 ft 0: inputs ran but no instrumented code reported")
    again = run_fuzz(tmp_path, "--target", "elsewhere:read", "--runs", "600", "--json")
    [report] = json.loads(again.stdout)
    assert report["coverage"]["note"] == lines[1].strip()
