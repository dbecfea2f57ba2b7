"""An oracle's scratch a rechain killed outright left goes at the next run; nothing else does.

The SDK oracles' workers and each CLI run lay transcripts out in a scratch directory
(``/dev/shm`` when there is one: memory, kept until the machine restarts). Each maker
runs here in a child process with a private scratch root and is killed with SIGKILL,
so no clean-up of its runs; the next maker of the same kind must remove what it left,
and leave a directory without a lock file (another program's) alone.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from rechain.conformance.oracles import scratch

SAFETY_S = 300  # a stuck child, not a slow one

# (prefix, code that makes the scratch as the oracle does and binds ``where``, code that ends it)
MAKERS = {
    "sdk-worker": ("rechain-ts-",
                   "from rechain.conformance.oracles.ts_sdk import TsSdkOracle\n"
                   "oracle = TsSdkOracle()\noracle._child_env()\nwhere = oracle.workdir",
                   "oracle.close()"),
    "cli-run": ("rechain-cli-",
                "from rechain.conformance.oracles.scratch import scratch\n"
                "run = scratch('rechain-cli-')\nwhere = run.__enter__()",
                "run.__exit__(None, None, None)"),
}
CHILD = "import sys\n{make}\nprint(where, flush=True)\nsys.stdin.read()\n{end}\n"


def _start(kind: str, root: Path) -> tuple[subprocess.Popen[str], Path]:
    _, make, end = MAKERS[kind]
    env = {**os.environ, scratch.ENV: str(root)}
    proc = subprocess.Popen([sys.executable, "-c", CHILD.format(make=make, end=end)], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, Path(proc.stdout.readline().strip())


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_killed_oracles_scratch_goes_at_the_next_run_and_no_one_elses(
        kind: str, tmp_path: Path, private_tmpdir: Path) -> None:
    prefix = MAKERS[kind][0]
    root = tmp_path / "scratch"
    root.mkdir()
    foreign = root / f"{prefix}someone-else"  # no lock file: never ours to remove
    foreign.mkdir()
    (foreign / "keep").write_text("x")
    dead, left = _start(kind, root)
    try:
        assert left.parent == root.resolve() and left.is_dir()
        dead.send_signal(signal.SIGKILL)
        assert dead.wait(timeout=SAFETY_S) == -signal.SIGKILL
    finally:
        dead.kill()
        dead.communicate()
    assert left.is_dir()  # nothing cleaned up after the kill
    alive, made = _start(kind, root)
    try:
        assert made.is_dir() and made != left
        assert not left.exists()
        assert (foreign / "keep").read_text() == "x"
    finally:
        alive.communicate("", timeout=SAFETY_S)
    assert alive.returncode == 0
    assert sorted(p.name for p in root.iterdir()) == [foreign.name]
