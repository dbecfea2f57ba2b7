"""Running a target under the worker: processes, time budget, restarts, statistics.

One target at a time: ``jobs`` worker processes share a corpus directory for
``seconds`` of wall time. A worker ends early when libFuzzer catches a hang or
a memory blow-up; the runner files that artefact as a finding and starts a new
worker for the time that is left. Executions, executions per second and
coverage come from libFuzzer's status lines; CPU time from the children's
resource usage. A third-party reader runs with its venv's interpreter, a
private HOME and ``CLAUDE_CONFIG_DIR``, and rechain's worker code made
importable through a small shim directory.
"""

from __future__ import annotations

import os
import re
import resource
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from rechain.conformance.lifetime import dies_with_parent
from rechain.fuzz import dictionary, seeds
from rechain.fuzz.contract import Contract
from rechain.fuzz.findings import FindingStore, load_findings
from rechain.fuzz.registry import Target
from rechain.fuzz.worker import read_last_input

if TYPE_CHECKING:
    from rechain.shard import Shard

#: ``#123 NEW cov: 4 ft: 5``, or in fork mode the parent's ``#123: cov: 4 ft: 5``
_STATUS = re.compile(rb"^#(\d+):?\s+(?:(\w+)\s+)?cov: (\d+) ft: (\d+)")
_FINAL = re.compile(rb"^stat::(\w+):\s+(\d+)")
#: the innermost frame of the Python stack Atheris dumps at a timeout (most recent first)
_DUMP = re.compile(rb"^(Current thread|Thread) 0x[0-9a-f]+ .*most recent call first")
_FRAME = re.compile(rb'^\s+File "(.+)", line (\d+) in (.+)$')
_ARTEFACTS = {"timeout": "timeout", "oom": "oom", "crash": "crash", "leak": "leak"}
MAX_RESTARTS = 25


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


@dataclass(slots=True)
class Report:
    """What one target's run produced."""

    target: str
    spec: str
    wall_s: float = 0.0
    cpu_s: float = 0.0
    executions: int = 0
    coverage: list[tuple[float, int, int, int]] = field(default_factory=list)
    restarts: int = 0
    findings: list[dict[str, Any]] = field(default_factory=list)
    new_findings: list[str] = field(default_factory=list)
    log: str = ""

    @property
    def exec_per_s(self) -> float:
        return self.executions / self.wall_s if self.wall_s else 0.0

    def to_json(self) -> dict[str, Any]:
        final = self.coverage[-1] if self.coverage else (0.0, 0, 0, 0)
        return {
            "target": self.target,
            "spec": self.spec,
            "wall_s": round(self.wall_s, 2),
            "cpu_s": round(self.cpu_s, 2),
            "executions": self.executions,
            "exec_per_s": round(self.exec_per_s, 1),
            "exec_per_cpu_s": round(self.executions / self.cpu_s, 1) if self.cpu_s else 0.0,
            "coverage": {"cov": final[2], "ft": final[3], "samples": self.coverage[-40:]},
            "restarts": self.restarts,
            "findings": [{k: v for k, v in f.items() if k != "traceback"} for f in self.findings],
            "new_findings": self.new_findings,
            "log": self.log,
        }


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


def _worker(target: Target, settings: Settings, dirs: dict[str, Path]) -> list[str]:
    """The worker process and its own options (libFuzzer's flags come after ``--``)."""
    command = [python_of(settings.venv), "-m", "rechain.fuzz.worker", "--target", target.spec]
    command += ["--findings", str(dirs["findings"])]
    if settings.jobs == 1 and "last" in dirs:  # -fork children would share it
        command += ["--last-input", str(dirs["last"])]
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
    runs: int | None = None,
) -> list[str]:
    """The worker's command line; ``runs`` (default ``settings.runs``) caps its executions."""
    command = _worker(target, settings, dirs)
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
    if settings.jobs > 1:  # libFuzzer's own fork mode: N child processes, one corpus
        flags.append(f"-fork={settings.jobs}")
    if contract.transcripts:
        flags.append(f"-dict={dirs['dict']}")
    command += ["--", *flags, str(dirs["corpus"]), str(dirs["seeds"])]
    if settings.nice:
        command = ["nice", "-n", str(settings.nice), *command]
    return command


def prepare(target: Target, settings: Settings, contract: Contract) -> dict[str, Path]:
    """The target's work directories, seed corpus and dictionary."""
    base = settings.work / target.name
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


