"""Running a target under the worker: processes, time budget, restarts, statistics.

One target at a time: ``jobs`` worker processes, each started and watched by the
runner, share a corpus directory (libFuzzer reloads what the others added) for
``seconds`` of wall time. A worker ends early when libFuzzer catches a hang or a
memory blow-up, or when the target ends the process; the runner files that as a
finding and starts a new worker in its place for the time that is left. Every
worker's exit is kept (``WorkerExit``): one that died for another reason (its
harness failed to start, a signal) is reported and fails the run. ``seconds`` is a
hard bound: libFuzzer does not look at its own time limit while it runs the seed
corpus, so past ``seconds`` + ``GRACE_S`` the runner stops every worker's process
group and reports the campaign as cut. Executions, executions per second and
coverage (the best any worker reached) come from libFuzzer's status lines; CPU time
from the children's resource usage. A third-party reader runs with its venv's
interpreter, a private HOME and ``CLAUDE_CONFIG_DIR``, and rechain's worker code
made importable through a small shim directory.
"""

from __future__ import annotations

import hashlib
import os
import queue
import re
import resource
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rechain import interrupts
from rechain.conformance.jsonl_process import STDERR_PIECE
from rechain.conformance.lifetime import dies_with_parent
from rechain.conformance.marked import Mark
from rechain.fuzz import dictionary, groups, seeds
from rechain.fuzz.contract import Contract
from rechain.fuzz.findings import FindingStore, load_findings
from rechain.fuzz.groups import halt, sweep
from rechain.fuzz.registry import Target
from rechain.fuzz.worker import read_last_input

if TYPE_CHECKING:
    from rechain.shard import Shard

#: ``#123 NEW cov: 4 ft: 5 corp: ...``; libFuzzer leaves ``cov:`` and ``ft:`` out while
#: they are 0, so a line without them says 0 (a target that reports no coverage)
_STATUS = re.compile(rb"^#(\d+)\s+(INITED|NEW|REDUCE|pulse|DONE|RELOAD)\s")
_COV = re.compile(rb"\scov: (\d+)")
_FT = re.compile(rb"\sft: (\d+)")
_FINAL = re.compile(rb"^stat::(\w+):\s+(\d+)")
#: how many inputs libFuzzer runs first (it runs an empty input before them)
_SEEDS = re.compile(rb"^INFO: seed corpus: files: (\d+)")
#: libFuzzer saved the input it stopped on (a hang, a blow-up, a crash)
_WROTE = re.compile(rb"Test unit written to (\S+)")
#: the innermost frame of the Python stack Atheris dumps at a timeout (most recent first)
_DUMP = re.compile(rb"^(Current thread|Thread) 0x[0-9a-f]+ .*most recent call first")
_FRAME = re.compile(rb'^\s+File "(.+)", line (\d+) in (.+)$')
_ARTEFACTS = {"timeout": "timeout", "oom": "oom", "crash": "crash", "leak": "leak"}
MAX_RESTARTS = 25
#: how long a worker told to stop (SIGTERM) gets before it is killed
STOP_S = 10
#: how long past ``--time`` workers get to end on their own (libFuzzer's own time limit
#: counts from its start, after the target's imports) before the campaign is cut
GRACE_S = 10


@dataclass(slots=True)
class Settings:
    """How long and how hard to fuzz one target."""

    seconds: float
    jobs: int = 1
    venv: Path | None = None
    work: Path = Path("fuzz-work")
    max_len: int | None = None
    timeout_s: int | None = None
    rss_mb: int | None = None
    runs: int | None = None
    nice: int = 0
    mutator: bool = True
    #: exceptions (``module.Name``) that are documented outcomes of a plain reader
    allow: tuple[str, ...] = ()
    #: start from this slice of the seed corpus only (``--shard I/N`` on N machines)
    shard: Shard | None = None
    #: put first on the workers' PYTHONPATH (a user's module found in their directory)
    paths: tuple[Path, ...] = ()
    #: ``venv`` is the named target's own (under the cache): the name already says which
    #: reader it is, so its work directory is the target's name alone
    own_venv: bool = False


