"""The process that runs one target: fuzz it under Atheris, replay inputs, or shrink one.

``python -m rechain.fuzz.worker --target MOD:FN [options] -- [libFuzzer flags and dirs]``

The runner starts this in the reader's own interpreter (its venv, for a
third-party reader), so it imports only the standard library, atheris and the
worker-side ``rechain.fuzz`` modules; the target is imported inside
``atheris.instrument_imports`` so its code reports coverage. Failures that
break the contract are filed in the findings directory and fuzzing goes on;
with ``--crash-on SIG`` only that finding (signature and trigger, see
``traits``) crashes (for libFuzzer's minimiser) and everything else passes.
"""

from __future__ import annotations

import argparse
import faulthandler
import importlib
import json
import mmap
import os
import resource
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rechain.fuzz import minimize
from rechain.fuzz.contract import Contract, Failure, check
from rechain.fuzz.findings import FindingStore
from rechain.fuzz.target import Feeder, load, resolve
from rechain.fuzz.traits import causal, key, traits

_WATCHERS: list[subprocess.Popen[bytes]] = []  # held: their stdin closes when this process ends
#: ``conformance/marked.NAME`` and ``RUN_NAME``, the marks of the tree and the run this
#: worker runs in (in a reader's venv the worker has only ``rechain.fuzz``, so the names
#: are written out here)
TREE_MARK = "RECHAIN_TREE"
RUN_MARK = "RECHAIN_RUN"


