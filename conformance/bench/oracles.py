"""``rechain bench oracles``: cases per second of each reader on the same small transcripts.

Every reader answers the same generated transcripts (seeded, so runs compare) in one
run: the reference in process, the pinned SDK oracles one case per request (how a
run drove them before batches) and batched (how ``rechain check`` drives them now),
and the real CLI, slow, on the first ``--cli`` cases with ``--jobs`` processes at once.
Each row gives wall-clock cases/s and CPU per case: this process plus its children
(worker processes alive throughout are read from ``/proc``, finished ones from
``getrusage``). On a shared machine wall time measures the load; CPU time does not,
so ``cpu_rate`` (cases per CPU second) and ``cores_bound`` (cores ÷ CPU per case, what
the machine allows with every core busy) are the figures to compare.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rechain.conformance.bench import targets
from rechain.conformance.bench.capacity import available_cores
from rechain.conformance.owned_dirs import owned
from rechain.conformance.protocol import CaseInput, Outcome
from rechain.conformance.runner import BATCH, run_many, run_one

CLOCK = os.sysconf("SC_CLK_TCK")


def generated_cases(count: int, seed: int, max_entries: int = 20) -> list[CaseInput]:
    """``count`` transcripts drawn by the strategies, the same for the same seed."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as seeded

    from rechain.strategies.scripts import transcripts

    drawn: list[CaseInput] = []

    @seeded(seed)
    @settings(max_examples=count, database=None, deadline=None, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck))
    @given(transcripts(max_entries=max_entries))
    def draw(transcript: Any) -> None:
        if len(drawn) < count:
            drawn.append(CaseInput(f"g{len(drawn)}", transcript.to_bytes(),
                                   transcript.session_id))

    draw()
    return drawn


def _descendants() -> dict[int, float]:
    """CPU seconds of every live descendant process, by pid (Linux ``/proc``)."""
    found: dict[int, float] = {}
    todo = [os.getpid()]
    while todo:
        pid = todo.pop()
        for task in Path(f"/proc/{pid}/task").glob("*/children"):
            try:
                todo += [int(c) for c in task.read_text().split()]
            except OSError:
                continue
        if pid == os.getpid():
            continue
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        found[pid] = (int(fields[11]) + int(fields[12])) / CLOCK
    return found


@dataclass(frozen=True)
class Usage:
    """Wall and CPU seconds of a stretch of work, this process and its children apart."""

    wall: float
    own_cpu: float
    child_cpu: float

    @property
    def cpu(self) -> float:
        return self.own_cpu + self.child_cpu


@contextmanager
def measured() -> Iterator[list[Usage]]:
    """Measure the ``with`` body; the ``Usage`` is appended to the yielded list."""
    out: list[Usage] = []
    before = _descendants()
    reaped = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, own = time.perf_counter(), time.process_time()
    yield out
    after = _descendants()
    done = resource.getrusage(resource.RUSAGE_CHILDREN)
    live = sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())
    finished = (done.ru_utime + done.ru_stime) - (reaped.ru_utime + reaped.ru_stime)
    out.append(Usage(time.perf_counter() - wall, time.process_time() - own, live + finished))


def one_by_one(implementation: Any, cases: Sequence[CaseInput]) -> list[Outcome]:
    """A request per case, as the runner drove every reader before batches."""
    return [run_one(implementation, case) for case in cases]


def batched(implementation: Any, cases: Sequence[CaseInput]) -> list[Outcome]:
    """``BATCH`` cases per request when the reader takes batches, as the runner does now."""
    outcomes: list[Outcome] = []
    for start in range(0, len(cases), BATCH):
        outcomes += run_many(implementation, cases[start:start + BATCH])
    return outcomes


