"""A child that leaves its process group (``setsid``) still ends with the run that started it.

Readers and fuzz targets run in a process group of their own, stopped with a signal to the
group; a daemonising child calls ``setsid()`` and is out of the group, so the group kill
missed it and it ran on after the case or run. Each reader or target here starts such a
child (it writes its pid once it has left the group, and sleeps an hour); once the case or
run is over that pid must be gone. The bounds are safety limits, not speed claims; every
child left behind by a failing test is killed by its fixture.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace

import pytest
from processes import running

from rechain.conformance.bench import limited
from rechain.conformance.marked import NAME, RUN_NAME, Mark, unmarked
from rechain.conformance.oracles.claude_cli import ClaudeCliOracle
from rechain.conformance.protocol import CaseInput, Crashed, ImplementationInfo, TimedOut
from rechain.conformance.protocol_process import Harness, Limits, OneShot
from rechain.fuzz import groups, worker

pytestmark = pytest.mark.skipif(not Path("/proc/self/environ").exists(),
                                reason="needs Linux /proc")
needs_atheris = pytest.mark.skipif(importlib.util.find_spec("atheris") is None,
                                   reason="atheris is not installed")

SAFETY_S = 30  # how long a killed process may take to be gone: never a speed claim
SID = "0b4f6f1e-3c2a-4d5e-9f00-123456789abc"
CASE = CaseInput("c1", b"", SID)

#: the child: leaves its parent's process group and session, then says so with its pid
ESCAPEE = """
import os, sys, time
os.setsid()
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
time.sleep(3600)
"""
#: what a reader or target runs to start it: ``leave()`` returns once the child has left
LEAVE = """
import os, subprocess, sys, time

