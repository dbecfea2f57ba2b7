"""Tier 0 (``python:MODULE:FUNCTION``) runs in worker processes: a reader that loops or
allocates without end is stopped by the per-case limits, and the run goes on."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from rechain.conformance.impls import connect
from rechain.conformance.protocol import Answered, CaseInput, Crashed, Raised, TimedOut
from rechain.conformance.protocol_process import Limits, rss_mb, tree_status_kb
from rechain.errors import UsageError

SID = "5e55a1d0-0b1e-4c0d-9e1a-6b2c3d4e5f60"
TIMEOUT_S = 5
MEMORY_MB = 300
JOBS = 2
MARGIN_S = 120  # a safety limit on the whole run (start-up on a loaded machine), not a speed claim
CASES = ["--case", "cycle-*", "--case", "assistant-*", "--case", "compaction-plain"]

RUNAWAY = textwrap.dedent('''
    """Readers that answer like the reference, except on a file whose parentUuid chain
    from the last row has a cycle: a naive walk without a cycle guard."""
    import json

    from rechain.reference import Options, rebuild


    def _parents(data):
        parents, last = {}, None
        for line in data.splitlines():
            try:
                row = json.loads(line)
            except ValueError:
                continue
            if isinstance(row, dict) and isinstance(row.get("uuid"), str):
                parents[row["uuid"]] = row.get("parentUuid")
                last = row["uuid"]
        return parents, last


    def plain(data, session_id, options):
        print("the reader's own stdout")  # must never reach a report
        chosen = Options(include_system_messages=bool(options.get("include_system_messages")),
                         limit=options.get("limit"), offset=int(options.get("offset") or 0))
        result = rebuild(data, "sdk", chosen, session_id=session_id)
        if result.error is not None:
            raise TypeError(result.error)
        return [{k: v for k, v in m.items() if k != "line"} for m in result.messages]


    def spins(data, session_id, options):
        parents, current = _parents(data)
        while current in parents:  # forever on a cycle, allocating nothing
            current = parents[current]
        return plain(data, session_id, options)


    def hoards(data, session_id, options):
        parents, current = _parents(data)
        chain = []
        while current in parents:  # forever on a cycle, a MiB more each step
            chain.append(b"x" * (1 << 20))
            current = parents[current]
        return plain(data, session_id, options)
''')


@dataclass(frozen=True)
class Measured:
    """One rechain run: exit code, output, the report, and what it cost."""

    code: int
    stdout: str
    stderr: str
    report: list[dict]
    wall_s: float
    tree_peak_mb: float  # rechain and all its workers together, sampled every 20 ms
    largest_mb: float  # the largest single process: its VmHWM (peak since exec), sampled

    def statuses(self) -> dict[str, str]:
        return {line["id"]: line["status"] for line in self.report if line["kind"] == "case"}

    def cost(self) -> str:
        return (f"wall {self.wall_s:.1f} s, peak {self.tree_peak_mb:.0f} MiB for the whole "
                f"run, largest process {self.largest_mb:.0f} MiB")


def largest_hwm_mb(pid: int) -> float:
    """The largest peak resident memory (``VmHWM``) of ``pid`` or a descendant, in MiB.

    ``VmHWM`` counts from the process's exec; the kernel's ``ru_maxrss`` would also count
    the pages of the (large) test process that forked it, before the exec.
    """
    return max(tree_status_kb(pid, "VmHWM"), default=0) / 1024


def measured(args: list[str], cwd: Path, bound_s: float, cap_mb: float) -> Measured:
    """Run ``rechain ARGS`` in ``cwd``; kill it (and fail) past ``bound_s`` or ``cap_mb``."""
    report = cwd / "report.jsonl"
    report.unlink(missing_ok=True)
    if args[0] == "check":
        args = [*args, "--report", str(report)]
    out, err = cwd / "stdout.txt", cwd / "stderr.txt"
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    started = time.monotonic()
    with out.open("wb") as stdout, err.open("wb") as stderr:
        proc = subprocess.Popen([sys.executable, "-m", "rechain", *args],
                                cwd=cwd, stdout=stdout, stderr=stderr, env=env,
                                start_new_session=True)
    peak, largest = [0.0], [0.0]
    why: list[str] = []
    ended = threading.Event()  # set once wait4 has reaped it (never poll(): it would reap)

    def watch() -> None:
        while not ended.is_set():
            peak[0] = max(peak[0], rss_mb(proc.pid))
            largest[0] = max(largest[0], largest_hwm_mb(proc.pid))
            late = time.monotonic() - started > bound_s
            if late or peak[0] > cap_mb:
                why.append(f"still running after {bound_s:.0f} s" if late
                           else f"{peak[0]:.0f} MiB, past {cap_mb:.0f}")
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                return
            time.sleep(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    _, status, _usage = os.wait4(proc.pid, 0)
    ended.set()
    proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.monotonic() - started
    watcher.join()
    assert not why, f"rechain {' '.join(args)} was killed: {why[0]}"
    lines = [json.loads(line) for line in report.read_text().splitlines()] if (
        report.exists()) else []
    return Measured(proc.returncode, out.read_text(), err.read_text(), lines, wall, peak[0],
                    largest[0])


@pytest.fixture(scope="module")
def readers(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding ``runaway.py`` (found from there, without PYTHONPATH)."""
    where = tmp_path_factory.mktemp("tier0")
    (where / "runaway.py").write_text(RUNAWAY)
    return where