class Finding(Exception):  # noqa: N818 - it is what libFuzzer reports, not an error of ours
    """Raised only under ``--crash-on``: libFuzzer sees a crash with this signature."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="rechain.fuzz.worker")
    parser.add_argument("--target", required=True, help="module:function")
    parser.add_argument("--mode", choices=("fuzz", "replay", "shrink"), default="fuzz")
    parser.add_argument("--input", choices=("bytes", "path"), default=None)
    parser.add_argument("--allow", action="append", default=[], help="module.Exception allowed")
    parser.add_argument("--instrument", action="append", default=[], help="package to instrument")
    parser.add_argument(
        "--scope", action="append", default=[], help="instrument only these modules' functions"
    )
    parser.add_argument("--findings", type=Path, default=None)
    parser.add_argument("--crash-on", default=None, help="crash only on this finding (variant)")
    parser.add_argument("--no-mutator", action="store_true", help="libFuzzer's byte mutator only")
    parser.add_argument("--out", type=Path, default=None, help="shrink: where to write")
    parser.add_argument("--seconds", type=float, default=60.0, help="shrink: time budget")
    parser.add_argument("--timeout", type=float, default=None, help="replay: a hang past S")
    parser.add_argument("--rss-mb", type=int, default=None, help="memory bound (MB)")
    parser.add_argument("--last-input", type=Path, default=None,
                        help="fuzz: keep each input here as it runs (a target that ends the "
                             "process leaves it behind)")
    parser.add_argument("rest", nargs="*", help="libFuzzer flags and corpus dirs / input files")
    return parser


def _exception_type(name: str) -> type[BaseException]:
    module, _, attr = name.rpartition(".")
    holder: Any = __import__(module or "builtins", fromlist=[attr])
    kind = getattr(holder, attr)
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        raise ValueError(f"--allow {name!r} is not an exception type")
    return kind


def _setup(args: argparse.Namespace, instrumented: bool) -> tuple[Feeder, Contract]:
    module, _ = resolve(args.target)
    if instrumented and args.scope:
        from rechain.fuzz.scope import instrument_modules

        function, contract = load(args.target)
        instrument_modules(args.scope)
    elif instrumented:
        import atheris

        packages = sorted({module.split(".")[0], *args.instrument})
        with atheris.instrument_imports(include=packages):
            for name in args.instrument:  # an adapter imports its reader late: import it here
                importlib.import_module(name)
            function, contract = load(args.target)
    else:
        function, contract = load(args.target)
    allowed = tuple(_exception_type(name) for name in args.allow)
    contract = contract.with_overrides(input=args.input, allowed=contract.allowed + allowed or None)
    return Feeder(function, contract), contract


#: room above the RSS bound for the interpreter's own mappings before the hard stop
HEADROOM_MB = 512


def _rss_bound(args: argparse.Namespace, contract: Contract) -> int:
    """The memory bound: ``--rss-mb``, libFuzzer's ``-rss_limit_mb``, else the contract's."""
    for flag in args.rest:
        if flag.startswith("-rss_limit_mb="):
            return int(flag.split("=", 1)[1])
    return args.rss_mb or contract.rss_mb


def cap_memory(rss_mb: int) -> None:
    """A hard stop on the process' data (heap and private mappings) a little above the bound.

    libFuzzer checks RSS once a second, so a target allocating in a loop ran gigabytes
    past ``-rss_limit_mb`` before it was stopped, and a replay had no bound at all. Past
    the cap an allocation fails: the target raises MemoryError where it allocates (a
    finding with its place), and the machine is not taken down.
    """
    cap = (rss_mb + HEADROOM_MB) << 20
    _, hard = resource.getrlimit(resource.RLIMIT_DATA)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_DATA, (cap, hard))


def _run_one(feed: Feeder, contract: Contract, data: bytes) -> Failure | None:
    return check(lambda: feed(data), contract.allowed)


def _trigger(feed: Feeder, contract: Contract, signature: str, data: bytes) -> str:
    """The causal trigger of a failing input: repaired, it no longer fails this way."""

    def same(candidate: bytes) -> bool:
        failure = _run_one(feed, contract, candidate)
        return failure is not None and failure.signature == signature

    return causal(data, same)


def _matches(feed: Feeder, contract: Contract, wanted: str, failure: Failure, data: bytes) -> bool:
    """``failure`` is the finding ``wanted`` (``signature`` or ``signature|trigger``)."""
    signature, _, name = wanted.partition("|")
    return failure.signature == signature and _trigger(feed, contract, signature, data) == name


class _Keys:
    """Finding keys during fuzzing, with the causal check cached once it is settled.

    The check reruns the target once per trigger held, on failing inputs only;
    after ``settle`` equal verdicts for a signature and set of triggers held,
    the verdict is reused (a reader that fails on most inputs stays fast).
    """

    def __init__(self, feed: Feeder, contract: Contract, settle: int = 8) -> None:
        self.feed, self.contract, self.settle = feed, contract, settle
        self.verdicts: dict[tuple[str, frozenset[str]], tuple[str, int]] = {}

    def __call__(self, failure: Failure, data: bytes) -> str:
        held = frozenset(traits(data))
        if not held:
            return failure.signature
        known = self.verdicts.get((failure.signature, held))
        if known is not None and known[1] >= self.settle:
            return key(failure.signature, known[0])
        name = _trigger(self.feed, self.contract, failure.signature, data)
        same = known is not None and known[0] == name
        self.verdicts[(failure.signature, held)] = (name, known[1] + 1 if same else 1)
        return key(failure.signature, name)


def fuzz(args: argparse.Namespace) -> int:
    """Hand control to libFuzzer; never returns normally."""
    import atheris

    feed, contract = _setup(args, instrumented=True)
    cap_memory(_rss_bound(args, contract))
    store = FindingStore(args.findings or Path("findings"), args.target, tally=True,
                         reader=reader_of())
    crash_on: str | None = args.crash_on
    keys = _Keys(feed, contract)
    keep = _last_input(args.last_input, _max_len(args, contract))

    def one_input(data: bytes) -> None:
        if keep is not None:
            keep(data)
        failure = _run_one(feed, contract, data)
        if failure is None:
            return
        if crash_on is not None:
            if _matches(feed, contract, crash_on, failure, data):
                raise Finding(crash_on)
            return
        if store.record(failure, data, keys(failure, data)):
            print(f"rechain-fuzz: NEW {failure.signature}", file=sys.stderr, flush=True)

    kwargs: dict[str, Any] = {}
    if contract.transcripts and not args.no_mutator:
        from rechain.fuzz.mutator import TranscriptMutator

        # atheris.Mutate is rebound by Setup, so look it up at call time
        mutator = TranscriptMutator(
            lambda data, size: atheris.Mutate(data, size),
            byte_share=contract.byte_share,
            one_line=contract.seeds == "line",
        )
        kwargs = {"custom_mutator": mutator.mutate, "custom_crossover": mutator.crossover}
    atheris.Setup([_launcher(args), *args.rest], one_input, **kwargs)
    atheris.Fuzz()
    return 0


def reader_of() -> str:
    """The environment the target runs in: this interpreter's venv (or installation)."""
    return os.path.realpath(sys.prefix)


def _max_len(args: argparse.Namespace, contract: Contract) -> int:
    for flag in args.rest:
        if flag.startswith("-max_len="):
            return int(flag.split("=", 1)[1])
    return contract.max_len


def _last_input(path: Path | None, max_len: int) -> Callable[[bytes], None] | None:
    """Copy each input, before it runs, into a shared mapping of ``path``: its length + 1
    (0: none ran yet), the number of inputs run, then the bytes.

    A target that ends the process itself (``os._exit``, a signal libFuzzer does not
    catch, the kernel's OOM killer) leaves no artefact and no statistics; the runner
    reads the input it was running, and how many ran, from this file. A memory copy per
    input.
    """
    if path is None:
        return None
    size = 16 + max_len
    with path.open("wb") as out:
        out.truncate(size)
    with path.open("r+b") as handle:
        shared = mmap.mmap(handle.fileno(), size)
    count = 0

    def keep(data: bytes) -> None:
        nonlocal count
        count += 1
        length = min(len(data), max_len)
        shared[16:16 + length] = data[:length]
        shared[:16] = (length + 1).to_bytes(8, "little") + count.to_bytes(8, "little")

    return keep


