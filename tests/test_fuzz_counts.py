"""How often a finding was met is exact when the run ends, however it ends.

A fuzzing worker counts hits in a shared mapping (``findings.Tally``), not by writing
its record; the runner folds the tallies in once its workers have ended.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rechain.fuzz.contract import Failure
from rechain.fuzz.findings import FindingStore, load_findings

HITS = 5
KILLED = '''
import os, signal, sys
from pathlib import Path
from rechain.fuzz.contract import Failure
from rechain.fuzz.findings import FindingStore

store = FindingStore(Path(sys.argv[1]), "toy:read", tally=True, reader="/venvs/a")
failure = Failure("ValueError@toy.py:read:3", "ValueError", "always", "toy.py:read:3")
for size in range(int(sys.argv[2])):
    store.record(failure, b"x" * (size + 1), key=failure.signature)
os.kill(os.getpid(), signal.SIGKILL)  # as the OOM killer ends a worker: nothing runs after
'''


def test_a_worker_killed_outright_leaves_exact_counts(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(KILLED), str(tmp_path),
                           str(HITS)], capture_output=True, check=False)
    assert done.returncode == -9, done.stderr.decode()[-2000:]
    [read] = load_findings(tmp_path)  # unfolded tallies are added when a store is read
    assert read["count"] == HITS and read["reader"] == "/venvs/a"
    FindingStore(tmp_path, "toy:read").fold()
    [record] = tmp_path.glob("*.json")
    assert json.loads(record.read_text())["count"] == HITS
    assert list((tmp_path / "tallies").iterdir()) == []  # folded once, never twice
    assert [f["count"] for f in load_findings(tmp_path)] == [HITS]


def test_each_hit_the_runner_files_is_counted(tmp_path: Path) -> None:
    """The runner's own records (a hang, a blow-up, a worker ended by its target) are
    written on each hit: one per ended worker, so not a write per input."""
    store = FindingStore(tmp_path, "toy:read")
    for _ in range(3):
        store.record_artifact("exit", b"x", "the target ended the process")
    assert [f["count"] for f in load_findings(tmp_path)] == [3]


def test_tallies_grow_past_their_first_size(tmp_path: Path) -> None:
    store = FindingStore(tmp_path, "toy:read", tally=True)
    keys = 300  # more than the first mapping's slots
    for n in range(keys):
        failure = Failure(f"E@toy.py:read:{n}", "E", "m", "toy.py:read")
        for _ in range(n % 3 + 1):
            store.record(failure, b"x", key=failure.signature)
    counts = sorted(f["count"] for f in load_findings(tmp_path))
    assert counts == sorted(n % 3 + 1 for n in range(keys))


ALWAYS = '''
def read(data: bytes) -> int:
    raise ValueError("always")
'''


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
def test_a_campaigns_counts_add_up_to_its_executions(tmp_path: Path) -> None:
    """A reader that fails on every input: each execution is one hit, so the counts add up
    to the executions libFuzzer reports (they lagged at the last power of two)."""
    (tmp_path / "always_toy.py").write_text(textwrap.dedent(ALWAYS))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "rechain", "fuzz", "--target", "always_toy:read",
               "--runs", "700", "--time", "420", "--work", "work", "--json"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=720, check=False)
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    assert report["executions"] >= 700
    assert sum(f["count"] for f in report["findings"]) == report["executions"]
    records = (tmp_path / "work" / "always_toy-read" / "findings").glob("*.json")
    assert sum(json.loads(p.read_text())["count"] for p in records) == report["executions"]


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
@pytest.mark.skipif(not Path("/proc/self/task").exists(), reason="needs Linux /proc")
def test_a_campaign_told_to_stop_reports_what_ran_with_exact_counts(tmp_path: Path) -> None:
    """SIGTERM (a CI step's timeout, ``kill``): the workers are stopped, the report of what
    ran is printed, and the records hold every hit (the tallies are folded in)."""
    from processes import children, running

    (tmp_path / "always_toy.py").write_text(textwrap.dedent(ALWAYS))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "rechain", "fuzz", "--target", "always_toy:read",
               "--jobs", "2", "--time", "600", "--work", "work", "--json"]
    runner = subprocess.Popen(command, cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    findings = tmp_path / "work" / "always_toy-read" / "findings"
    try:
        for _ in range(6000):  # until both workers have hits on record: an event, not a time
            if len(list(findings.glob("tallies/*.tally"))) == 2 and \
                    sum(f["count"] for f in load_findings(findings)) > 100:
                break
            assert runner.poll() is None, runner.stderr.read() if runner.stderr else ""
            time.sleep(0.1)
        workers = children(runner.pid)
        runner.terminate()
        out, err = runner.communicate(timeout=300)
    finally:
        runner.kill()
    assert runner.returncode == 1 and err.strip().endswith("rechain: terminated"), err
    [report] = json.loads(out)
    assert report["stopped"] == "terminated" and report["executions"] > 100
    assert {w["outcome"] for w in report["workers"]} == {"stopped"}
    assert not any(running(pid) for pid in workers)
    assert list((findings / "tallies").iterdir()) == []
    [record] = findings.glob("*.json")
    [finding] = report["findings"]
    assert json.loads(record.read_text())["count"] == finding["count"] > 100
    # an input cut off by the signal ran (libFuzzer counts it) but did not fail: at most
    # one per worker
    assert report["executions"] - 2 <= finding["count"] <= report["executions"]
