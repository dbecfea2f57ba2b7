"""``rechain fuzz --shard I/N``: each machine starts from its own slice of the seed corpus."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys

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
               "--runs", "100", "--time", "900", "--work", str(tmp_path), "--json"]
    done = subprocess.run(command, capture_output=True, timeout=600, check=False)
    assert done.returncode in (0, 1), done.stderr.decode()[-2000:]
    [report] = json.loads(done.stdout)
    assert report["executions"] > 0
    assert any((tmp_path / "parse-line" / "seeds-2of3").iterdir())
    assert not (tmp_path / "parse-line" / "seeds").exists()
