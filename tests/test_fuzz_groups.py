"""Every run of a target is stopped with its process group: nothing the target started
outlives it (a replay, the hang check, the import probe, a shrinking step).

Each target here starts ``sleep 3600`` and writes its pid to a file; once the run is
over, that pid must be gone. The bounds are safety limits, not speed claims.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from processes import running

from rechain.fuzz import groups
from rechain.fuzz.probe import probe
from rechain.fuzz.registry import Target
from rechain.fuzz.regressions import replay_one, write_regression
from rechain.fuzz.runner import Settings, contract_for, hang_confirmed

needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")
pytestmark = pytest.mark.skipif(not Path("/proc/self/stat").exists(),
                                reason="needs Linux /proc")

#: on an input starting with ``spawn`` the target starts a child and never returns
SPAWNS = '''
import subprocess, time

def read(data: bytes) -> int:
    if data.startswith(b"spawn"):
        child = subprocess.Popen(["sleep", "3600"], stdout=subprocess.DEVNULL,
                                 stderr=subprocess.DEVNULL)
        with open({pids!r}, "w") as out:
            out.write(str(child.pid))
        while True:
            time.sleep(1)
    return 0
'''


def _gone(pid_file: Path) -> bool:
    """Whether the child whose pid the target wrote has ended (waiting for its SIGKILL to
    land); it is killed here either way, so a failing test leaves no orphan."""
    pid = int(pid_file.read_text())
    try:
        for _ in range(100):
            if not running(pid):
                return True
            time.sleep(0.1)
        return False
    finally:
        if running(pid):
            os.kill(pid, signal.SIGKILL)


def test_a_replay_that_hangs_takes_what_its_target_started_with_it(tmp_path: Path) -> None:
    mine, pids = tmp_path / "mine", tmp_path / "pid"
    mine.mkdir()
    (mine / "spawner.py").write_text(SPAWNS.format(pids=str(pids)))
    finding = {"exception": "timeout", "where": "spawner.py:read:8", "message": "hangs",
               "signature": "timeout@spawner:read", "target": "spawner:read"}
    case = write_regression("spawner-read", finding, b"spawn\n", "0", root=tmp_path / "regs",
                            paths=(mine,), bounds={"timeout_s": 1})
    env = {**os.environ, "PYTHONPATH": str(mine)}
    outcome = replay_one(case, sys.executable, env)
    assert (outcome.failed, outcome.signature) == (True, "timeout@spawner:read")
    assert _gone(pids), "the target's child outlived the replay"


def test_the_import_probe_takes_what_the_module_started_with_it(tmp_path: Path) -> None:
    pids = tmp_path / "pid"
    (tmp_path / "starts_one.py").write_text(textwrap.dedent(f'''
        import subprocess
        child = subprocess.Popen(["sleep", "3600"])  # holds the probe's output open
        with open({str(pids)!r}, "w") as out:
            out.write(str(child.pid))

        def read(data: bytes) -> int:
            return len(data)
    '''))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    try:
        found = probe("starts_one:read", sys.executable, env, tmp_path)
    finally:
        assert _gone(pids), "the module's child outlived the probe"
    assert found.path == tmp_path.absolute()


@needs_atheris
def test_the_hang_check_takes_what_its_target_started_with_it(tmp_path: Path) -> None:
    mine, pids = tmp_path / "mine", tmp_path / "pid"
    mine.mkdir()
    (mine / "spawner.py").write_text(SPAWNS.format(pids=str(pids)))
    target = Target("spawner", "spawner:read", user=True)
    settings = Settings(0, work=tmp_path / "work", timeout_s=1, paths=(mine,))
    contract = contract_for(target, settings)
    dirs = {"findings": tmp_path / "findings"}
    dirs["findings"].mkdir()
    hang = tmp_path / "timeout-hang"
    hang.write_bytes(b"spawn")
    assert hang_confirmed(target, settings, contract, dirs, hang)
    assert _gone(pids), "the target's child outlived the hang check"


def test_a_run_past_its_bound_is_stopped_with_its_group_and_keeps_what_it_wrote(
    tmp_path: Path,
) -> None:
    pids = tmp_path / "pid"
    script = f'sleep 3600 & echo $! > {pids}; echo started; wait'
    with pytest.raises(subprocess.TimeoutExpired) as stopped:
        groups.run(["/bin/sh", "-c", script], 1)
    assert stopped.value.stdout == b"started\n"
    assert _gone(pids), "the child outlived the run"


def test_a_child_left_holding_the_output_ends_with_its_run(tmp_path: Path) -> None:
    """The run's own end ends it, and its open output does not keep the caller waiting."""
    pids = tmp_path / "pid"
    done = groups.run(["/bin/sh", "-c", f"sleep 3600 & echo $! > {pids}; echo bye"], 3600)
    assert (done.returncode, done.stdout) == (0, b"bye\n")
    assert _gone(pids), "the child outlived the run"