def in_jobs(connect: Callable[[], Any], cases: Sequence[CaseInput], jobs: int,
            mode: Callable[[Any, Sequence[CaseInput]], list[Outcome]]
            ) -> tuple[list[Outcome], Usage, float | None]:
    """``jobs`` connections at once, each taking the next cases from one queue (as
    ``rechain check --jobs`` does: a connection that finishes early takes more); also,
    for a reader that starts a process per case (the CLI), the share of the jobs' time
    such a process was running (``occupancy``: what rechain's own steps between cases
    leave idle is missing from it), else None."""
    size = BATCH if mode is batched else 1
    chunks = [(start, list(cases[start:start + size])) for start in range(0, len(cases), size)]
    outcomes: list[Outcome] = [None] * len(cases)  # type: ignore[list-item]
    readers = [connect() for _ in range(jobs)]
    lock = threading.Lock()
    try:
        with _cli_store("off"):
            for reader in readers:  # start (import) outside the timing, store nothing
                run_one(reader, cases[0])

        def work(reader: Any) -> None:
            while True:
                with lock:
                    if not chunks:
                        return
                    start, chunk = chunks.pop(0)
                outcomes[start:start + len(chunk)] = mode(reader, chunk)

        ran = _process_seconds(readers)
        with measured() as usage:
            threads = [threading.Thread(target=work, args=(reader,)) for reader in readers]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
        ran = None if ran is None else _process_seconds(readers) - ran  # type: ignore[operator]
    finally:
        for reader in readers:
            reader.close()
    return outcomes, usage[0], None if ran is None else ran / (jobs * usage[0].wall)


def _process_seconds(readers: Sequence[Any]) -> float | None:
    """Seconds the readers' per-case processes ran (the CLI's), None for other readers."""
    seconds = [getattr(reader, "process_seconds", None) for reader in readers]
    return None if None in seconds else sum(seconds)  # type: ignore[arg-type]


def measure(name: str, connect: Callable[[], Any], cases: Sequence[CaseInput], jobs: int,
            mode: Callable[[Any, Sequence[CaseInput]], list[Outcome]]
            ) -> tuple[dict[str, Any], list[Outcome]]:
    """One row (the reader's rates on ``cases`` with ``jobs`` connections in ``mode``) and
    the outcomes."""
    before = available_cores(jobs)
    outcomes, usage, busy = in_jobs(connect, cases, jobs, mode)
    available = (before + available_cores(jobs)) / 2
    per_case = usage.cpu / len(cases)
    cores = os.cpu_count() or 1
    return {
        "reader": name, "mode": mode.__name__, "jobs": jobs, "cases": len(cases),
        "wall_rate": round(len(cases) / usage.wall, 1),
        "cpu_ms_per_case": round(per_case * 1000, 3),
        "own_cpu_ms_per_case": round(usage.own_cpu / len(cases) * 1000, 3),
        "cpu_rate": round(1 / per_case, 1) if per_case else None,
        "cores_bound": round(cores / per_case, 1) if per_case else None,
        "of_cores_bound": round(len(cases) / usage.wall * per_case / cores, 3),
        "available_cores": round(available, 3),
        "occupancy": None if busy is None else round(busy, 3),
        "load": round(os.getloadavg()[0], 2),
        "of_available": round(usage.cpu / usage.wall / available, 3) if available else None,
    }, outcomes