def read_last_input(path: Path) -> tuple[bytes, int] | None:
    """The input a worker was running when it ended and how many it ran (None: none ran)."""
    try:
        raw = path.read_bytes()
    except OSError:
        return None
    length = int.from_bytes(raw[:8], "little") if len(raw) >= 16 else 0
    return (raw[16:16 + length - 1], int.from_bytes(raw[8:16], "little")) if length else None


def _launcher(args: argparse.Namespace) -> str:
    """argv[0] for libFuzzer: it re-executes it to minimise, so it must be a program.

    A small shell script that starts this worker again with the same options
    (the target, ``--crash-on``, ...) and passes libFuzzer's flags through.
    """
    if not any(flag.startswith(("-minimize_crash", "-fork=", "-jobs=")) for flag in args.rest):
        return sys.argv[0]
    options = ["--target", args.target]
    for name in ("input", "crash_on", "findings"):
        value = getattr(args, name)
        if value is not None:
            options += [f"--{name.replace('_', '-')}", str(value)]
    for name in args.allow:
        options += ["--allow", name]
    for name in args.instrument:
        options += ["--instrument", name]
    for name in args.scope:
        options += ["--scope", name]
    command = [sys.executable, "-m", "rechain.fuzz.worker", *options, "--"]
    script = Path(tempfile.mkdtemp(prefix="rechain-fuzz-")) / "worker"
    _removed_at_end(script.parent)
    script.write_text(f'#!/bin/sh\nexec {shlex.join(command)} "$@"\n')
    script.chmod(0o755)
    return str(script)


def _removed_at_end(path: Path) -> None:
    """Remove ``path`` once this process has ended, however it ends.

    libFuzzer ends the worker with C ``exit()``, so no Python clean-up runs, and a CI
    step's timeout may kill it outright. A shell (in a session of its own, so a signal
    to the worker's group leaves it be) reads its stdin, a pipe only this process holds
    (Python's pipes close on exec, so libFuzzer's children do not get it): the kernel
    closes it when this process ends, and the shell then removes ``path``. It goes without
    the worker's marks: the sweeps that follow the worker's end and rechain's must leave it
    be.
    """
    env = {name: value for name, value in os.environ.items()
           if name not in (TREE_MARK, RUN_MARK)}
    _WATCHERS.append(subprocess.Popen(
        ["/bin/sh", "-c", 'read -r _; rm -rf -- "$0"', str(path)], stdin=subprocess.PIPE,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True, env=env))


def replay(args: argparse.Namespace) -> int:
    """Run each file once; one JSON line per file on stdout (outcome, failure, seconds).

    Under the memory cap, and with ``--timeout`` a file running past it ends the process
    with faulthandler's ``Timeout`` dump of where it was (the caller reads it as a hang):
    the watchdog is a C thread, so a hang inside C code is stopped too.
    """
    feed, contract = _setup(args, instrumented=False)
    cap_memory(_rss_bound(args, contract))
    worst = 0
    for name in args.rest:
        data = Path(name).read_bytes()
        # said first: a target that ends the process on this file leaves this line alone
        print(json.dumps({"path": name, "outcome": "started"}), flush=True)
        start = time.perf_counter()
        if args.timeout:
            faulthandler.dump_traceback_later(args.timeout, exit=True)
        failure = _run_one(feed, contract, data)
        faulthandler.cancel_dump_traceback_later()
        row: dict[str, Any] = {"path": name, "seconds": round(time.perf_counter() - start, 6)}
        row["outcome"] = "ok" if failure is None else "failure"
        if failure is not None:
            row.update(failure.to_json())
            row["trigger"] = _trigger(feed, contract, failure.signature, data)
            worst = 1
        print(json.dumps(row, ensure_ascii=True), flush=True)
    return worst


def shrink(args: argparse.Namespace) -> int:
    """Shrink one input while it fails as ``--crash-on`` says (signature and trigger)."""
    feed, contract = _setup(args, instrumented=False)
    cap_memory(_rss_bound(args, contract))
    wanted: str | None = args.crash_on

    def fails(data: bytes) -> bool:
        failure = _run_one(feed, contract, data)
        if failure is None:
            return False
        return wanted is None or _matches(feed, contract, wanted, failure, data)

    source = Path(args.rest[0])
    data = source.read_bytes()
    small = minimize.shrink(data, fails, seconds=args.seconds)
    out: Path = args.out or source.with_suffix(".min")
    out.write_bytes(small)
    reproduced = fails(small)
    print(json.dumps({"in": len(data), "out": len(small), "reproduced": reproduced}), flush=True)
    return 0 if reproduced else 1


MODES: dict[str, Callable[[argparse.Namespace], int]] = {
    "fuzz": fuzz,
    "replay": replay,
    "shrink": shrink,
}


def exec_harness(target: str, libfuzzer_args: Sequence[str]) -> None:
    """Become a fresh worker for ``target`` (so its imports happen under instrumentation)."""
    command = [sys.executable, "-m", "rechain.fuzz.worker", "--target", target, "--"]
    os.execv(sys.executable, [*command, *libfuzzer_args])


def main(argv: Sequence[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    return MODES[args.mode](args)


if __name__ == "__main__":
    sys.exit(main())