def test_what_a_target_started_ends_with_a_rechain_killed_outright(tmp_path: Path) -> None:
    """A CI step's timeout SIGKILLs rechain mid-replay: the worker dies with it (its parent
    death signal), and so must the child the target started beside it."""
    pids = tmp_path / "pid"
    target = ("import subprocess, time\n"
              "child = subprocess.Popen(['sleep', '3600'])\n"
              f"open({str(pids)!r}, 'w').write(str(child.pid))\n"
              "time.sleep(3600)\n")
    rechain = subprocess.Popen([sys.executable, "-c", "import sys\n"
                                "from rechain.fuzz import groups\n"
                                "groups.run([sys.executable, '-c', sys.argv[1]], 3600)\n",
                                target])
    _kill_once_child_started(rechain, pids, "the run ended before the target started its child")
    assert _gone(pids), "the target's child outlived a rechain killed outright"


@needs_atheris
def test_what_a_fuzzed_target_started_ends_with_a_runner_killed_outright(
    tmp_path: Path,
) -> None:
    mine, pids = tmp_path / "mine", tmp_path / "pid"
    mine.mkdir()
    (mine / "spawner.py").write_text(SPAWNS.replace('data.startswith(b"spawn")', "data")
                                     .format(pids=str(pids)))
    env = {**os.environ, "PYTHONPATH": str(mine)}
    runner = subprocess.Popen([sys.executable, "-m", "rechain", "fuzz", "--target",
                               "spawner:read", "--time", "600", "--timeout", "3600",
                               "--work", str(tmp_path / "work")], env=env, cwd=tmp_path,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _kill_once_child_started(runner, pids, "the campaign ended before the target's child")
    assert _gone(pids), "the target's child outlived a runner killed outright"


def _kill_once_child_started(rechain: subprocess.Popen[bytes], pids: Path, early: str) -> None:
    """SIGKILL ``rechain`` (as a CI step's timeout does) once the target it runs has written
    its child's pid to ``pids``; ``early``: what it means if rechain ended before that."""
    try:
        for _ in range(1200):
            if pids.is_file() and pids.read_text():
                break
            assert rechain.poll() is None, early
            time.sleep(0.1)
    finally:
        rechain.kill()
        rechain.wait()


def test_a_run_that_prints_without_end_is_stopped_at_the_output_limit() -> None:
    """A target printing on every input, run for its whole bound, wrote gigabytes to the
    run's files and had them read whole into rechain's memory (1.5 GB in one second)."""
    # 300 MiB, past the limit (an endless writer, without the limit, would fill the disk)
    done = groups.run(["/bin/sh", "-c", "echo first; head -c 314572800 /dev/zero; echo end"],
                      3600)
    assert done.returncode == -signal.SIGXFSZ
    assert "more than 256 MiB of output" in groups.ended(done.returncode)
    assert done.stdout.startswith(b"first\n\0") and done.stdout.endswith(b"\0\0")
    left_out = groups.OUTPUT_LIMIT - 2 * groups.KEPT_BYTES
    assert groups.LEFT_OUT % left_out in done.stdout
    assert len(done.stdout) == 2 * groups.KEPT_BYTES + len(groups.LEFT_OUT % left_out)


def test_a_short_output_is_read_back_whole(tmp_path: Path) -> None:
    said = bytes(range(256)) * 9
    with (tmp_path / "out").open("w+b") as stream:
        stream.write(said)
        assert groups.kept(stream, keep=len(said) // 2) == said
        assert groups.kept(stream, keep=100) == said[:100] + groups.LEFT_OUT % (
            len(said) - 200) + said[-100:]