@dataclass(frozen=True, slots=True)
class WorkerExit:
    """How one worker process ended.

    ``outcome``: ``finished`` (libFuzzer's time or run limit), ``artefact`` (libFuzzer
    stopped it on an input it saved: a hang, a blow-up, a crash), ``target-ended`` (the
    target ended the process; its input is an ``exit`` finding), ``stopped`` (by a Ctrl-C
    or SIGTERM of the run), ``cut`` (still running at the campaign's deadline) or ``died``
    (anything else: the harness failed to start, a signal before any input; it fails the
    run). ``cov`` and ``ft`` are the most its status lines said; ``seeds`` is the size of
    the seed corpus it was given and ``seeds_left`` how many of them it had not started
    when it was cut (None when it was past them, or did not say).
    """

    worker: int
    code: int
    executions: int
    outcome: str
    said: str = ""
    cov: int = 0
    ft: int = 0
    seeds: int | None = None
    seeds_left: int | None = None

    def status(self) -> str:
        """``exit code 3`` or ``killed by SIGKILL``."""
        ours = self.outcome in ("stopped", "cut")  # rechain sent it, past STOP_S
        oom = self.code == -signal.SIGKILL and not ours
        return groups.ended(self.code) + (" (the kernel's OOM killer sends it)" if oom else "")

    def to_json(self) -> dict[str, Any]:
        return {"worker": self.worker, "code": self.code, "status": self.status(),
                "executions": self.executions, "outcome": self.outcome, "said": self.said,
                "cov": self.cov, "ft": self.ft, "seeds": self.seeds,
                "seeds_left": self.seeds_left}


@dataclass(slots=True)
class Report:
    """What one target's run produced."""

    target: str
    spec: str
    wall_s: float = 0.0
    cpu_s: float = 0.0
    executions: int = 0
    #: samples (seconds, a worker's executions, the best cov and ft of any worker so far)
    coverage: list[tuple[float, int, int, int]] = field(default_factory=list)
    #: the most any worker's status lines said (each worker's own is in ``workers``)
    cov: int = 0
    ft: int = 0
    restarts: int = 0
    findings: list[dict[str, Any]] = field(default_factory=list)
    new_findings: list[str] = field(default_factory=list)
    log: str = ""
    #: the environment the target ran in (its venv's directory, or rechain's own)
    reader: str = ""
    venv: str | None = None
    workers: list[WorkerExit] = field(default_factory=list)
    #: the Ctrl-C or SIGTERM that ended the run early (the report is of what it did)
    stopped: KeyboardInterrupt | None = None
    #: for a campaign in a venv: the target's plain store, and how many of its findings
    #: do not record their reader (campaigns in any venv once shared that store)
    unattributed: tuple[str, int] | None = None
    #: the ``--time`` of a campaign whose workers were still running at ``--time`` +
    #: ``GRACE_S`` and were stopped (None: every worker ended on its own)
    cut: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def sample(self, seconds: float, execs: int, cov: int, ft: int) -> None:
        """Fold in one status line of any worker: the best coverage so far is kept."""
        with self._lock:
            best = cov > self.cov
            self.cov, self.ft = max(self.cov, cov), max(self.ft, ft)
            if not self.coverage or best or seconds - self.coverage[-1][0] >= 1.0:
                self.coverage.append((seconds, execs, self.cov, self.ft))

    @property
    def exec_per_s(self) -> float:
        return self.executions / self.wall_s if self.wall_s else 0.0

    def to_json(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "spec": self.spec,
            "wall_s": round(self.wall_s, 2),
            "cpu_s": round(self.cpu_s, 2),
            "executions": self.executions,
            "exec_per_s": round(self.exec_per_s, 1),
            "exec_per_cpu_s": round(self.executions / self.cpu_s, 1) if self.cpu_s else 0.0,
            "coverage": {"cov": self.cov, "ft": self.ft, "samples": self.coverage[-40:],
                         "note": coverage_note(self.executions, self.cov,
                                               bool(self.coverage))},
            "restarts": self.restarts,
            "reader": self.reader,
            "venv": self.venv,
            "workers": [w.to_json() for w in self.workers],
            "died": [w.to_json() for w in self.workers if w.outcome == "died"],
            "stopped": None if self.stopped is None else interrupts.said(self.stopped),
            "cut": None if self.cut is None else {
                "time_s": self.cut, "grace_s": GRACE_S,
                "seeds_left": [{"worker": w.worker, "left": w.seeds_left, "of": w.seeds}
                               for w in self.workers if w.seeds_left is not None]},
            "unattributed": None if self.unattributed is None else {
                "findings": self.unattributed[0], "count": self.unattributed[1]},
            "findings": [{k: v for k, v in f.items() if k != "traceback"} for f in self.findings],
            "new_findings": self.new_findings,
            "log": self.log,
        }


