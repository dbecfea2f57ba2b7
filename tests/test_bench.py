"""The load benchmark runs and ends with its JSON line (figures are printed, never asserted)."""

from __future__ import annotations

import json

import pytest

from rechain.cli import main
from rechain.conformance.bench import stages
from rechain.conformance.bench.synthetic import synthetic_transcript
from rechain.reference import PROFILES, rebuild
from rechain.reference.profiles import get_profile


def test_load_benchmark_prints_its_ratio(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0.5", "--runs", "1"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert {"floor_s", "reference_s", "ratio", "lines", "messages"} <= set(summary)
    assert summary["floor_s"] > 0 and summary["reference_s"] > 0 and summary["ratio"] > 0
    assert summary["lines"] > 100 and summary["messages"] > 10
    peaks = summary["peak_rss_mb"]
    assert {"floor", "agent-sdk@0.3.332", "claude-code@2.1.332"} <= set(peaks)
    assert all(peak > 1 for peak in peaks.values())


def test_the_synthetic_transcript_is_deterministic_and_rebuilds() -> None:
    data = synthetic_transcript(200_000, seed=3)
    assert data == synthetic_transcript(200_000, seed=3)
    result = rebuild(data)
    assert len(result.messages) > 20 and result.error is None
    assert any(d.kind == "recovered" for d in result.diagnostics)  # parallel results off the walk
    assert any(d.kind == "relinked" for d in result.diagnostics)  # the preserved segment


def test_the_mostly_dead_transcript_leaves_most_lines_off_the_chain() -> None:
    data = synthetic_transcript(400_000, seed=5, kind="mostly-dead")
    assert data == synthetic_transcript(400_000, seed=5, kind="mostly-dead")
    result = rebuild(data)
    lines = data.count(b"\n")
    off_chain = sum(d.kind == "off-chain" for d in result.diagnostics)
    assert result.error is None and len(result.messages) > 5
    assert off_chain >= 0.8 * lines


def test_the_compacted_transcript_holds_most_lines_before_a_plain_boundary() -> None:
    data = synthetic_transcript(6_000_000, seed=2, kind="compacted")
    assert data == synthetic_transcript(6_000_000, seed=2, kind="compacted")
    lines = data.split(b"\n")
    at = [n for n, line in enumerate(lines) if b'"compact_boundary"' in line]
    assert len(at) == 1  # one compaction, and it keeps nothing before it
    boundary = json.loads(lines[at[0]])
    assert boundary["parentUuid"] is None and boundary["logicalParentUuid"]
    assert set(boundary["compactMetadata"]) == {"trigger", "preTokens"}
    assert 0.85 <= at[0] / len(lines) <= 0.95
    summary = json.loads(lines[at[0] + 1])
    assert summary["parentUuid"] == boundary["uuid"] and summary["isCompactSummary"] is True
    for profile in PROFILES:  # over 5 MiB: every reader starts at the boundary
        skipped = [d for d in rebuild(data, profile).diagnostics
                   if d.kind == "before-compact-boundary"]
        assert [d.line for d in skipped] == [1], profile


@pytest.mark.parametrize("kind", ["mostly-dead", "compacted", "chain", "nul"])
def test_load_benchmark_kinds_time_every_profile(
        kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0.3", "--runs", "1", "--kind", kind]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert summary["kind"] == kind and set(summary["profiles"]) == set(PROFILES)
    assert all(p["s"] > 0 and p["ratio"] > 0 for p in summary["profiles"].values())
    assert {"floor", *PROFILES} <= set(summary["peak_rss_mb"])
    if kind == "nul":
        assert summary["lines"] == 1 and summary["messages"] == 0


def test_bad_arguments_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0"]) == 2
    assert "size-mb" in capsys.readouterr().err


def test_oracles_benchmark_prints_a_row_per_reader_and_mode(
        capsys: pytest.CaptureFixture[str]) -> None:
    from rechain.conformance.oracles.ts_sdk import TsSdkOracle

    readers = "reference:sdk,reference:cli" + (
        ",agent-sdk-ts" if TsSdkOracle.available() is None else "")
    assert main(["bench", "oracles", "--cases", "6", "--cli", "0", "--jobs", "2",
                 "--readers", readers]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    rows = {(r["reader"], r["mode"], r["jobs"]): r for r in summary["rows"]}
    assert {("reference:sdk", "one_by_one", 1), ("reference:cli", "one_by_one", 1)} <= set(rows)
    if TsSdkOracle.available() is None:
        assert {("agent-sdk-ts", "batched", 1), ("agent-sdk-ts", "batched", 2)} <= set(rows)
        alone = rows.pop(("agent-sdk-ts", "sdk_alone", 1))
        assert alone["cases"] == 6 and alone["cpu_ms_per_case"] > 0
        for jobs in (1, 2):  # the batched CPU a case splits into the SDK's and rechain's
            row = rows[("agent-sdk-ts", "batched", jobs)]
            assert row["sdk_ms_per_case"] == alone["cpu_ms_per_case"]
            assert row["sdk_ms_per_case"] + row["glue_ms_per_case"] == pytest.approx(
                row["cpu_ms_per_case"], abs=0.002)
    for row in rows.values():
        assert row["available_cores"] > 0 and row["of_available"] > 0
        assert row["occupancy"] is None  # no reader here starts a process per case
        assert row["cases"] == 6 and row["same_answers"] is True
        assert row["cpu_ms_per_case"] > 0 and row["wall_rate"] > 0
        assert row["cores_bound"] == pytest.approx(
            summary["cores"] / row["cpu_ms_per_case"] * 1000, rel=0.01)


def test_the_oracle_bench_cases_are_seeded() -> None:
    from rechain.conformance.bench.oracles import generated_cases

    first = generated_cases(5, seed=7)
    assert [c.data for c in first] == [c.data for c in generated_cases(5, seed=7)]
    assert len({c.data for c in first}) > 1


def test_oracles_benchmark_refuses_unknown_readers(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "oracles", "--readers", "nonsense"]) == 2
    assert "--readers" in capsys.readouterr().err


def test_load_curve_prints_each_reader_at_each_size(capsys: pytest.CaptureFixture[str]) -> None:
    from rechain.reference import PROFILES

    assert main(["bench", "load", "--sizes", "0.1,0.4"]) == 0
    summary = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    curves = summary["curves"]
    assert {"floor", *PROFILES} <= set(curves)
    for curve in curves.values():
        assert [round(p["size_mb"], 1) for p in curve["points"]] == [0.1, 0.4]
        assert all(p["seconds"] > 0 and p["peak_rss_mb"] > 1 for p in curve["points"])
        assert isinstance(curve["time_exponent"], float)
        assert isinstance(curve["rss_exponent"], float)


def test_curve_exponent_is_the_log_log_slope() -> None:
    from rechain.conformance.bench.curve import exponent

    assert exponent([1, 10, 100], [2, 20, 200]) == pytest.approx(1.0)
    assert exponent([1, 10], [3, 300]) == pytest.approx(2.0)
    assert exponent([1, 10, 100], [5, 5, 5]) == pytest.approx(0.0)
    assert exponent([10], [1]) is None


def test_bad_curve_sizes_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--sizes", "1,x"]) == 2
    assert "--sizes" in capsys.readouterr().err
    assert main(["bench", "load", "--sizes", "0"]) == 2


def test_busy_loops_get_some_cpu() -> None:
    import os

    from rechain.conformance.bench.capacity import available_cores

    assert 0 < available_cores(2, seconds=0.2) <= (os.cpu_count() or 1) * 1.05


def test_the_short_row_chain_returns_every_row() -> None:
    data = synthetic_transcript(200_000, seed=6, kind="chain")
    result = rebuild(data)
    lines = data.count(b"\n")
    assert result.error is None and len(result.messages) == lines - 1  # all but last-prompt
    assert len(data) / lines < 400  # short rows: parsed without a glance


def test_stages_print_each_profile_stage_by_stage(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0.3", "--runs", "1", "--stages"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    rows = {"file read", *stages.SLOTS, "driver", "messages read", "total", "diagnostics read"}
    assert set(summary["stages"]) == set(PROFILES)
    for name, parts in summary["stages"].items():
        assert set(parts) == rows and all(s >= 0 for s in parts.values())
        # the rows are one round's parts: together they are that round's load, the
        # diagnostics (worked out when read) after it
        assert sum(s for row, s in parts.items() if row not in ("total", "diagnostics read")) == \
            pytest.approx(parts["total"], abs=1e-3), name
    printed = [line for line in captured.err.splitlines() if line.startswith("parse ")]
    assert len(printed) == 1 and printed[0].count("x") == len(PROFILES)


def test_a_timed_profile_rebuilds_what_the_profile_does() -> None:
    data = synthetic_transcript(200_000, seed=4)
    for name in PROFILES:
        spent: dict[str, float] = {}
        timed = stages.timed_profile(get_profile(name), spent)
        assert rebuild(data, timed) == rebuild(data, name)
        assert set(spent) == set(stages.SLOTS)


def test_stages_go_with_one_size(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--sizes", "1,2", "--stages"]) == 2
    assert "--stages" in capsys.readouterr().err
