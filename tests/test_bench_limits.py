"""Every SDK measurement of ``rechain bench load`` ends at its limits and says it was stopped.

The SDKs here are stand-ins that never finish (sleep, or hold memory and sleep): the
verdict is asserted, never how long anything took.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

import pytest
from processes import running

from rechain.cli import main
from rechain.conformance.bench import limited, sdks
from rechain.conformance.bench.limited import Bounds

SAFETY_S = 120  # how long a killed process may take to be gone: never a speed claim
SLEEPER = "import time; time.sleep(3600)"
HOG = "import time; kept = b'x' * (400 << 20); time.sleep(3600)"  # 400 MiB, all touched
#: starts a grandchild that sleeps, writes its pid where the test finds it, then hogs
#: memory: the limit can only stop it once the grandchild is there
FAMILY = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
open(sys.argv[1], "w").write(str(child.pid))
kept = b"x" * (400 << 20)
time.sleep(3600)
"""


def _stand_in(monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """The TS SDK replaced by ``python -c script``, the Python SDK left out."""
    monkeypatch.setitem(sdks.SDKS, "agent-sdk-ts", sdks.Sdk(
        "TS SDK", lambda: [sys.executable, "-c", script], lambda found: float(found["s"])))
    monkeypatch.delitem(sdks.SDKS, "agent-sdk-py")


def _summary(capsys: pytest.CaptureFixture[str]) -> tuple[dict, str]:
    captured = capsys.readouterr()
    return json.loads(captured.out.strip().splitlines()[-1]), captured.err


def test_an_sdk_that_never_finishes_is_stopped_at_the_time_limit(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
        private_tmpdir: Path) -> None:
    """(``private_tmpdir``: the stopped run's laid-out copy is gone from the temp dir too.)"""
    _stand_in(monkeypatch, SLEEPER)
    assert main(["bench", "load", "--size-mb", "0.2", "--runs", "1", "--sdk-timeout", "1"]) == 0
    summary, err = _summary(capsys)
    assert summary["stopped"] == {"agent-sdk-ts": "over 1 s"}
    assert "ts_sdk_s" not in summary and "ts_sdk_vs_reference" not in summary
    assert "agent-sdk-ts" not in summary["peak_rss_mb"]  # no figure made up
    assert summary["limits"]["sdk"]["timeout_s"] == 1
    assert "TS SDK: over 1 s (stopped)" in err
    assert "x the floor" in err and summary["ratio"] > 0  # the reference's ratios still print
    assert "target SDK profile <= 1.5x the floor: " in err  # and its targets
    assert "target at least 2x faster than the TS SDK: over 1 s (stopped)" in err
    faster = next(v for v in summary["targets"] if "TS SDK" in v["target"])
    assert faster["measured"] is None and faster["met"] is None


def test_an_sdk_past_the_memory_limit_is_stopped(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stand_in(monkeypatch, HOG)
    assert main(["bench", "load", "--size-mb", "0.2", "--runs", "1", "--sdk-timeout", "600",
                 "--sdk-memory-mb", "100"]) == 0
    summary, err = _summary(capsys)
    assert summary["stopped"] == {"agent-sdk-ts": "over 100 MB"}
    assert "TS SDK: over 100 MB (stopped)" in err


def test_an_sdk_that_fails_says_how_without_a_figure(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stand_in(monkeypatch, "import sys; sys.exit('no such session')")
    assert main(["bench", "load", "--size-mb", "0.2", "--runs", "1"]) == 0
    summary, err = _summary(capsys)
    assert summary["failed"] == {"agent-sdk-ts": "exit 1: no such session"}
    assert "stopped" not in summary and "ts_sdk_s" not in summary
    assert "TS SDK: failed (exit 1: no such session)" in err
    assert "target at least 2x faster than the TS SDK: exit 1: no such session (failed)" in err


def test_a_stopped_sdk_is_stopped_with_what_it_started(tmp_path: Path) -> None:
    pid_file = tmp_path / "child"
    done = limited.run([sys.executable, "-c", FAMILY, str(pid_file)], {"PATH": "/usr/bin:/bin"},
                       Bounds(600, memory_mb=100))
    assert done.stopped == "over 100 MB" and done.found is None
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + SAFETY_S  # a SIGKILL lands in its own time: a safety bound
    while running(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not running(grandchild)  # its whole process group was killed


def test_a_finished_run_gives_its_json_and_a_failed_one_says_why() -> None:
    env = {"PATH": "/usr/bin:/bin"}
    ok = limited.run([sys.executable, "-c", "print('{\"s\": 0.5, \"peak_mb\": 12}')"], env,
                     Bounds(600))
    assert ok.found == {"s": 0.5, "peak_mb": 12} and ok.peak_mb == 12 and ok.failure() is None
    bad = limited.run([sys.executable, "-c", "import sys; sys.exit('no such session')"], env,
                      Bounds(600))
    assert bad.found is None and bad.stopped is None
    assert bad.failure() == "exit 1: no such session"


def test_the_curve_skips_larger_sizes_once_an_sdk_is_stopped(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    _stand_in(monkeypatch, SLEEPER)
    assert main(["bench", "load", "--sizes", "0.1,0.2", "--sdk-timeout", "1"]) == 0
    summary, err = _summary(capsys)
    first, second = summary["curves"]["agent-sdk-ts"]["points"]
    assert first["stopped"] == "over 1 s" and "seconds" not in first
    assert second["skipped"] == "skipped: stopped at 0.1 MB"
    assert summary["curves"]["agent-sdk-ts"]["time_exponent"] is None
    assert "agent-sdk-ts" in err and "over 1 s (stopped)" in err
    assert isinstance(summary["curves"]["floor"]["time_exponent"], float)


def test_bad_limits_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "load", "--sdk-timeout", "0"]) == 2
    assert "--sdk-timeout" in capsys.readouterr().err


@pytest.mark.skipif(shutil.which("node") is None, reason="needs node")
def test_the_sdk_alone_row_is_stopped_at_its_limit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rechain.conformance.bench import sdk_alone
    from rechain.conformance.bench.oracles import generated_cases
    from rechain.conformance.oracles import registry

    never = tmp_path / "never.mjs"
    never.write_text("setInterval(() => {}, 1000);\n")
    monkeypatch.setattr(sdk_alone, "_script", lambda: never)
    found = sdk_alone.measure(registry.AGENT_SDK_TS, generated_cases(2, seed=1), Bounds(1))
    assert found == {"calls": 0, "failed": "over 1 s (stopped)"}