def coverage_note(executions: int, cov: int, sampled: bool = True) -> str:
    """What ``cov 0`` means when inputs ran, and what to do about it ("" otherwise)."""
    if executions == 0 or cov:
        return ""
    if not sampled:
        return ("cov 0 ft 0: not measured: libFuzzer printed no status line before its "
                "workers ended (while they ran the seeds: an input ended them, or --runs was "
                "reached), so coverage is unknown, not zero")
    return ("cov 0 ft 0: inputs ran but no instrumented code reported coverage, so libFuzzer "
            "had nothing to steer by and only mutated blindly (findings still count). Only "
            "the target's own top-level package is instrumented: a reader whose code is in "
            "another package (an adapter's target), compiled (a C extension), run in another "
            "process, or a function without a branch, reports none. Fuzz a function of the "
            "reader's own package, name its package with --instrument PKG, or call it in "
            "this process (--venv DIR for its environment)")


def reader_of(settings: Settings) -> str:
    """The environment a campaign's target runs in: its venv's directory, else rechain's."""
    return os.path.realpath(settings.venv if settings.venv is not None else sys.prefix)


def campaign_name(target: Target, settings: Settings) -> str:
    """The target's work directory name: for a reader in a venv other than its own, the
    venv too (``NAME@VENV-HASH``), so campaigns against two readers keep their findings
    apart; rechain's own interpreter and a named target's own venv keep the plain name."""
    if settings.venv is None or settings.own_venv:
        return target.name
    real = os.path.realpath(settings.venv)
    return f"{target.name}@{Path(real).name}-{hashlib.sha1(real.encode()).hexdigest()[:8]}"


def findings_dir(target: Target, settings: Settings) -> Path:
    return settings.work / campaign_name(target, settings) / "findings"


def python_of(venv: Path | None) -> str:
    return str(venv / "bin" / "python") if venv is not None else sys.executable


def shim_dir(work: Path) -> Path:
    """A directory holding ``rechain/fuzz`` (a link to this package) for foreign venvs."""
    root = work / "shim"
    package = root / "rechain"
    package.mkdir(parents=True, exist_ok=True)
    (package / "__init__.py").write_text('"""Only rechain.fuzz, for a reader\'s venv."""\n')
    link = package / "fuzz"
    if not link.exists():
        link.symlink_to(Path(__file__).resolve().parent, target_is_directory=True)
    return root


def scratch_dir(settings: Settings) -> Path:
    """Where a worker's temporary files go (its ``TMPDIR``): libFuzzer ends a worker with
    C ``exit()``, so Python never removes what it made; the runner empties this instead."""
    return settings.work / "tmp"


def environment(target: Target, settings: Settings) -> dict[str, str]:
    """The worker's environment: a private HOME and config dir for third-party readers,
    temporary files in the runner's scratch directory."""
    env = dict(os.environ)
    if settings.work.is_dir():  # a worker runs only once ``prepare`` made the work directory
        scratch = scratch_dir(settings)
        scratch.mkdir(exist_ok=True)
        env["TMPDIR"] = str(scratch)
    if settings.venv is not None:
        home = settings.work / "home"
        (home / ".claude").mkdir(parents=True, exist_ok=True)
        env.update(HOME=str(home), CLAUDE_CONFIG_DIR=str(home / ".claude"))
        env["PYTHONPATH"] = str(shim_dir(settings.work))
        env.pop("VIRTUAL_ENV", None)
    if settings.paths:
        inherited = [env["PYTHONPATH"]] if env.get("PYTHONPATH") else []
        env["PYTHONPATH"] = os.pathsep.join([*map(str, settings.paths), *inherited])
    env["RECHAIN_FUZZ_TARGET"] = target.name
    return env