def run(count: int, seed: int, cli: int, jobs: int, readers: Sequence[str],
        progress: Callable[[str], None]) -> dict[str, Any]:
    """Every reader in ``readers`` that is installed, on the same generated cases."""
    from rechain.conformance.impls import connect
    from rechain.conformance.oracles.registry import get as get_oracle
    from rechain.conformance.oracles.registry import is_installed

    cases = generated_cases(count, seed)
    mean = sum(len(c.data) for c in cases) // max(len(cases), 1)
    progress(f"{len(cases)} generated transcripts (seed {seed}), mean {mean} bytes")
    rows: list[dict[str, Any]] = []
    answers: dict[str, list[Outcome]] = {}  # the first answers of each reader
    skipped: dict[str, str] = {}
    for spec in readers:
        base = spec.partition(":")[0]
        if base != "reference" and not is_installed(get_oracle(spec)):
            skipped[spec] = "not installed"
            continue
        if spec.startswith("claude-code"):
            chosen, modes, pools = cases[:cli], (one_by_one,), sorted({1, jobs})
        elif base == "reference":
            chosen, modes, pools = cases, (one_by_one,), [1]
        else:
            chosen, modes, pools = cases, (one_by_one, batched), [1, jobs] if jobs > 1 else [1]
        if not chosen:
            skipped[spec] = "no cases (--cli 0)"
            continue
        for pool in pools:
            for mode in modes:
                with owned("rechain-bench-") as empty, \
                        _cli_store(str(empty)):  # an empty store: every CLI case runs the CLI
                    found, outcomes = measure(spec, lambda s=spec: connect(s), chosen, pool,
                                              mode)
                first = answers.setdefault(spec, outcomes)
                found["same_answers"] = outcomes == first[:len(outcomes)]
                rows.append(found)
                progress(f"{spec:24s} {mode.__name__:10s} jobs {pool}: "
                         f"{found['wall_rate']:8.1f}/s wall, {found['cpu_ms_per_case']:8.3f} ms "
                         f"CPU a case ({found['cpu_rate']}/CPU-s, cores allow "
                         f"{found['cores_bound']}/s, {found['of_cores_bound']:.0%} of that; "
                         f"{found['of_available']:.0%} of the {found['available_cores']} cores "
                         f"{pool} busy processes got"
                         + (f"; a claude running {found['occupancy']:.0%} of the time in "
                            f"each job" if spec.startswith("claude-code") else "") + ")")
        if base == "agent-sdk-ts":
            rows.append(_sdk_alone(spec, chosen, rows, progress))
    summary = {"cases": len(cases), "seed": seed, "cores": os.cpu_count(),
               "load": os.getloadavg()[0], "rows": rows, "skipped": skipped,
               "timing": "wall and CPU (this process + children) of the same cases in one run"}
    summary["targets"] = targets.verdicts(targets.ORACLES, summary, progress, {
        "TS SDK": "not measured (agent-sdk-ts not among --readers or not installed)",
        "Python SDK": "not measured (agent-sdk-py not among --readers or not installed)",
        "CLI": "not measured (claude-code not among --readers, or --cli 0)"})
    return summary


def _sdk_alone(spec: str, cases: Sequence[CaseInput], rows: list[dict[str, Any]],
               progress: Callable[[str], None]) -> dict[str, Any]:
    """The SDK's own CPU a case on the same cases; each of the spec's batched rows gets
    its split: ``sdk_ms_per_case`` (the program's) and ``glue_ms_per_case`` (rechain's)."""
    from rechain.conformance.bench import sdk_alone
    from rechain.conformance.oracles.registry import get as get_oracle

    alone = sdk_alone.measure(get_oracle(spec), cases)
    if "failed" in alone:
        progress(f"{spec:24s} SDK alone  (no rechain): {alone['failed']}")
        return {"reader": spec, "mode": "sdk_alone", "jobs": 1, "cases": 0,
                "failed": alone["failed"], "same_answers": None}
    own = alone["cpu_ms_per_case"]
    for row in rows:
        if row["reader"] == spec and row["mode"] == "batched":
            row["sdk_ms_per_case"] = own
            row["glue_ms_per_case"] = round(row["cpu_ms_per_case"] - own, 3)
    cores = os.cpu_count() or 1
    progress(f"{spec:24s} SDK alone  (no rechain): {own:8.3f} ms CPU a case (cores allow "
             f"{round(cores / own * 1000, 1)}/s); rechain's glue in the batched rows: "
             + ", ".join(f"{row['glue_ms_per_case']} ms (jobs {row['jobs']})" for row in rows
                         if row["reader"] == spec and row["mode"] == "batched"))
    return {"reader": spec, "mode": "sdk_alone", "jobs": 1, "cases": alone["calls"],
            "cpu_ms_per_case": own, "cores_bound": round(cores / own * 1000, 1),
            "same_answers": None}


@contextmanager
def _cli_store(where: str) -> Iterator[None]:
    """The CLI answers store set to ``where`` (a dir, or ``off``) for the ``with`` body."""
    from rechain.conformance.oracles.cli_answers import ENV

    saved = os.environ.get(ENV)
    os.environ[ENV] = where
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop(ENV, None)
        else:
            os.environ[ENV] = saved
