"""``--time`` is a hard bound, and the coverage reported is the best any worker reached.

libFuzzer looks at its own time limit only once it has run the whole seed corpus, so a
slow target (or a large corpus) ran on without bound. Past ``--time`` + ``GRACE_S`` the
runner stops every worker's process group; the report is of what ran, says the campaign
was cut and how much of the seed corpus no worker started. The bounds asserted here are
generous: what is checked is the report, not how fast anything ran.
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from rechain.commands.fuzz import cut_line
from rechain.fuzz.runner import GRACE_S, STOP_S, Report, _Reader

needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")
SEEDS = 400
# every seed takes a while and fails: at --time 2 most of the seed corpus is still to run
SLOW = '''
import time

def read(data: bytes) -> int:
    if data:
        time.sleep(0.4)
        raise ValueError("slow and wrong")
    return 0
'''
# on its first seed the target starts a child, ignores SIGTERM and never returns: only
# SIGKILL to the worker's whole process group ends both
STALLS = '''
import os, signal, subprocess, time

def read(data: bytes) -> int:
    if data:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        child = subprocess.Popen(["sleep", "3600"])
        with open(os.path.join({pids!r}, str(os.getpid())), "w") as out:
            out.write(str(child.pid))
        while True:
            time.sleep(1)
    return 0
'''
#: --time, the grace, SIGTERM's grace, and room for a loaded machine to start workers
BOUND_S = 2 + GRACE_S + STOP_S + 240


def _fuzz(cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    command = [sys.executable, "-m", "rechain", "fuzz", *args, "--time", "2",
               "--timeout", "3600", "--work", "work"]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=BOUND_S, check=False)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead: its parent (init, here) has not reaped it yet
    stat = Path(f"/proc/{pid}/stat")
    return not (stat.is_file() and stat.read_text().rpartition(")")[2].split()[0] == "Z")


@needs_atheris
def test_a_campaign_still_in_its_seeds_at_the_deadline_is_cut_and_keeps_what_it_found(
    tmp_path: Path,
) -> None:
    (tmp_path / "slow.py").write_text(textwrap.dedent(SLOW))
    seeds = tmp_path / "work" / "slow-read" / "seeds"
    seeds.mkdir(parents=True)
    for number in range(SEEDS):
        (seeds / f"seed-{number}").write_text(f"seed {number}\n")
    done = _fuzz(tmp_path, "--target", "slow:read", "--json")
    assert done.returncode == 1, done.stderr[-3000:]  # it found something: that fails it
    [report] = json.loads(done.stdout)
    [worker] = report["workers"]
    assert worker["outcome"] == "cut" and report["stopped"] is None
    assert report["cut"]["time_s"] == 2 and report["cut"]["grace_s"] == GRACE_S
    executions = report["executions"]
    assert executions == worker["executions"] > 0
    [left] = report["cut"]["seeds_left"]
    assert left["worker"] == 1 and left["of"] == SEEDS
    # the empty input, then each seed once: those started and those not add up
    assert 0 < left["left"] == SEEDS - (executions - 1) == worker["seeds_left"]
    [finding] = report["findings"]
    assert finding["exception"] == "ValueError" and report["new_findings"]
    # each seed started fails, but the one the worker was stopped in may not have yet
    assert finding["count"] in (executions - 2, executions - 1)
    text = _fuzz(tmp_path, "--target", "slow:read")
    lines = text.stdout.splitlines()
    [said] = [line for line in lines if "cut at the deadline" in line]
    assert said.startswith("  cut at the deadline: workers still running at --time 2 s + ")
    assert f" of {SEEDS} seed inputs not started by worker 1" in said


@needs_atheris
def test_a_worker_that_ignores_sigterm_is_killed_with_everything_it_started(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "children"
    pids.mkdir()
    (tmp_path / "stalls.py").write_text(
        textwrap.dedent(STALLS).replace("{pids!r}", repr(str(pids))))
    seeds = tmp_path / "work" / "stalls-read" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "the-one").write_text("stall here\n")
    done = _fuzz(tmp_path, "--target", "stalls:read", "--jobs", "2", "--json")
    # both workers ran inputs and nothing failed: a cut campaign passes, and says so
    assert done.returncode == 0, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    assert sorted(w["worker"] for w in report["workers"]) == [1, 2]
    for worker in report["workers"]:
        assert worker["outcome"] == "cut" and worker["status"] == "killed by SIGKILL"
        assert worker["executions"] == 2 and worker["seeds_left"] == 0
    assert report["executions"] == 4 and report["findings"] == []
    children = [int(path.read_text()) for path in pids.iterdir()]
    assert len(children) == 2  # one per worker
    until = time.monotonic() + 60  # init reaps the orphans; the kill itself is done
    while any(map(_alive, children)) and time.monotonic() < until:
        time.sleep(0.5)
    assert not any(map(_alive, children))


def _read_status(lines: bytes, started_ago: float, report: Report) -> _Reader:
    """A worker's status lines read into ``report``, as if its campaign had started
    ``started_ago`` seconds before."""
    reader = _Reader(io.BytesIO(lines), io.BytesIO(), time.monotonic() - started_ago, report)
    reader.run()
    return reader


def test_the_coverage_is_the_best_any_worker_reached() -> None:
    """Worker 2 ends seconds after worker 1, with less coverage than 1 reached: 1's is
    reported, and each worker's own is kept."""
    report = Report("t", "m:f")
    rich = _read_status(b"#2\tINITED cov: 9 ft: 30 corp: 1/1b\n"
                        b"#1500\tDONE   cov: 17 ft: 47 corp: 16/401b\n", 0, report)
    # its lines are read as if they came 5 s after the campaign started
    poor = _read_status(b"#2\tINITED cov: 2 ft: 2 corp: 1/1b\n"
                        b"#1500\tDONE   cov: 2 ft: 3 corp: 1/1b\n", 5, report)
    said = report.to_json()["coverage"]
    assert (said["cov"], said["ft"]) == (17, 47)
    assert tuple(said["samples"][-1][2:]) == (17, 47)  # the best figure, whenever read
    assert (rich.cov, rich.ft, poor.cov, poor.ft) == (17, 47, 2, 3)


def test_the_cut_line_names_each_worker_still_in_its_seeds() -> None:
    cut = {"time_s": 60.0, "grace_s": GRACE_S,
           "seeds_left": [{"worker": 2, "left": 7, "of": 30}]}
    line = cut_line(cut)
    assert line.startswith(f"cut at the deadline: workers still running at --time 60 s + "
                           f"{GRACE_S} s grace were stopped")
    assert "(7 of 30 seed inputs not started by worker 2: " in line
    assert "(" not in cut_line({**cut, "seeds_left": []})