def neutral_cwd(settings: Settings) -> Path:
    """Where workers start: not a source tree whose ``rechain/`` would hide the shim's."""
    settings.work.mkdir(parents=True, exist_ok=True)
    return settings.work


def contract_for(target: Target, settings: Settings) -> Contract:
    """The declared contract of a harness of ours; the default one for a reader in a venv."""
    if target.third_party or settings.venv is not None:
        return Contract(input="path" if target.input is None else target.input)
    if target.user:
        return Contract(input=target.input or "bytes",
                        description=f"{target.spec}: any exception is a finding")
    from rechain.fuzz.target import load

    return load(target.spec)[1]


def _worker(
    target: Target, settings: Settings, dirs: dict[str, Path], last: Path | None = None
) -> list[str]:
    """The worker process and its own options (libFuzzer's flags come after ``--``)."""
    command = [python_of(settings.venv), "-m", "rechain.fuzz.worker", "--target", target.spec]
    command += ["--findings", str(dirs["findings"])]
    if last is not None:
        command += ["--last-input", str(last)]
    if target.input:
        command += ["--input", target.input]
    for package in target.instrument:
        command += ["--instrument", package]
    for module in target.scope:
        command += ["--scope", module]
    if not settings.mutator:
        command.append("--no-mutator")
    for name in settings.allow:
        command += ["--allow", name]
    return command


def worker_command(
    target: Target, settings: Settings, contract: Contract, dirs: dict[str, Path], seconds: int,
    runs: int | None = None, last: Path | None = None,
) -> list[str]:
    """The worker's command line; ``runs`` (default ``settings.runs``) caps its executions,
    ``last`` is where it keeps the input it is running."""
    command = _worker(target, settings, dirs, last)
    flags = [
        f"-max_total_time={max(seconds, 1)}",
        f"-timeout={settings.timeout_s or contract.timeout_s}",
        f"-rss_limit_mb={settings.rss_mb or contract.rss_mb}",
        f"-max_len={settings.max_len or contract.max_len}",
        f"-artifact_prefix={dirs['artefacts']}/",
        "-print_final_stats=1",
        # a custom mutator turns length control off: short transcripts first are faster;
        # Hypothesis-driven harnesses need long buffers from the start
        f"-len_control={100 if contract.transcripts else 0}",
    ]
    runs = settings.runs if runs is None else runs
    if runs is not None:
        flags.append(f"-runs={runs}")
    if contract.transcripts:
        flags.append(f"-dict={dirs['dict']}")
    command += ["--", *flags, str(dirs["corpus"]), str(dirs["seeds"])]
    if settings.nice:
        command = ["nice", "-n", str(settings.nice), *command]
    return command


def prepare(target: Target, settings: Settings, contract: Contract) -> dict[str, Path]:
    """The target's work directories, seed corpus and dictionary."""
    base = settings.work / campaign_name(target, settings)
    dirs = {name: base / name for name in ("corpus", "seeds", "findings", "artefacts")}
    if settings.shard is not None:
        dirs["seeds"] = base / f"seeds-{settings.shard.index}of{settings.shard.count}"
    for path in dirs.values():
        path.mkdir(parents=True, exist_ok=True)
    if contract.seeds != "none" and not any(dirs["seeds"].iterdir()):
        seeds.build(dirs["seeds"], settings.max_len or contract.max_len, contract.seeds,
                    shard=settings.shard)
    seeds.write(dirs["seeds"], contract.examples)
    dirs["dict"] = dictionary.write(base / "transcript.dict")
    dirs["log"] = base / "worker.log"
    dirs["last"] = base / "last-input"
    return dirs


def last_input(dirs: dict[str, Path], worker: int) -> Path:
    """Worker ``worker``'s (from 1) copy of the input it is running."""
    return dirs["last"] if worker == 1 else dirs["last"].with_name(f"last-input-{worker}")


