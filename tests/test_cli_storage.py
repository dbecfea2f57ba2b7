"""The ``rechain`` program writes nothing into the directory it is run from."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import configuration

from rechain import cli

_HOME = "__hypothesis_home_directory"  # Hypothesis' module global: where it keeps its files


def _home_seen_by_command(monkeypatch: pytest.MonkeyPatch) -> Path:
    """Where Hypothesis would write while ``command`` runs (its ``main`` stubbed)."""
    seen: list[Path] = []

    def stub(argv: object = None) -> int:
        seen.append(configuration.storage_directory("constants", intent_to_write=False).path)
        return 0

    monkeypatch.setattr(cli, "main", stub)
    before = vars(configuration)[_HOME]
    try:
        assert cli.command() == 0
    finally:
        configuration.set_hypothesis_home_dir(before)
    return seen[0]


def test_the_program_keeps_hypothesis_files_in_the_cache(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("HYPOTHESIS_STORAGE_DIRECTORY", raising=False)
    assert _home_seen_by_command(monkeypatch) == tmp_path / "cache" / "hypothesis" / "constants"


def test_hypothesis_storage_directory_still_says_where(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("RECHAIN_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("HYPOTHESIS_STORAGE_DIRECTORY", str(tmp_path / "chosen"))
    before = vars(configuration)[_HOME]
    configuration.set_hypothesis_home_dir(None)  # as in a fresh process: the variable decides
    try:
        assert _home_seen_by_command(monkeypatch) == tmp_path / "chosen" / "constants"
    finally:
        configuration.set_hypothesis_home_dir(before)


def test_a_check_leaves_the_working_directory_as_it_was(tmp_path: Path) -> None:
    cwd = tmp_path / "work"
    cwd.mkdir()
    env = {k: v for k, v in os.environ.items() if k != "HYPOTHESIS_STORAGE_DIRECTORY"}
    env["RECHAIN_CACHE"] = str(tmp_path / "cache")
    done = subprocess.run([sys.executable, "-m", "rechain", "check", "--examples", "3",
                           "--no-progress"], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert list(cwd.iterdir()) == []
