"""The benches end with a line per target: the figure, its share of the target, met or not."""

from __future__ import annotations

import json

import pytest

from rechain.cli import main
from rechain.conformance.bench.targets import LOAD, ORACLES, Target, verdicts
from rechain.reference import PROFILES


def test_a_target_says_met_or_not_and_how_far() -> None:
    under = Target("at most 2", lambda s: s["x"], 2, True, "x")
    assert under.check({"x": 1.5}) == {"target": "at most 2", "bound": 2, "measured": 1.5,
                                       "of_target": 0.75, "met": True}
    assert under.check({"x": 3})["met"] is False
    over = Target("at least 1000", lambda s: s["x"], 1000, False, "/s")
    assert over.check({"x": 999})["met"] is False and over.check({"x": 1000})["met"] is True
    missing = Target("the TS SDK's", lambda s: None, 2, False)
    printed: list[str] = []
    [verdict] = verdicts([missing], {}, printed.append, {"TS SDK": "over 60 s (stopped)"})
    assert verdict["measured"] is None and verdict["met"] is None
    assert printed == ["target the TS SDK's: over 60 s (stopped)"]


@pytest.mark.parametrize("kind", sorted(LOAD))
def test_load_prints_each_kinds_targets(kind: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--size-mb", "0.3", "--runs", "1", "--kind", kind]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert [v["target"] for v in summary["targets"]] == [t.what for t in LOAD[kind]]
    for target, verdict in zip(LOAD[kind], summary["targets"], strict=True):
        assert f"target {target.what}: " in captured.err
        if not target.what.startswith("at least 2x faster"):  # the reference's, always there
            assert verdict["measured"] is not None and isinstance(verdict["met"], bool)
    assert set(summary["profiles"]) == set(PROFILES)


def test_oracles_prints_its_targets(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "oracles", "--cases", "4", "--cli", "0", "--jobs", "1",
                 "--readers", "reference:sdk"]) == 0
    captured = capsys.readouterr()
    summary = json.loads(captured.out.strip().splitlines()[-1])
    assert [v["target"] for v in summary["targets"]] == [t.what for t in ORACLES]
    assert all(v["measured"] is None for v in summary["targets"])  # no oracle among readers
    assert "target CLI >= 80 % of what the cores allow (most jobs): not measured" in captured.err


def test_the_strategies_bench_runs_under_rechain_bench(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "strategies", "--examples", "5"]) == 0
    out = capsys.readouterr().out
    assert "target 200/s cpu:" in out and "corrupted(" in out
    assert main(["bench", "strategies", "--examples", "0"]) == 2