def leave():
    subprocess.Popen([sys.executable, {escapee!r}, {pid_file!r}], stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    for _ in range(6000):
        if os.path.exists({pid_file!r}):
            return
        time.sleep(0.01)
"""


class Escape:
    """A child that escapes its group: ``source`` defines ``leave()``, ``pid_file`` gets
    its pid once it has escaped."""

    def __init__(self, directory: Path) -> None:
        self.escapee = directory / "escapee.py"
        self.escapee.write_text(ESCAPEE)
        self.pid_file = directory / "escaped.pid"
        self.source = LEAVE.format(escapee=str(self.escapee), pid_file=str(self.pid_file))

    def script(self, body: str) -> str:
        """A program that defines ``leave()`` and then runs ``body``."""
        return self.source + textwrap.dedent(body)

    def pid(self) -> int:
        assert self.pid_file.is_file(), "the reader never started its child"
        return int(self.pid_file.read_text())

    def gone(self) -> bool:
        """Whether the escaped child has ended (waiting for a SIGKILL to land)."""
        pid = self.pid()
        deadline = time.monotonic() + SAFETY_S
        while running(pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        return not running(pid)

    def kill(self) -> None:
        """Kill the child if it is still there (and is the child: its pid not reused)."""
        if not self.pid_file.is_file():
            return
        pid = int(self.pid_file.read_text())
        try:
            ours = str(self.escapee).encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return
        if ours and running(pid):
            os.kill(pid, signal.SIGKILL)


@pytest.fixture
def escape(tmp_path: Path) -> Iterator[Escape]:
    child = Escape(tmp_path)
    try:
        yield child
    finally:
        child.kill()


def _write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


# --- the mark ---------------------------------------------------------------------------------


def test_a_sweep_kills_what_carries_the_mark_and_nothing_else(tmp_path: Path) -> None:
    mark = Mark()
    sleep = [sys.executable, "-c", "import time; time.sleep(3600)"]
    near_misses = [
        {**unmarked(), NAME: mark.token + "0"},  # another token that starts like it
        {**unmarked(), "OTHER": mark.entry},  # the entry inside another variable's value
        Mark().on(),  # another tree
    ]
    started = [subprocess.Popen(sleep, env=env, start_new_session=True)
               for env in [mark.on(), *near_misses]]
    try:
        assert mark.sweep() == 1
        marked, *others = started
        assert marked.wait(SAFETY_S) == -signal.SIGKILL
        assert all(other.poll() is None for other in others), "a sweep killed an unmarked one"
        assert mark.sweep() == 0
    finally:
        for process in started:
            process.kill()
            process.wait()


def test_the_worker_strips_the_marks_by_their_own_names() -> None:
    """In a reader's venv the worker has only ``rechain.fuzz``: its copy of the names."""
    assert (worker.TREE_MARK, worker.RUN_MARK) == (NAME, RUN_NAME)


#: a child that leaves the reader's process tree too (a double fork: its parent is init
#: once the middle process ends), says its pid, then holds 300 MiB, every page touched
HOARDER = """
import os, sys, time
if os.fork():
    os._exit(0)
os.setsid()
with open(sys.argv[1] + ".tmp", "w") as out:
    out.write(str(os.getpid()))
os.replace(sys.argv[1] + ".tmp", sys.argv[1])
kept = b"x" * (300 << 20)
time.sleep(3600)
"""


# --- readers under test -----------------------------------------------------------------------


def test_a_one_shot_reader_that_answers_leaves_nothing_running(escape: Escape) -> None:
    script = _write(escape.escapee.parent / "reader.py",
                    escape.script("leave()\nprint('[]')\n"))
    reader = OneShot([sys.executable, str(script)], ImplementationInfo("one", "1", "python"))
    reader.run(CASE)
    assert escape.gone(), "a child that left the reader's group outlived its case"


def test_a_one_shot_reader_stopped_at_its_limit_leaves_nothing_running(
        escape: Escape) -> None:
    script = _write(escape.escapee.parent / "reader.py",
                    escape.script("leave()\ntime.sleep(3600)\n"))
    reader = OneShot([sys.executable, str(script)], ImplementationInfo("one", "1", "python"),
                     Limits(timeout=1))
    assert isinstance(reader.run(CASE), TimedOut)
    assert escape.gone(), "a child that left the reader's group outlived its timeout"


def test_a_harness_leaves_nothing_running_once_closed(escape: Escape) -> None:
    info = {"name": "faux", "version": "1", "language": "python"}
    script = _write(escape.escapee.parent / "harness.py", escape.script(f"""
        import json
        for line in sys.stdin:
            request = json.loads(line)
            if request["cmd"] == "start":
                leave()
                print(json.dumps({{"version": 1, "implementation": {info!r}}}), flush=True)
            elif request["cmd"] == "stop":
                break
            else:
                print(json.dumps({{"seq": request["seq"], "result": {{"messages": []}}}}),
                      flush=True)
    """))
    reader = Harness([sys.executable, str(script)])
    try:
        reader.run(CASE)
    finally:
        reader.close()
    assert escape.gone(), "a child that left the harness's group outlived the harness"


def test_a_bench_run_leaves_nothing_running(escape: Escape) -> None:
    script = escape.script("leave()\nprint('{\"s\": 0.1}')\n")
    done = limited.run([sys.executable, "-c", script], {"PATH": "/usr/bin:/bin"},
                       limited.Bounds(600))
    assert done.found == {"s": 0.1}
    assert escape.gone(), "a child that left the measured run's group outlived it"


def test_a_cli_oracle_run_leaves_nothing_running(escape: Escape, tmp_path: Path) -> None:
    code, _ = ClaudeCliOracle._run(SimpleNamespace(timeout=60),  # type: ignore[arg-type]
                                   [sys.executable, "-c", escape.script("leave()\n")], {},
                                   tmp_path)
    assert code == 0
    assert escape.gone(), "a child that left the CLI's group outlived the CLI run"


# --- fuzz targets -----------------------------------------------------------------------------


def test_a_run_of_a_target_leaves_nothing_running(escape: Escape) -> None:
    done = groups.run([sys.executable, "-c", escape.script("leave()\nprint('bye')\n")], 600)
    assert (done.returncode, done.stdout) == (0, b"bye\n")
    assert escape.gone(), "a child that left the run's group outlived the run"


def test_what_left_the_group_ends_with_a_rechain_killed_outright(escape: Escape) -> None:
    """The guard, a shell left to act once rechain is gone, sweeps the mark too."""
    target = escape.script("leave()\ntime.sleep(3600)\n")
    rechain = subprocess.Popen([sys.executable, "-c", "import sys\n"
                                "from rechain.fuzz import groups\n"
                                "groups.run([sys.executable, '-c', sys.argv[1]], 3600)\n",
                                target])
    try:
        for _ in range(1200):
            if escape.pid_file.is_file():
                break
            assert rechain.poll() is None, "the run ended before the target started its child"
            time.sleep(0.1)
    finally:
        rechain.kill()
        rechain.wait()
    assert escape.gone(), "a child that left the group outlived a rechain killed outright"


@needs_atheris
def test_a_fuzz_campaign_leaves_nothing_running(escape: Escape, tmp_path: Path) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    _write(mine / "leaver.py", escape.source + textwrap.dedent(f"""
        def read(data: bytes) -> int:
            if data and not os.path.exists({str(escape.pid_file)!r}):
                leave()
            return 0
    """))
    env = {**unmarked(), "PYTHONPATH": str(mine)}
    done = subprocess.run([sys.executable, "-m", "rechain", "fuzz", "--target", "leaver:read",
                           "--time", "2", "--work", str(tmp_path / "work")],
                          env=env, cwd=tmp_path, capture_output=True, text=True, timeout=600,
                          check=False)
    assert escape.pid_file.is_file(), done.stderr[-2000:]
    assert escape.gone(), "a child that left the worker's group outlived the campaign"


def test_a_one_shot_reader_is_charged_for_a_child_that_left_its_tree(escape: Escape) -> None:
    """The memory watchdog walked the reader's process tree: a double-forked child is out
    of it, and held 300 MiB under a 150 MiB limit until the case ended."""
    escape.escapee.write_text(HOARDER)
    script = _write(escape.escapee.parent / "reader.py",
                    escape.script("leave()\ntime.sleep(3600)\n"))
    reader = OneShot([sys.executable, str(script)], ImplementationInfo("one", "1", "python"),
                     Limits(timeout=120, memory_mb=150))
    outcome = reader.run(CASE)
    assert isinstance(outcome, Crashed), outcome
    assert outcome.message == "memory limit of 150 MiB exceeded"
    assert escape.gone()


def test_a_bench_run_is_charged_for_a_child_that_left_its_tree(escape: Escape) -> None:
    escape.escapee.write_text(HOARDER)
    script = escape.script("leave()\ntime.sleep(3600)\n")
    done = limited.run([sys.executable, "-c", script], {"PATH": "/usr/bin:/bin"},
                       limited.Bounds(120, memory_mb=150))
    assert done.stopped == "over 150 MB"
    assert escape.gone()


#: what a reader or measured run does once it has left a child out of its group: leaves
#: one in its group too, says its pid, and waits to be killed with rechain
STAYS = """
leave()
stayer = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(3600)"])
with open({path!r} + ".tmp", "w") as out:
    out.write(str(stayer.pid))
os.replace({path!r} + ".tmp", {path!r})
time.sleep(3600)
"""
#: a rechain that runs one tier-1 case of ``sys.argv[1]``, or one measured run of it
RECHAINS = {
    "a one-shot reader": (
        "import sys\n"
        "from rechain.conformance.protocol import CaseInput, ImplementationInfo\n"
        "from rechain.conformance.protocol_process import Limits, OneShot\n"
        "OneShot([sys.executable, sys.argv[1]], ImplementationInfo('one', '1', 'python'),\n"
        "        Limits(timeout=3600)).run(CaseInput('c1', b'', sys.argv[2]))\n"),
    "a measured run": (
        "import sys\n"
        "from rechain.conformance.bench import limited\n"
        "limited.run([sys.executable, sys.argv[1]], {'PATH': '/usr/bin:/bin'},\n"
        "            limited.Bounds(3600))\n"),
}


@pytest.mark.parametrize("rechain_source", RECHAINS.values(), ids=RECHAINS.keys())
def test_what_a_reader_left_ends_with_a_rechain_killed_outright(
        escape: Escape, rechain_source: str) -> None:
    """Only the process rechain started died with it (``PR_SET_PDEATHSIG``): its group's
    children and what left the group ran on, with no rechain left to kill them. The run's
    guard sweeps every process carrying the run's mark."""
    stayer_file = escape.pid_file.parent / "stayer.pid"
    script = _write(escape.pid_file.parent / "reader.py",
                    escape.script(STAYS.format(path=str(stayer_file))))
    rechain = subprocess.Popen([sys.executable, "-c", rechain_source, str(script), SID],
                               env=unmarked())
    stayer = 0
    try:
        for _ in range(1200):
            if stayer_file.is_file():
                break
            assert rechain.poll() is None, "rechain ended before the reader started its children"
            time.sleep(0.1)
        stayer = int(stayer_file.read_text())
        rechain.kill()
        rechain.wait()
        assert escape.gone(), "a child that left the group outlived a rechain killed outright"
        deadline = time.monotonic() + SAFETY_S
        while running(stayer) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(stayer), "a child in the reader's group outlived rechain"
    finally:
        rechain.kill()
        rechain.wait()
        if stayer and running(stayer):
            os.kill(stayer, signal.SIGKILL)


def test_a_rechain_that_ends_leaves_its_run_guard_to_end_too() -> None:
    """The guard waits on a pipe only rechain holds: it ends with rechain, every time, and
    a helper started unmarked (a clean-up shell) is left be. A rechain that exits is not
    told that it left a subprocess running and a pipe open (ResourceWarning at shutdown)."""
    # the helper is started by a shell that exits at once: this rechain leaves no
    # subprocess of its own but the guard
    source = ("import subprocess\n"
              "from rechain.conformance.marked import Mark, unmarked, _RUN\n"
              "Mark().on()\n"
              "helper = subprocess.run(['/bin/sh', '-c', 'sleep 3600 >/dev/null 2>&1 & echo $!'],\n"
              "                        env=unmarked(Mark().on()), start_new_session=True,\n"
              "                        capture_output=True, check=True).stdout.decode()\n"
              "print(_RUN[0][1].pid, helper, flush=True)\n")
    done = subprocess.run([sys.executable, "-X", "dev", "-W", "error", "-c", source],
                          capture_output=True, text=True, timeout=600, check=True,
                          env=unmarked())
    guard, helper = map(int, done.stdout.split())
    try:
        assert done.stderr == "", "the guard was left to the interpreter's shutdown"
        deadline = time.monotonic() + SAFETY_S
        while running(guard) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not running(guard), "the run guard outlived its rechain"
        assert running(helper), "the run guard killed an unmarked helper"
    finally:
        if running(helper):
            os.kill(helper, signal.SIGKILL)