class CappedLog:
    """A worker's share of the campaign log: what one of its streams writes, up to
    ``groups.OUTPUT_LIMIT`` bytes, then one line saying the rest is left out. A target
    that prints on every input, or without end in a hang, would fill the disk."""

    def __init__(self, log: IO[bytes], prefix: bytes = b"", limit: int = groups.OUTPUT_LIMIT,
                 ) -> None:
        self.log, self.prefix, self.left = log, prefix, limit

    def write(self, data: bytes) -> None:
        if self.left <= 0:
            return
        piece = self.prefix + data
        self.left -= len(piece)
        if self.left > 0:
            self.log.write(piece)
        else:
            self.log.write(piece[: len(piece) + self.left] + b"\n" + self.prefix +
                           b"[rechain: the rest of this stream is left out of the log: "
                           b"over %d MiB]\n" % (groups.OUTPUT_LIMIT >> 20))


def copy_capped(stream: IO[bytes], log: CappedLog) -> None:
    """A worker's stdout (what the target prints) into its share of the log, read to its
    end whatever is kept, so the worker never blocks on a full pipe."""
    for piece in iter(lambda: stream.read1(STDERR_PIECE), b""):  # type: ignore[attr-defined]
        log.write(piece)


class _Reader(threading.Thread):
    """Reads a worker's stderr: status lines to statistics, everything to the log (up to
    its cap: ``CappedLog``)."""

    def __init__(self, stream: IO[bytes], log: IO[bytes], start: float, report: Report,
                 prefix: bytes = b"") -> None:
        super().__init__(daemon=True)
        self.stream, self.began, self.report = stream, start, report
        self.log = CappedLog(log, prefix)
        self.last_execs = 0
        #: the artefacts libFuzzer said it wrote, and the last line (why a worker died)
        self.wrote: list[str] = []
        self.last_line = ""
        self.final: dict[str, int] = {}
        #: the most this worker's status lines said, its seed corpus' size, and whether
        #: it got past it (``INITED``)
        self.cov = self.ft = 0
        self.seeds: int | None = None
        self.inited = False
        #: where the target was when the worker's last stack dump was written (a hang)
        self.stuck_at = ""
        self._in_dump = False

    def run(self) -> None:
        # a line without end is read in pieces: rechain never holds more of it
        for line in iter(lambda: self.stream.readline(STDERR_PIECE), b""):
            self.log.write(line)
            if line.strip():
                self.last_line = line.decode("utf-8", "replace").strip()[:300]
            wrote = _WROTE.search(line)
            if wrote:
                self.wrote.append(wrote[1].decode("utf-8", "replace"))
            if _DUMP.match(line):
                self._in_dump, self.stuck_at = True, ""
                continue
            frame = _FRAME.match(line) if self._in_dump else None
            self._in_dump = frame is not None
            if frame:  # the innermost frame outside the standard library, else the innermost
                name = frame[1].decode("utf-8", "replace")
                stdlib = "/lib/python3" in name and "-packages/" not in name
                place = "/".join(Path(name).parts[-2:])
                place = f"{place}:{frame[3].decode('utf-8', 'replace')}:{int(frame[2])}"
                if not stdlib:
                    self._in_dump = False
                if not stdlib or not self.stuck_at:
                    self.stuck_at = place
                continue
            status = _STATUS.match(line)
            if status:
                cov_said, ft_said = _COV.search(line), _FT.search(line)
                execs = int(status[1])
                cov, ft = int(cov_said[1]) if cov_said else 0, int(ft_said[1]) if ft_said else 0
                self.last_execs = execs
                self.cov, self.ft = max(self.cov, cov), max(self.ft, ft)
                self.inited = self.inited or status[2] != b"pulse"
                self.report.sample(round(time.monotonic() - self.began, 2), execs, cov, ft)
                continue
            seeds = _SEEDS.match(line)
            if seeds:
                self.seeds = int(seeds[1])
                continue
            final = _FINAL.match(line)
            if final:
                self.final[final[1].decode()] = int(final[2])

    @property
    def executions(self) -> int:
        return self.final.get("number_of_executed_units", self.last_execs)

    def seeds_left(self, executions: int) -> int | None:
        """How many seed inputs this worker had not started (None: past them, or unsaid).

        libFuzzer runs an empty input first, then each seed once, then says ``INITED``."""
        if self.inited or self.seeds is None:
            return None
        return min(self.seeds, max(self.seeds - max(executions - 1, 0), 0))