class _Reader(threading.Thread):
    """Reads a worker's stderr: status lines to statistics, everything to the log."""

    def __init__(self, stream: IO[bytes], log: IO[bytes], start: float, report: Report) -> None:
        super().__init__(daemon=True)
        self.stream, self.log, self.began, self.report = stream, log, start, report
        self.last_execs = 0
        self.final: dict[str, int] = {}
        #: where the target was when the worker's last stack dump was written (a hang)
        self.stuck_at = ""
        self._in_dump = False

    def run(self) -> None:
        for line in self.stream:
            self.log.write(line)
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
                execs, cov, ft = int(status[1]), int(status[3]), int(status[4])
                self.last_execs = execs
                point = (round(time.monotonic() - self.began, 2), execs, cov, ft)
                coverage = self.report.coverage
                if not coverage or point[0] - coverage[-1][0] >= 1.0 or cov > coverage[-1][2]:
                    coverage.append(point)
                continue
            final = _FINAL.match(line)
            if final:
                self.final[final[1].decode()] = int(final[2])

    @property
    def executions(self) -> int:
        return self.final.get("number_of_executed_units", self.last_execs)


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
        done = subprocess.run(
            command, capture_output=True, env=env, cwd=neutral_cwd(settings),
            timeout=3 * bound + 30, check=False,
        )
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


def run(target: Target, settings: Settings) -> Report:
    """Fuzz one target for ``settings.seconds``; the report lists every finding on file."""
    settings.work = settings.work.resolve()  # workers start in it: paths must be absolute
    contract = contract_for(target, settings)
    dirs = prepare(target, settings, contract)
    report = Report(target.name, target.spec, log=str(dirs["log"]))
    store = FindingStore(dirs["findings"], target.spec)
    known = {f["signature"] for f in load_findings(dirs["findings"])}
    seen_artefacts = {p.name for p in dirs["artefacts"].iterdir()}
    env = environment(target, settings)
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    deadline = start + settings.seconds
    with dirs["log"].open("ab") as log:
        while True:
            left = int(deadline - time.monotonic())
            if left < 1:  # --time 0: only report (and file) what is on record
                break
            runs = settings.runs
            if runs is not None:  # a restart runs what the campaign has left
                runs = max(runs - report.executions, 1)
            command = worker_command(target, settings, contract, dirs, left, runs)
            dirs["last"].unlink(missing_ok=True)
            workers = [
                subprocess.Popen(
                    command, stdout=log, stderr=subprocess.PIPE, env=env,
                    cwd=neutral_cwd(settings), preexec_fn=dies_with_parent(),
                )
                for _ in range(1)  # --jobs N is libFuzzer's -fork=N inside it
            ]
            readers = [_Reader(w.stderr, log, start, report) for w in workers]  # type: ignore[arg-type]
            for reader in readers:
                reader.start()
            codes = [w.wait() for w in workers]
            for reader in readers:
                reader.join()
            report.executions += sum(r.executions for r in readers)
            before = set(seen_artefacts)
            file_artefacts(
                dirs["artefacts"],
                seen_artefacts,
                store,
                lambda path: hang_confirmed(target, settings, contract, dirs, path),
                next((r.stuck_at for r in readers if r.stuck_at), ""),
            )
            for name in sorted(seen_artefacts - before):
                if (dirs["artefacts"] / name).is_file():  # filed (not set aside unconfirmed)
                    set_aside(dirs, (dirs["artefacts"] / name).read_bytes())
            ended = [code for code, reader in zip(codes, readers, strict=True)
                     if not reader.final]
            last = read_last_input(dirs["last"]) if ended and seen_artefacts == before else None
            if last is not None:  # no artefact, no statistics: the target ended the worker
                data, ran = last
                report.executions += ran - sum(r.executions for r in readers)
                detail = (f"the worker ended (exit code {ended[0]}) while running this input, "
                          "before libFuzzer could report: the target ended the process")
                store.record_artifact("exit", data, detail)
                set_aside(dirs, data)
                codes = [1]
            if all(code == 0 for code in codes) or report.restarts >= MAX_RESTARTS:
                break
            if settings.runs is not None and report.executions >= settings.runs:
                break
            if time.monotonic() >= deadline - 1:
                break
            report.restarts += 1
    report.wall_s = time.monotonic() - start
    shutil.rmtree(scratch_dir(settings), ignore_errors=True)  # the workers' leftovers
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    report.cpu_s = (cpu_after.ru_utime - cpu_before.ru_utime) + (
        cpu_after.ru_stime - cpu_before.ru_stime
    )
    report.findings = load_findings(dirs["findings"])
    report.new_findings = [f["signature"] for f in report.findings if f["signature"] not in known]
    return report
