"""``rechain fuzz``: fuzz the reference's harnesses or any Python transcript reader.

``rechain fuzz NAME...`` runs named targets (``--list`` shows them),
``--target module:function`` any reader (``--venv DIR`` to run it in its own
venv), ``--replay`` replays the regression cases, ``--bench`` prints
executions per second per harness, ``--install NAME`` makes a third-party
reader's venv under the cache. The time per target is ``--time`` or
``$RECHAIN_FUZZ_SECONDS`` (default 60).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

from rechain import helptext, portable, shard
from rechain.cache import cache_dir
from rechain.commands._paths import output_dir, output_file
from rechain.errors import UsageError
from rechain.fuzz.probe import probe


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser(
        "fuzz",
        help="fuzz the reference or any Python transcript reader (needs atheris)",
        description=helptext.description(__doc__),
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="named targets (see --list)")
    parser.add_argument("--target", metavar="MOD:FN", help="any reader: module:function")
    parser.add_argument("--input", choices=("bytes", "path"), help="how --target takes input")
    parser.add_argument("--instrument", action="append", default=[], metavar="PKG",
                        help="also instrument this package (where --target's reader code is)")
    parser.add_argument(
        "--allow", action="append", default=[], metavar="EXC", help="documented exception"
    )
    parser.add_argument("--venv", type=Path, metavar="DIR", help="run the target in this venv")
    parser.add_argument("--time", type=float, metavar="S",
                        help="seconds per target; workers still running 10 s past it are "
                        "stopped and the campaign reported as cut")
    parser.add_argument("--runs", type=int, metavar="N",
                        help="stop each worker after N executions (a campaign of a fixed size)")
    parser.add_argument("--jobs", type=int, default=1, metavar="N", help="worker processes")
    parser.add_argument("--work", type=Path, metavar="DIR", help="corpus and findings dir")
    parser.add_argument("--max-len", type=int, metavar="N", help="largest input")
    parser.add_argument("--timeout", type=int, metavar="S", help="a hang: one input past S")
    parser.add_argument("--rss-mb", type=int, metavar="N", help="a blow-up: RSS past N MB")
    parser.add_argument("--no-mutator", action="store_true", help="byte mutations only")
    parser.add_argument("--nice", type=int, default=0, help="run workers under nice -n N")
    parser.add_argument("--all", action="store_true", help="every reference harness")
    parser.add_argument("--shard", type=shard.argument, metavar="I/N",
                        help="start from slice I of N of the seed corpus (one per machine)")
    parser.add_argument("--regressions", action="store_true", help="shrink findings into cases")
    parser.add_argument(
        "--shrink-seconds", type=float, default=60.0, metavar="S", help="shrink budget per finding"
    )
    parser.add_argument("--list", action="store_true", help="list named targets")
    parser.add_argument("--replay", nargs="*", metavar="CASE", help="replay regression cases")
    parser.add_argument("--bench", action="store_true", help="executions/s per harness")
    parser.add_argument("--install", metavar="NAME", help="make a third-party reader's venv")
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.add_argument("--sarif", type=Path, metavar="FILE",
                        help="write every finding as SARIF 2.1.0 (a rule per crash kind)")
    parser.set_defaults(handler=run)


def default_seconds() -> float:
    raw = os.environ.get("RECHAIN_FUZZ_SECONDS", "60")
    try:
        return float(raw)
    except ValueError:
        raise UsageError(f"RECHAIN_FUZZ_SECONDS={raw!r} is not a number") from None


def _check_bounds(args: argparse.Namespace, seconds: float) -> None:
    """A negative time or a worker count, hang or memory bound below 1 is a mistake: said
    before any worker starts, not a campaign that runs nothing and passes."""
    if not math.isfinite(seconds) or seconds < 0:
        raise UsageError(f"--time (or RECHAIN_FUZZ_SECONDS) {seconds:g}: must be a number of "
                         "seconds, not negative; 0 only reports what is on record")
    if not math.isfinite(args.shrink_seconds) or args.shrink_seconds <= 0:
        raise UsageError(f"--shrink-seconds {args.shrink_seconds:g}: must be a positive number "
                         "of seconds")
    bounds = {"--jobs": args.jobs, "--timeout": args.timeout, "--rss-mb": args.rss_mb,
              "--max-len": args.max_len}
    wrong = [f"{name} {value}" for name, value in bounds.items()
             if value is not None and value < 1]
    if wrong:
        raise UsageError(f"{', '.join(wrong)}: must be at least 1")
    # past these libFuzzer's own arithmetic breaks (a worker that never ended, -timeout
    # 99999999999) or a worker maps the largest input's size (--max-len)
    ceilings = {"--timeout": (args.timeout, 86400), "--rss-mb": (args.rss_mb, 1 << 20),
                "--max-len": (args.max_len, 1 << 30)}
    wrong = [f"{name} {value}: at most {top}" for name, (value, top) in ceilings.items()
             if value is not None and value > top]
    if wrong:
        raise UsageError("; ".join(wrong))


def venvs_root() -> Path:
    return cache_dir() / "fuzz-venvs"


def _require_venv(venv: Path | None) -> None:
    """``--venv`` names a venv: its interpreter is there (else one line, not a traceback)."""
    if venv is not None and not (venv / "bin" / "python").exists():
        raise UsageError(f"--venv {venv}: not a venv (no {venv / 'bin' / 'python'}); "
                         f"make one with python3 -m venv {venv}")


def _require_atheris(python: str) -> None:
    done = subprocess.run([python, "-c", "import atheris"], capture_output=True, check=False)
    if done.returncode != 0:
        raise UsageError(f"atheris is not installed for {python}: pip install 'rechain[fuzz]'")


def _targets(args: argparse.Namespace) -> list[Any]:
    from rechain.fuzz.registry import REFERENCE, TARGETS, Target, venv_name

    chosen: list[Target] = []
    if args.target:
        name = re.sub(r"[^A-Za-z0-9_.-]+", "-", args.target)
        # its findings and corpus are kept per input kind: a bytes campaign's "No such file
        # or directory: b'...'" findings are not the next, --input path, campaign's
        name += "-path" if args.input == "path" else ""
        chosen.append(Target(name, args.target, input=args.input, user=True,
                             instrument=tuple(args.instrument)))
    if args.all:
        chosen += list(REFERENCE)
    for name in args.names:
        if name not in TARGETS:
            raise UsageError(f"unknown target {name!r}; see {portable.rechain(['fuzz', '--list'])}")
        chosen.append(TARGETS[name])
    if not chosen:
        raise UsageError(f"name a target ({portable.rechain(['fuzz', '--list'])}), --target MOD:FN "
                         "or --all")
    for target in chosen:
        if target.third_party and args.venv is None:
            venv = venvs_root() / venv_name(target)
            if not (venv / "bin" / "python").exists():
                raise UsageError(
                    f"{target.name}: no venv at {venv}; "
                    f"{portable.rechain(['fuzz', '--install', target.name])}"
                )
    return chosen


def _settings(args: argparse.Namespace, target: Any, seconds: float) -> Any:
    from rechain.fuzz.registry import venv_name
    from rechain.fuzz.runner import Settings

    venv = args.venv
    if venv is None and target.third_party:
        venv = venvs_root() / venv_name(target)
    work = args.work or cache_dir() / "fuzz-work"
    return Settings(
        seconds=seconds,
        jobs=args.jobs,
        venv=venv,
        work=work,
        max_len=args.max_len,
        timeout_s=args.timeout,
        rss_mb=args.rss_mb,
        nice=args.nice,
        mutator=not args.no_mutator,
        allow=tuple(args.allow),
        shard=args.shard,
        runs=args.runs,
        own_venv=args.venv is None and target.third_party,
    )


def _print_report(report: dict[str, Any]) -> None:
    where = f" (reader: venv {report['venv']})" if report.get("venv") else ""
    where += f" ({report['stopped']}: what ran until then)" if report.get("stopped") else ""
    print(
        f"{report['target']}{where}: {report['executions']} execs in {report['wall_s']} s "
        f"({report['exec_per_s']}/s, {report['cpu_s']} CPU s), cov {report['coverage']['cov']} "
        f"ft {report['coverage']['ft']}, {len(report['findings'])} findings "
        f"({len(report['new_findings'])} new)"
    )
    if report["coverage"].get("note"):
        print(f"  {report['coverage']['note']}")
    if report.get("cut"):
        print(f"  {cut_line(report['cut'])}")
    for finding in report["findings"]:
        print(f"  {_finding_label(finding)} x{finding.get('count', 1)}: "
              f"{finding['message'][:120]} ({Path(finding['input_path']).name})"
              f"{_reader_mark(finding, report.get('reader', ''))}")
    if report.get("unattributed"):
        print(f"  {report['unattributed']['count']} findings in "
              f"{report['unattributed']['findings']} do not say which reader they are from "
              "(campaigns in any venv once shared that store): this venv's are kept apart, "
              "here; the same command without --venv lists those")
    for case in report.get("cases", []):
        replay = portable.rechain(["fuzz", "--replay", Path(case).name])
        print(f"  case {case} (replay: `{replay}`)")
    hint = _input_hint(report["findings"])
    if hint:
        print(f"  {hint}")


def cut_line(cut: dict[str, Any]) -> str:
    """What a campaign stopped at its deadline says: when, and the seeds it never reached."""
    line = (f"cut at the deadline: workers still running at --time {cut['time_s']:g} s + "
            f"{cut['grace_s']} s grace were stopped; the report is of what ran until then")
    left = [f"{seeds['left']} of {seeds['of']} seed inputs not started by worker "
            f"{seeds['worker']}" for seeds in cut["seeds_left"]]
    return line + (f" ({', '.join(left)}: libFuzzer runs all its seeds before it looks "
                   "at its time limit)" if left else "")


#: what a reader says when it is handed the other kind of input than it takes
_WANTS_PATH = ("No such file or directory: b'", "File name too long: b'", "embedded null byte",
               "not 'bytes'")
_WANTS_BYTES = ("'PosixPath' object", "not 'PosixPath'")


def _input_hint(findings: list[dict[str, Any]]) -> str:
    """A first campaign's usual mistake, named: a reader that opens a file fed bytes (every
    input "No such file or directory: b'...'"), or one that parses bytes fed a path."""
    messages = [str(finding.get("message", "")) for finding in findings]
    wrong = sum(any(mark in m for mark in _WANTS_PATH) for m in messages)
    if wrong:
        return (f"{wrong} of these look like the function opening its input as a file name: "
                "if it takes a path, fuzz it with --input path")
    wrong = sum(any(mark in m for mark in _WANTS_BYTES) for m in messages)
    if wrong:
        return (f"{wrong} of these look like the function handed a path it reads as data: "
                "if it takes the bytes, fuzz it with --input bytes")
    return ""


def _reader_mark(finding: dict[str, Any], reader: str) -> str:
    """`` [reader: DIR]`` for a finding another reader's campaign filed in this store, or
    `` [reader not recorded]`` for one whose record does not say (written before records
    kept it, when campaigns in several venvs shared a store)."""
    mine = finding.get("reader")
    if not reader or mine == reader:
        return ""
    return f" [reader: {mine}]" if mine else " [reader not recorded]"


def worker_deaths(report: dict[str, Any]) -> list[str]:
    """One line per worker that died (not a finding, not its limits): the run fails."""
    lines = []
    for ended in report.get("died", []):
        what = ("before its first input" if not ended["executions"]
                else f"after {ended['executions']} inputs")
        lines.append(f"rechain: fuzz {report['target']}: worker {ended['worker']} died "
                     f"{what} ({ended['status']}): {ended['said'] or 'it wrote nothing'} "
                     f"(log: {report['log']})")
    return lines


def _finding_label(finding: dict[str, Any]) -> str:
    """The signature, and the trigger when it has one: one site failing on ``message: null``
    and on a non-object line is two findings, and two identical lines said otherwise."""
    trigger = str(finding.get("variant", "")).partition("|")[2]
    return f"{finding['signature']} [{trigger}]" if trigger else str(finding["signature"])


def _print_next_steps(target: Any, findings: Path, args: argparse.Namespace) -> None:
    """Where a campaign's findings are, and the command that makes them replayable cases
    (with the campaign's ``--work``, ``--venv`` and bounds, absolute: the findings are read
    where this campaign left them; a ``--target`` of yours from the directory it was
    imported from)."""
    print(f"  findings, each input beside its record: {findings}")
    argv = ["fuzz", target.name, "--time", "0", "--regressions"]
    if target.user:
        argv = ["fuzz", "--target", target.spec, "--time", "0", "--regressions"]
        argv += ["--input", target.input] if target.input else []
        for name in args.allow:
            argv += ["--allow", name]
        for name in args.instrument:
            argv += ["--instrument", name]
    for option, value in (("--work", args.work), ("--venv", args.venv)):
        if value is not None:
            argv += [option, portable.path(value, Path.cwd())]
    for option, number in (("--timeout", args.timeout), ("--rss-mb", args.rss_mb)):
        if number is not None:
            argv += [option, str(number)]
    line = portable.rechain(argv)
    if target.user:  # the target is imported as from where this campaign started
        line = f"cd {shlex.quote(str(Path.cwd()))} && {line}"
    print(f"  shrink them into replayable cases: {line}")


def fuzz(args: argparse.Namespace) -> int:
    from rechain.fuzz import runner, triage

    seconds = args.time if args.time is not None else default_seconds()
    if args.runs is not None and args.runs < 1:
        raise UsageError("--runs must be positive")
    _check_bounds(args, seconds)
    if args.sarif is not None:
        output_file("--sarif", args.sarif)
    if args.work is not None:
        args.work = output_dir("--work", args.work, make=False)
    _require_venv(args.venv)
    planned = []
    for target in _targets(args):  # every target checked before any worker starts
        settings = _settings(args, target, seconds)
        python = runner.python_of(settings.venv)
        _require_atheris(python)
        if target.user:
            found = probe(target.spec, python, runner.environment(target, settings), Path.cwd(),
                          tuple(args.allow))
            settings.paths = (found.path,) if found.path is not None else ()
        planned.append((target, settings))
    if args.work is not None:  # every target imports: now the work folder is made
        output_dir("--work", args.work)
    reports = []
    idle = []
    stopped: KeyboardInterrupt | None = None
    for target, settings in planned:
        ran = runner.run(target, settings)
        report = ran.to_json()
        if report["executions"] == 0 and seconds > 0 and ran.stopped is None:
            idle.append(f"rechain: fuzz {target.name} executed nothing: "
                        f"{_last_words(Path(report['log']))}")
        idle += worker_deaths(report)
        if args.regressions and ran.stopped is None:
            findings = runner.load_findings(runner.findings_dir(target, settings))
            cases = triage.file_findings(target, settings, findings, args.shrink_seconds,
                                         _shrinking(args.shrink_seconds))
            report["cases"] = [str(c) for c in cases]
        reports.append(report)
        if not args.json:
            _print_report(report)
            if report["findings"] and not args.regressions:
                _print_next_steps(target, runner.findings_dir(target, settings), args)
        if ran.stopped is not None:  # what it did is reported; the targets after it are not run
            stopped = ran.stopped
            break
    if args.json:
        sys.stdout.write(json.dumps(reports, indent=1) + "\n")
    if args.sarif is not None:
        from rechain.conformance.report_ci import sarif
        from rechain.conformance.report_locations import checkout

        crashes = [finding for report in reports for finding in report["findings"]]
        document = sarif([], crashes, base=checkout(Path.cwd()))
        args.sarif.write_text(json.dumps(document, indent=1) + "\n", encoding="utf-8")
    for line in idle:  # a campaign that ran nothing, or lost a worker, is never a pass
        print(line, file=sys.stderr)
    if stopped is not None:
        raise stopped
    return 1 if idle or any(r["new_findings"] for r in reports) else 0


def _shrinking(seconds: float) -> Any:
    """One line on stderr per finding as it is shrunk and filed (stdout stays the report)."""

    def say(number: int, total: int, finding: dict[str, Any]) -> None:
        print(f"rechain: shrinking finding {number} of {total} (up to {seconds:g} s): "
              f"{_finding_label(finding)[:160]}", file=sys.stderr, flush=True)

    return say


def _last_words(log: Path) -> str:
    """Why the workers ran nothing: the last line they wrote (their log is named too)."""
    try:
        lines = [line.strip() for line in log.read_text("utf-8", "replace").splitlines()
                 if line.strip()]
    except OSError:
        lines = []
    return f"{lines[-1][:300] if lines else 'the workers wrote nothing'} (log: {log})"


def bench(args: argparse.Namespace) -> int:
    """Each reference harness for a short fixed time; one line each, then a JSON summary."""
    from rechain.fuzz import runner
    from rechain.fuzz.registry import REFERENCE, TARGETS

    seconds = args.time if args.time is not None else 20.0
    if args.work is not None:
        args.work = output_dir("--work", args.work)
    names = args.names or [t.name for t in REFERENCE]
    unknown = [name for name in names if name not in TARGETS]
    if unknown:
        raise UsageError(f"unknown target {', '.join(map(repr, unknown))}; "
                         f"see {portable.rechain(['fuzz', '--list'])}")
    summary: dict[str, dict[str, float]] = {}
    for name in names:
        target = TARGETS[name]
        settings = _settings(args, target, seconds)
        settings.work = (args.work or cache_dir() / "fuzz-bench") / "bench"
        report = runner.run(target, settings)
        per_cpu = report.executions / report.cpu_s if report.cpu_s else 0.0
        summary[name] = {
            "exec_per_s": round(report.exec_per_s, 1),
            "exec_per_cpu_s": round(per_cpu),
        }
        rate, runs, wall = report.exec_per_s, report.executions, report.wall_s
        print(f"{name:28} {rate:9.1f} exec/s {per_cpu:9.0f} exec/CPU-s ({runs} in {wall:.1f} s)")
    print(json.dumps(summary))
    return 0


def replay(args: argparse.Namespace) -> int:
    """Replay regression cases; exit 1 when a fixed case fails again."""
    from rechain.fuzz.registry import TARGETS, Target, venv_name
    from rechain.fuzz.regressions import (
        ReplayError,
        fuzz_cases,
        fuzz_meta,
        replay_one,
        replay_roots,
    )
    from rechain.fuzz.runner import Settings, environment

    _require_venv(args.venv)
    roots = replay_roots()
    by_name = {case.name: case for root in reversed(roots) for case in fuzz_cases(root)}
    known = sorted(by_name.values(), key=lambda case: case.name)
    cases = [by_name[name] for name in args.replay if name in by_name] if args.replay \
        else known
    unknown = [name for name in args.replay or () if name not in by_name]
    if unknown:  # checked before any replay runs: a mistyped name is one line, not a traceback
        names = ", ".join(case.name for case in known[:3]) + (", …" if len(known) > 3 else "")
        where = " or ".join(map(str, roots))
        raise UsageError(f"--replay: no regression case {', '.join(unknown)} in {where} "
                         f"({f'their case folders: {names}' if known else 'they hold none'})")
    bad = 0
    for directory in cases:
        meta = fuzz_meta(directory)
        target = TARGETS.get(meta.get("target", ""))
        venv = args.venv
        if venv is None and target is None and meta.get("venv"):  # a user's --venv, kept
            venv = Path(meta["venv"])
        if venv is None and target is not None and target.third_party:
            venv = venvs_root() / venv_name(target)
            if not (venv / "bin" / "python").exists():
                print(f"{directory.name}: skipped (no venv for {target.name})")
                continue
        python = str(venv / "bin" / "python") if venv else sys.executable
        env = None
        paths: tuple[Path, ...] = ()
        if target is None and "spec" in meta:  # a user's --target, run as its campaign ran it
            paths = tuple(Path(p) for p in meta.get("paths", ()))
            target = Target(meta.get("target", ""), meta["spec"], input=meta.get("input"),
                            user=True)
        if target is not None:
            env = environment(target, Settings(0, venv=venv, work=cache_dir() / "fuzz-work",
                                               paths=paths))
        try:
            outcome = replay_one(directory, python, env)
        except ReplayError as error:
            bad += 1
            print(f"{'ERROR':10} {error}")
            continue
        bad += outcome.verdict == "FAILED"
        print(f"{outcome.verdict:10} {outcome.case} ({outcome.target}, {outcome.status})")
    return 1 if bad else 0


def install(args: argparse.Namespace) -> int:
    """A venv under the cache with one third-party reader and atheris."""
    from rechain.fuzz.registry import TARGETS, venv_name

    target = TARGETS.get(args.install)
    if target is None or not target.third_party:
        raise UsageError(f"{args.install!r} is not a third-party target; "
                         f"see {portable.rechain(['fuzz', '--list'])}")
    venv = venvs_root() / venv_name(target)
    venv.parent.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q"]
    subprocess.run([*pip, str(target.package), "atheris>=2.3"], check=True)
    print(f"{target.name}: {target.package} installed in {venv}")
    return 0


def list_targets() -> int:
    """Each named target; a third-party one says whether its venv is there, and if not the
    command that makes it (else the first run of it is where one learns that)."""
    from rechain.fuzz.registry import TARGETS, venv_name

    for target in TARGETS.values():
        where = target.package or "reference"
        if target.third_party:
            made = (venvs_root() / venv_name(target) / "bin" / "python").exists()
            install = portable.rechain(["fuzz", "--install", target.name])
            where += " (installed)" if made else f" (not installed: {install})"
        print(f"{target.name:30} {target.spec:58} {where}")
    return 0


def run(args: argparse.Namespace) -> int:
    if args.list:
        return list_targets()
    if args.install:
        return install(args)
    if args.replay is not None:
        return replay(args)
    if args.bench:
        return bench(args)
    return fuzz(args)