def hang_confirmed(
    target: Target, settings: Settings, contract: Contract, dirs: dict[str, Path], path: Path
) -> bool:
    """Whether ``path`` still times out when run once alone, at normal priority.

    libFuzzer's timeout is wall time: a worker at ``nice 19`` on a loaded machine can
    pass it on an input that takes milliseconds. A hang is filed only if it is one.
    """
    bound = settings.timeout_s or contract.timeout_s
    command = [*_worker(target, settings, dirs), "--", f"-timeout={bound}", str(path)]
    env = environment(target, settings)
    try:
        done = groups.run(command, 3 * bound + 30, env=env, cwd=neutral_cwd(settings))
    except subprocess.TimeoutExpired:
        return True
    return done.returncode != 0


def file_artefacts(
    directory: Path, seen: set[str], store: FindingStore, confirm: Callable[[Path], bool],
    stuck_at: str = "",
) -> list[str]:
    """File new libFuzzer artefacts (hangs, blow-ups, hard crashes) as findings.

    A timeout that does not time out again when replayed is renamed ``unconfirmed-...``
    and not filed; a hang's record says where the target was (``stuck_at``, from the
    stack the worker dumped), so a user need not dig it out of the log."""
    new: list[str] = []
    for path in sorted(directory.iterdir()):
        kind = path.name.split("-")[0]
        if path.name in seen or kind not in _ARTEFACTS:
            continue
        seen.add(path.name)
        if kind == "timeout" and not confirm(path):
            path.rename(path.with_name(f"unconfirmed-{path.name}"))
            continue
        detail, where = f"libFuzzer {kind} artefact {path.name}", ""
        if kind == "timeout" and stuck_at:
            detail = f"still running past the time bound at {stuck_at} ({path.name})"
            where = stuck_at.rpartition(":")[0]  # a loop's lines are one hang: key by function
        if store.record_artifact(_ARTEFACTS[kind], path.read_bytes(), detail, where):
            new.append(f"{kind}@{where or store.target}")
    return new


def set_aside(dirs: dict[str, Path], data: bytes) -> int:
    """Take the artefact's input out of the seeds and the corpus; returns how many copies.

    A hang, blow-up or hard crash ends the worker, and the next worker starts by running
    the corpus again: an input that does so among the seeds ended every restart at the
    same place, and the campaign never got past its seeds (``cov 0``). The input is kept
    as the finding's."""
    removed = 0
    for folder in (dirs["corpus"], dirs["seeds"]):
        for path in folder.iterdir():
            if path.is_file() and path.stat().st_size == len(data) and path.read_bytes() == data:
                path.unlink()
                removed += 1
    return removed


