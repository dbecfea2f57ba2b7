"""A reader's scratch left by a rechain killed outright goes at the next run; nothing else."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from rechain.conformance.owned_dirs import LOCK, make_owned, owned, release, sweep

MAKER = """
import os, signal, sys
from rechain.conformance.owned_dirs import make_owned
print(make_owned("rechain-t2-", sys.argv[1]), flush=True)
if sys.argv[2] == "die":
    os.kill(os.getpid(), signal.SIGKILL)  # no clean-up runs
sys.stdin.read()  # alive until the test closes stdin
"""


def _maker(parent: Path, how: str) -> tuple[subprocess.Popen[str], Path]:
    proc = subprocess.Popen([sys.executable, "-c", MAKER, str(parent), how],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


def test_a_killed_makers_directory_goes_at_the_next_make(tmp_path: Path) -> None:
    proc, left = _maker(tmp_path, "die")
    proc.communicate()
    assert left.is_dir() and (left / LOCK).exists()
    mine = make_owned("rechain-t2-", str(tmp_path))
    assert not left.exists() and mine.is_dir()
    release(mine)
    assert list(tmp_path.iterdir()) == []


def test_a_live_makers_directory_and_unlocked_ones_are_kept(tmp_path: Path) -> None:
    proc, live = _maker(tmp_path, "live")
    foreign = tmp_path / "rechain-t2-older"  # an older rechain's (or anyone's): no lock file
    foreign.mkdir()
    try:
        assert sweep("rechain-t2-", str(tmp_path)) == []
        assert live.is_dir() and foreign.is_dir()
    finally:
        proc.communicate("")
    assert sweep("rechain-t2-", str(tmp_path)) == [live]  # it closed without releasing
    assert foreign.is_dir()


def test_owned_removes_its_directory(tmp_path: Path) -> None:
    with owned("rechain-t1-", str(tmp_path)) as path:
        (path / "case.jsonl").write_text("{}")
        assert sweep("rechain-t1-", str(tmp_path)) == []  # held by this very process
    assert list(tmp_path.iterdir()) == []
