"""The load benchmark runs and ends with its JSON line (figures are printed, never asserted)."""

from __future__ import annotations

import json

import pytest

from rechain.cli import main
from rechain.conformance.bench.synthetic import synthetic_transcript
from rechain.reference import rebuild


def test_load_benchmark_prints_its_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0.5", "--runs", "1"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {"floor_s", "reference_s", "ratio", "lines", "messages"} <= set(summary)
    assert summary["floor_s"] > 0 and summary["reference_s"] > 0 and summary["ratio"] > 0
    assert summary["lines"] > 100 and summary["messages"] > 10


def test_the_synthetic_transcript_is_deterministic_and_rebuilds() -> None:
    data = synthetic_transcript(200_000, seed=3)
    assert data == synthetic_transcript(200_000, seed=3)
    result = rebuild(data)
    assert len(result.messages) > 20 and result.error is None
    assert any(d.kind == "recovered" for d in result.diagnostics)  # parallel results off the walk
    assert any(d.kind == "relinked" for d in result.diagnostics)  # the preserved segment


def test_bad_arguments_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0"]) == 2
    assert "size-mb" in capsys.readouterr().err
