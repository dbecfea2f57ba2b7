"""``rechain check`` against the real readers, bounded (CI installs the oracles first)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rechain.cli import main
from rechain.conformance.oracles.py_sdk import PySdkOracle
from rechain.conformance.oracles.ts_sdk import TsSdkOracle

needs_ts = pytest.mark.skipif(TsSdkOracle.available() is not None,
                              reason=str(TsSdkOracle.available()))
needs_both = pytest.mark.skipif(
    TsSdkOracle.available() is not None or PySdkOracle.available() is not None,
    reason=str(TsSdkOracle.available() or PySdkOracle.available()),
)


def lines(report: Path) -> list[dict]:
    return [json.loads(line) for line in report.read_text().splitlines() if line.strip()]


@needs_ts
def test_the_reference_agrees_with_the_ts_sdk_on_generated_transcripts(tmp_path: Path) -> None:
    report = tmp_path / "run.jsonl"
    code = main(["check", "--impl", "reference", "--against", "agent-sdk-ts", "--no-corpus",
                 "--examples", "60", "--seed", "7", "--report", str(report), "--no-progress",
                 "--save-cases", str(tmp_path / "cases")])
    assert code == 0
    assert not (tmp_path / "cases").exists() or not any((tmp_path / "cases").iterdir())
    footer = lines(report)[-1]
    [against] = footer["counts"].values()
    assert against == {"agent-sdk-ts@0.3.332": {"pass": 60}}


@needs_both
def test_the_python_sdk_diverges_from_the_ts_sdk_and_each_divergence_is_shrunk(
    tmp_path: Path,
) -> None:
    cases = tmp_path / "cases"
    code = main(["check", "--impl", "agent-sdk-py", "--against", "agent-sdk-ts", "--no-corpus",
                 "--examples", "120", "--seed", "20261129", "--no-progress",
                 "--save-cases", str(cases), "--max-shrink", "1"])
    assert code == 1
    saved = sorted(cases.glob("*/case.json"))
    assert saved, "a disagreement should have been shrunk into a case file"
    case = json.loads(saved[0].read_text())
    transcript = (saved[0].parent / "transcript.jsonl").read_bytes()
    assert transcript.count(b"\n") <= 12, "shrunk to a handful of lines"
    assert "replay" in json.dumps(case["provenance"])


@needs_ts
def test_a_finding_lists_each_comparison_once_when_two_targets_are_the_same_reader(
    tmp_path: Path,
) -> None:
    """By default a generated case is compared with the live TS SDK and a shrunk case with
    its recorded expectations: one label, one answer, so a finding names it once (not
    "fails against agent-sdk-ts@0.3.332, agent-sdk-ts@0.3.332")."""
    reader = tmp_path / "lossy.py"
    reader.write_text("from rechain.reference import Options, rebuild\n\n"
                      "def read(data, session_id, options):\n"
                      "    got = rebuild(data, 'sdk', Options(**options)).messages\n"
                      "    got = [{k: v for k, v in m.items() if k != 'line'} for m in got]\n"
                      "    return got[:-1]\n")
    report = tmp_path / "run.jsonl"
    code = main(["check", "--impl", f"python:{reader}:read", "--no-corpus", "--examples", "6",
                 "--seed", "2", "--max-shrink", "1", "--report", str(report), "--no-progress",
                 "--save-cases", str(tmp_path / "cases")])
    assert code == 1
    findings = [line for line in lines(report) if line["kind"] == "finding"]
    assert findings
    for finding in findings:
        pairs = [(c["implementation"], c["against"]) for c in finding["comparisons"]]
        assert len(pairs) == len(set(pairs)), pairs