class _Campaign:
    """The workers of one run: started, watched, settled one by one as they end.

    At ``--time`` + ``GRACE_S`` a timer's thread stops the workers still running, also
    while the main thread is busy (replaying a hang to confirm it)."""

    def __init__(self, target: Target, settings: Settings, log: IO[bytes]) -> None:
        self.target, self.settings, self.log = target, settings, log
        self.contract = contract_for(target, settings)
        self.dirs = prepare(target, settings, self.contract)
        self.report = Report(target.name, target.spec, log=str(self.dirs["log"]),
                             reader=reader_of(settings),
                             venv=str(settings.venv) if settings.venv is not None else None)
        self.store = FindingStore(self.dirs["findings"], target.spec, reader=self.report.reader)
        self.store.fold()  # what workers of a campaign killed outright left in their tallies
        self.seen = {p.name for p in self.dirs["artefacts"].iterdir()}
        self.env = environment(target, settings)
        self.start = time.monotonic()
        self.deadline = self.start + settings.seconds
        self.ended: queue.Queue[tuple[int, subprocess.Popen[bytes], _Reader]] = queue.Queue()
        self.running: dict[int, subprocess.Popen[bytes]] = {}
        self.ran = dict.fromkeys(range(1, settings.jobs + 1), 0)
        #: guards ``running`` between the main thread and the deadline's timer
        self.lock = threading.Lock()
        #: the workers the deadline stopped (their ends are not the target's doing)
        self.cut_off: set[int] = set()
        self.timer = threading.Timer(settings.seconds + GRACE_S, self.cut)
        self.timer.daemon = True

    def launch(self, worker: int) -> bool:
        """Start worker ``worker`` for the time (and runs) it has left; False if none."""
        left = int(self.deadline - time.monotonic())
        runs = self.settings.runs
        if runs is not None:  # a restart runs what this worker has left
            runs -= self.ran[worker]
        if left < 1 or (runs is not None and runs < 1):  # --time 0: only report what is on record
            return False
        with self.lock:
            return self._start(worker, left, runs)

    def _start(self, worker: int, left: int, runs: int | None) -> bool:
        last = last_input(self.dirs, worker)
        last.unlink(missing_ok=True)
        command = worker_command(self.target, self.settings, self.contract, self.dirs, left,
                                 runs, last)
        # a process group of its own: stopping it stops whatever the target started too,
        # and its mark finds what left the group
        mark = Mark()
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                   env=mark.on(self.env), cwd=neutral_cwd(self.settings),
                                   start_new_session=True, preexec_fn=dies_with_parent())
        watcher = groups.guard(process.pid, mark)  # what the target started, if rechain is killed
        prefix = f"[worker {worker}] ".encode() if self.settings.jobs > 1 else b""
        reader = _Reader(process.stderr, self.log, self.start, self.report, prefix)  # type: ignore[arg-type]
        printed = threading.Thread(target=copy_capped, daemon=True,
                                   args=(process.stdout, CappedLog(self.log)))

        def watch() -> None:
            reader.start()
            printed.start()
            process.wait()
            sweep(process.pid, mark)  # what the target left running (it may hold the pipe open)
            groups.release(watcher)
            reader.join()
            printed.join()
            self.ended.put((worker, process, reader))

        self.running[worker] = process
        threading.Thread(target=watch, daemon=True).start()
        return True

    def settle(self, worker: int, code: int, reader: _Reader) -> WorkerExit:
        """File what a worker that ended left (artefacts, the input it ended on)."""
        if worker in self.cut_off and not reader.wrote:
            return self.halted(worker, code, reader)
        with self.lock:
            del self.running[worker]
        executions = reader.executions
        before = set(self.seen)
        file_artefacts(self.dirs["artefacts"], self.seen, self.store,
                       lambda path: hang_confirmed(self.target, self.settings, self.contract,
                                                   self.dirs, path),
                       reader.stuck_at)
        for name in sorted(self.seen - before):
            if (self.dirs["artefacts"] / name).is_file():  # filed (not set aside unconfirmed)
                set_aside(self.dirs, (self.dirs["artefacts"] / name).read_bytes())
        outcome = "artefact" if reader.wrote else "finished" if code == 0 else "died"
        last = None
        if not reader.final and not reader.wrote:
            last = read_last_input(last_input(self.dirs, worker))
        if last is not None:  # no artefact, no statistics: the target ended the worker
            data, executions = last
            status = WorkerExit(worker, code, executions, "").status()
            detail = (f"the worker ended ({status}) while running this input, "
                      "before libFuzzer could report: the target ended the process")
            self.store.record_artifact("exit", data, detail)
            set_aside(self.dirs, data)
            outcome = "target-ended"
        elif not reader.final and not reader.wrote:  # ended before its first input
            outcome = "died"
        self.ran[worker] += executions
        self.report.executions += executions
        said = reader.last_line if outcome == "died" else ""
        return WorkerExit(worker, code, executions, outcome, said, reader.cov, reader.ft)

    def halted(self, worker: int, code: int, reader: _Reader) -> WorkerExit:
        """What a worker stopped by the run (``stopped``) or its deadline (``cut``) ran: the
        inputs it started, from its shared copy when it was killed before its statistics;
        nothing is filed for the input it was stopped in."""
        with self.lock:
            del self.running[worker]
        executions = reader.executions
        if not reader.final:
            kept = read_last_input(last_input(self.dirs, worker))
            executions = max(executions, kept[1] if kept is not None else 0)
        self.report.executions += executions
        cut = worker in self.cut_off
        return WorkerExit(worker, code, executions, "cut" if cut else "stopped", "",
                          reader.cov, reader.ft, reader.seeds,
                          reader.seeds_left(executions) if cut else None)

    def cut(self) -> None:
        """At ``--time`` + ``GRACE_S`` (the timer's thread): stop the workers still running
        (libFuzzer runs its whole seed corpus before it looks at its own time limit)."""
        with self.lock:
            late = {w: p for w, p in self.running.items() if p.poll() is None}
            if not late:
                return
            self.report.cut = self.settings.seconds
            self.cut_off.update(late)
        halt(list(late.values()), STOP_S)

    def stop(self) -> None:
        """End the workers still running and all they started (a Ctrl-C, SIGTERM or the
        end of the run): SIGTERM to each group, SIGKILL past ``STOP_S``."""
        self.timer.cancel()
        with self.lock:
            running = list(self.running.values())
        halt(running, STOP_S)

    def drain(self) -> None:
        """After ``stop``: count what the stopped workers ran; an artefact a worker cut at
        the deadline wrote just before is filed."""
        while self.running:
            try:
                worker, process, reader = self.ended.get(timeout=STOP_S)
            except queue.Empty:
                break
            if worker in self.cut_off:
                self.report.workers.append(self.settle(worker, process.returncode, reader))
            else:
                self.report.workers.append(self.halted(worker, process.returncode, reader))

    def go(self) -> None:
        """Run the workers until none is left; a worker stopped on an input is replaced."""
        for worker in range(1, self.settings.jobs + 1):
            if not self.launch(worker):
                break
        self.timer.start()
        while self.running:
            try:
                worker, process, reader = self.ended.get(timeout=1.0)
            except queue.Empty:
                continue
            ended = self.settle(worker, process.returncode, reader)
            self.report.workers.append(ended)
            again = ended.outcome in ("artefact", "target-ended")
            if again and self.report.restarts < MAX_RESTARTS and self.launch(worker):
                self.report.restarts += 1


