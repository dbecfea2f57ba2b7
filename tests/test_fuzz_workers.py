"""``--jobs N``: every worker's exit is seen, and one that died fails the run."""

from __future__ import annotations

import importlib.util
import json
import signal
import textwrap
from pathlib import Path

import pytest
from fuzz_runs import run_fuzz

from rechain.commands.fuzz import worker_deaths
from rechain.fuzz.runner import WorkerExit

needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")
# the second process to import it (the probe is the first) dies before its first input,
# as a worker does on bad arguments or a harness that cannot start
DIES_IN_ONE_WORKER = '''
import os

def _claim(folder: str) -> int:
    for number in range(1, 100):
        try:
            os.close(os.open(os.path.join(folder, str(number)), os.O_CREAT | os.O_EXCL))
            return number
        except FileExistsError:
            continue
    return 0

if _claim({claims!r}) == 2:
    raise SystemExit("this worker cannot start: no licence for the reader")

def read(data: bytes) -> int:
    return len(data)
'''
# a worker killed as the OOM killer kills one: no artefact, no statistics
KILLED_ON_AN_INPUT = '''
import os, signal

def read(data: bytes) -> int:
    if data == b"kill-on-this-seed-7f3a\\n":
        os.kill(os.getpid(), signal.SIGKILL)
    return len(data)
'''


@needs_atheris
def test_a_worker_that_dies_fails_the_run_and_says_which(tmp_path: Path) -> None:
    claims = tmp_path / "claims"
    claims.mkdir()
    source = textwrap.dedent(DIES_IN_ONE_WORKER).replace("{claims!r}", repr(str(claims)))
    (tmp_path / "one_dies.py").write_text(source)
    done = run_fuzz(tmp_path, "--target", "one_dies:read", "--jobs", "2", "--runs", "600",
                 "--json")
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    [died] = report["died"]
    assert died["code"] == 1 and died["executions"] == 0
    assert "no licence for the reader" in died["said"]
    finished = [w for w in report["workers"] if w["worker"] != died["worker"]]
    assert [w["outcome"] for w in finished] == ["finished"] and report["executions"] >= 600
    [line] = [x for x in done.stderr.splitlines() if " died " in x]
    assert line.startswith(f"rechain: fuzz one_dies-read: worker {died['worker']} died "
                           "before its first input (exit code 1): ")


@needs_atheris
def test_a_worker_killed_on_an_input_is_a_finding_with_two_jobs(tmp_path: Path) -> None:
    (tmp_path / "killed_toy.py").write_text(textwrap.dedent(KILLED_ON_AN_INPUT))
    seeds = tmp_path / "work" / "killed_toy-read" / "seeds"
    seeds.mkdir(parents=True)
    (seeds / "a").write_bytes(b'{"type":"user","uuid":"u1"}\n')
    (seeds / "b").write_bytes(b"kill-on-this-seed-7f3a\n")
    done = run_fuzz(tmp_path, "--target", "killed_toy:read", "--jobs", "2", "--runs", "300",
                 "--json")
    assert done.returncode == 1, done.stderr[-3000:]
    [report] = json.loads(done.stdout)
    [finding] = report["findings"]
    assert finding["exception"] == "exit" and "killed by SIGKILL" in finding["message"]
    assert Path(finding["input_path"]).read_bytes() == b"kill-on-this-seed-7f3a\n"
    assert {w["outcome"] for w in report["workers"]} >= {"target-ended", "finished"}
    assert report["died"] == []


def test_a_deaths_status_names_the_signal() -> None:
    killed = WorkerExit(2, -signal.SIGKILL, 0, "died")
    assert killed.status() == "killed by SIGKILL (the kernel's OOM killer sends it)"
    assert WorkerExit(1, 3, 10, "died").status() == "exit code 3"
    report = {"target": "t", "log": "/w/t/worker.log",
              "died": [killed.to_json(), WorkerExit(1, 3, 10, "died", "boom").to_json()]}
    assert worker_deaths(report) == [
        "rechain: fuzz t: worker 2 died before its first input (killed by SIGKILL (the "
        "kernel's OOM killer sends it)): it wrote nothing (log: /w/t/worker.log)",
        "rechain: fuzz t: worker 1 died after 10 inputs (exit code 3): boom "
        "(log: /w/t/worker.log)"]