def check(readers: Path, function: str, cap_mb: float, bound_s: float) -> Measured:
    args = ["check", "--impl", f"python:runaway:{function}", *CASES, "--no-shrink",
            "--timeout", str(TIMEOUT_S), "--memory-mb", str(MEMORY_MB), "--jobs", str(JOBS),
            "--markdown", "-"]
    return measured(args, readers, bound_s, cap_mb)


@pytest.fixture(scope="module")
def baseline(readers: Path) -> Measured:
    """The same cases through the well-behaved reader."""
    run = check(readers, "plain", cap_mb=4 * MEMORY_MB, bound_s=MARGIN_S * 3)
    assert run.statuses(), run.stderr[-2000:]
    return run


@pytest.mark.parametrize(("function", "status", "limit"), [
    ("spins", "timeout", f"{TIMEOUT_S} s"),
    ("hoards", "crash", f"memory limit of {MEMORY_MB} MiB"),
])
def test_a_runaway_reader_is_stopped_and_every_other_case_keeps_its_result(
        readers: Path, baseline: Measured, function: str, status: str, limit: str) -> None:
    runaway = [case for case in baseline.statuses() if case.startswith("cycle-")]
    assert runaway, "the selection must hold cycle cases"
    bound = len(runaway) * TIMEOUT_S + MARGIN_S
    overhead_mb = 200  # rechain's own process and a second, idle worker
    run = check(readers, function, cap_mb=JOBS * MEMORY_MB + 4 * overhead_mb, bound_s=bound)
    cost = run.cost()
    print(f"{function}: {len(run.statuses())} cases, {len(runaway)} runaway; {cost}")
    assert run.code == 1, f"{cost}\n{run.stderr[-2000:]}"
    got = run.statuses()
    assert {case: got[case] for case in runaway} == dict.fromkeys(runaway, status), cost
    assert {c: s for c, s in got.items() if c not in runaway} == {
        c: s for c, s in baseline.statuses().items() if c not in runaway}, cost
    messages = [line["message"] for line in run.report
                if line["kind"] == "case" and line["id"] in runaway]
    assert all(limit in message for message in messages), messages
    assert run.largest_mb <= MEMORY_MB + 10, cost
    assert run.tree_peak_mb <= JOBS * MEMORY_MB + overhead_mb, cost
    assert "the reader's own stdout" not in run.stdout
    assert "# " in run.stdout  # the Markdown summary is there, clean