def run(target: Target, settings: Settings) -> Report:
    """Fuzz one target for ``settings.seconds``; the report lists every finding on file.

    A Ctrl-C or SIGTERM stops the workers and returns the report so far (``stopped``);
    either way the findings' counts are folded in before it is made."""
    settings.work = settings.work.resolve()  # workers start in it: paths must be absolute
    settings.work.mkdir(parents=True, exist_ok=True)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    log_path = settings.work / campaign_name(target, settings) / "worker.log"
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with log_path.open("ab") as log:
        campaign = _Campaign(target, settings, log)
        report, dirs = campaign.report, campaign.dirs
        known = {f["signature"] for f in load_findings(dirs["findings"])}
        try:
            campaign.go()
        except KeyboardInterrupt as stop:
            report.stopped = stop
        finally:
            campaign.stop()
            campaign.drain()
            campaign.store.fold()  # every worker has ended: the counts are exact
    report.wall_s = time.monotonic() - campaign.start
    shutil.rmtree(scratch_dir(settings), ignore_errors=True)  # the workers' leftovers
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report.cpu_s = (cpu_after.ru_utime - cpu_before.ru_utime) + (
        cpu_after.ru_stime - cpu_before.ru_stime
    )
    report.findings = load_findings(dirs["findings"])
    report.new_findings = [f["signature"] for f in report.findings if f["signature"] not in known]
    report.unattributed = unattributed(target, settings)
    return report


def unattributed(target: Target, settings: Settings) -> tuple[str, int] | None:
    """For a campaign in a venv of its own store: the target's plain store and how many of
    its findings name no reader (None when there are none, or this is that store)."""
    plain = settings.work / target.name / "findings"
    if campaign_name(target, settings) == target.name or not plain.is_dir():
        return None
    count = sum(1 for finding in load_findings(plain) if not finding.get("reader"))
    return (str(plain), count) if count else None
