"""``rechain fuzz --shard I/N``: each machine starts from its own slice of the seed corpus."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from rechain.fuzz import seeds
from rechain.shard import Shard


def _names(directory) -> set[str]:
    return {path.name for path in directory.iterdir()}


@pytest.mark.parametrize("unit", ["random", "line"])
def test_shards_start_from_fixed_slices_of_the_seeds(tmp_path, unit) -> None:
    built = {}
    for index in (1, 2):
        for attempt in ("a", "b"):
            directory = tmp_path / f"{index}{attempt}"
            assert seeds.build(directory, 256, unit, shard=Shard(index, 2)) > 0
            built[index, attempt] = _names(directory)
    assert built[1, "a"] != built[2, "a"]
    if unit == "random":  # same slice every time, and no two random units are alike
        assert built[1, "a"] == built[1, "b"] and built[2, "a"] == built[2, "b"]
        assert not built[1, "a"] & built[2, "a"]


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
def test_the_cli_fuzzes_from_the_shards_seed_slice(tmp_path) -> None:
    command = [sys.executable, "-m", "rechain", "fuzz", "parse-line", "--shard", "2/3",
               "--runs", "100", "--time", "420", "--work", str(tmp_path), "--json"]
    done = subprocess.run(command, capture_output=True, timeout=720, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0
    assert any((tmp_path / "parse-line" / "seeds-2of3").iterdir())
    assert not (tmp_path / "parse-line" / "seeds").exists()


def test_jobs_are_worker_processes_and_the_minimiser_gets_a_launcher(
        tmp_path, private_tmpdir) -> None:
    from rechain.fuzz.contract import Contract
    from rechain.fuzz.registry import TARGETS
    from rechain.fuzz.runner import Settings, worker_command
    from rechain.fuzz.worker import _WATCHERS, _launcher, _parser

    dirs = {name: tmp_path / name for name in ("corpus", "seeds", "findings", "artefacts",
                                               "dict")}
    # --jobs N is N workers the runner starts and watches, each with its own last input;
    # not libFuzzer's fork mode, whose children's exits the runner never saw
    last = tmp_path / "last-input-2"
    command = worker_command(TARGETS["parse-line"], Settings(10, jobs=3), Contract(), dirs, 10,
                             last=last)
    flags = command[command.index("--") + 1:]
    assert not any(f.startswith(("-fork=", "-jobs=")) for f in flags)
    assert command[command.index("--last-input") + 1] == str(last)
    # libFuzzer's minimiser runs argv[0] again: it must be a program, not worker.py
    args = _parser().parse_args(["--target", "rechain.fuzz.fuzz_parse_line:one_input", "--",
                                 "-minimize_crash=1", str(tmp_path)])
    launcher = Path(_launcher(args))
    assert launcher.read_text().startswith("#!/bin/sh") and launcher.stat().st_mode & 0o111
    assert "rechain.fuzz.worker" in launcher.read_text()
    # it goes where TMPDIR says (``rechain fuzz`` points it at its own scratch), and goes
    # once the process that wrote it ends (libFuzzer ends it with C exit()): here, this test
    assert launcher.parent.parent == private_tmpdir
    watcher = _WATCHERS.pop()
    assert launcher.exists() and watcher.poll() is None
    assert watcher.stdin is not None
    watcher.stdin.close()  # as the kernel does when the worker ends
    assert watcher.wait(timeout=300) == 0
    assert not launcher.parent.exists()


@pytest.mark.skipif(importlib.util.find_spec("atheris") is None, reason="atheris not installed")
def test_a_campaign_of_two_jobs_leaves_nothing_in_the_temp_dir(tmp_path, private_tmpdir) -> None:
    """``--jobs 2``: both workers' files go to the campaign's scratch, emptied at the end
    (``private_tmpdir`` checks the temp dir), and both workers ended as they should."""
    command = [sys.executable, "-m", "rechain", "fuzz", "parse-line", "--jobs", "2",
               "--runs", "200", "--time", "420", "--work", str(tmp_path / "work"), "--json"]
    done = subprocess.run(command, capture_output=True, timeout=720, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0
    assert sorted(w["worker"] for w in report["workers"]) == [1, 2] and report["died"] == []
    assert list((tmp_path / "work" / "tmp").glob("*")) == []