def test_the_module_is_found_from_the_current_directory_and_rechain_stays_untouched(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "cwd_reader.py").write_text(textwrap.dedent('''
        import os, sys
        RECHAIN_INFO = {"name": "cwd-reader", "version": 3, "choices": {"note": "as declared"}}
        def read(data, session_id):
            print("noise")
            return [{"type": "user", "uuid": session_id, "cwd": os.getcwd(),
                     "executable": sys.executable}]
    '''))
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("PYTHONPATH", raising=False)
    path_before = list(sys.path)
    reader = connect("python:cwd_reader:read", Limits(timeout=60))
    try:
        outcome = reader.run(CaseInput("c", b"", SID))
        assert isinstance(outcome, Answered)
        [message] = outcome.messages
        assert message["cwd"] == str(tmp_path) and message["uuid"] == SID
        assert reader.info.slug == "cwd-reader@3"
        assert reader.declared == {"name": "cwd-reader", "version": 3,  # type: ignore[attr-defined]
                                   "choices": {"note": "as declared"}}
    finally:
        reader.close()
    assert sys.path == path_before
    assert "cwd_reader" not in sys.modules


def test_a_module_that_does_not_import_or_lacks_the_function_is_one_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "broken_reader.py").write_text("import no_such_dependency_here\n")
    (tmp_path / "fine_reader.py").write_text("def read(data):\n    return []\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="cannot import broken_reader: ModuleNotFoundError"):
        connect("python:broken_reader:read")
    with pytest.raises(UsageError, match="fine_reader has no function nope") as missing:
        connect("python:fine_reader:nope")
    assert "\n" not in str(missing.value)


def test_a_venv_interpreter_runs_the_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    [site] = venv.glob("lib/python*/site-packages")
    (site / "venv_only_reader.py").write_text(textwrap.dedent('''
        import sys
        def read(data):
            return [{"type": "user", "uuid": "u1", "prefix": sys.prefix}]
    '''))
    monkeypatch.chdir(tmp_path)
    with pytest.raises(UsageError, match="cannot import venv_only_reader"):
        connect("python:venv_only_reader:read")
    reader = connect("python:venv_only_reader:read", Limits(timeout=60), venv=venv)
    try:
        outcome = reader.run(CaseInput("c", b"", SID))
        assert isinstance(outcome, Answered)
        assert Path(outcome.messages[0]["prefix"]).resolve() == venv.resolve()
    finally:
        reader.close()
    with pytest.raises(UsageError, match="not a virtual environment"):
        connect("python:venv_only_reader:read", venv=tmp_path / "nowhere")


def test_a_worker_past_a_limit_is_replaced_and_the_next_case_answers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "moody_reader.py").write_text(textwrap.dedent('''
        import os
        def read(data):
            if data == b"hang":
                while True:
                    pass
            if data == b"hog":
                hog = []
                while True:
                    hog.append(b"x" * (1 << 20))
            if data == b"raise":
                raise KeyError("k")
            return [{"type": "user", "uuid": str(os.getpid())}]
    '''))
    monkeypatch.chdir(tmp_path)
    reader = connect("python:moody_reader:read", Limits(timeout=5, memory_mb=200))
    try:
        first = reader.run(CaseInput("ok", b"", SID))
        assert isinstance(first, Answered)
        assert reader.run(CaseInput("r", b"raise", SID)) == Raised("KeyError", "'k'")
        hog = reader.run(CaseInput("hog", b"hog", SID))
        assert isinstance(hog, Crashed) and "memory limit of 200 MiB" in hog.message
        second = reader.run(CaseInput("ok", b"", SID))
        assert isinstance(second, Answered)
        assert second.messages[0]["uuid"] != first.messages[0]["uuid"]  # a fresh worker
        assert reader.run(CaseInput("hang", b"hang", SID)) == TimedOut(5)
        third = reader.run(CaseInput("ok", b"", SID))
        assert isinstance(third, Answered)
        assert third.messages[0]["uuid"] != second.messages[0]["uuid"]
    finally:
        reader.close()


def test_smoke_stops_a_hanging_reader(tmp_path: Path) -> None:
    (tmp_path / "hanging_reader.py").write_text("def read(data):\n    while True:\n        pass\n")
    run = measured(["smoke", "--impl", "python:hanging_reader:read", "--timeout", "2"],
                   tmp_path, bound_s=5 * 2 + MARGIN_S, cap_mb=1000)
    assert run.code == 1, run.stderr
    assert run.stdout.count("FAIL") == 5, run.stdout
