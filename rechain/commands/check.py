"""``rechain check``: run the corpus and generated transcripts through readers and compare.

With no arguments it checks the embedded reference against the corpus's recorded
expectations and against generated transcripts (valid and corrupted): their
intended conversation, and the TS SDK when it is installed. ``--impl`` picks
the readers under test, ``--against`` another reader to compare with. Every
disagreement on generated input is shrunk by Hypothesis and written as a
corpus case with a one-line replay command. Exit 0 when everything agrees or
is skipped, 1 on any disagreement, crash or timeout, 2 on usage errors.

``--profile seed`` judges Claude Code 2.1.88 per entry point (a case each: ``ID``,
``ID[continue]``, ``ID[resume-file]``) by what a forked resume wrote and sent, against the
recorded answers or, with ``--against claude-code@2.1.88``, the real release.

The real CLI's answers (``--against claude-code``, about a CPU-second each) are
kept in ``<cache>/cli-answers`` and reused for the same input;
``RECHAIN_CLI_ANSWERS=off`` runs the CLI every time.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rechain import helptext, portable, progress, shard
from rechain.cache import cache_dir
from rechain.commands._outputs import check_writable, render
from rechain.commands._paths import output_dir
from rechain.commands._resume_args import resumed
from rechain.conformance.check.loop import check
from rechain.conformance.check.settings import Settings
from rechain.errors import UsageError


def register(subparsers: Any) -> None:
    """Add ``check``."""
    parser = subparsers.add_parser(
        "check",
        help="check readers against the corpus and generated transcripts",
        description=helptext.description(__doc__),
    )
    add = parser.add_argument
    add("--impl", action="append", metavar="SPEC",
        help="reader under test (repeatable): reference[:PROFILE], agent-sdk-ts, agent-sdk-py, "
             "claude-code, python:MOD:FN, cmd:COMMAND, harness:COMMAND, adapter:NAME (default: "
             "the reference in the --profile chosen)")
    add("--against", metavar="SPEC", help="compare with this reader instead of the expectations")
    add("--profile", default="sdk", help="expectation profile (default: sdk = agent-sdk@0.3.332)")
    add("--examples", type=int, default=None, metavar="N",
        help="generated transcripts, half valid, half corrupted (default 200; 0 with --case)")
    add("--seed", type=int, default=None, help="Hypothesis seed (default: random, printed)")
    add("--corpus", type=Path, default=None, metavar="DIR",
        help="case directory (default: the packaged corpus)")
    add("--case", action="append", default=[], metavar="GLOB",
        help="only corpus cases matching (an id: all its option sets; ID[limit=2]: one "
             "option set, ID[]: the default options alone)")
    add("--no-corpus", action="store_true", help="skip the corpus, generated transcripts only")
    add("--shard", type=shard.argument, metavar="I/N",
        help="run only slice I of N of the cases (same --seed everywhere; join the reports "
             "with rechain report merge)")
    add("--example-db", metavar="DIR|redis://HOST:PORT",
        help="save shrunk disagreements here and replay them first next run")
    add("--shared-example-db", action="append", default=[], metavar="DIR|redis://HOST:PORT",
        help="also replay the failures saved here, never writing to it (repeatable)")
    add("--report", type=Path, metavar="FILE", help="write the JSONL run report here")
    add("--resume", type=Path, metavar="REPORT",
        help="continue the run that wrote REPORT (stopped or killed): its options and seed, "
             "the cases already in it skipped, the rest appended to it")
    add("--markdown", type=Path, metavar="FILE", help="write a Markdown summary (- for stdout)")
    add("--html", type=Path, metavar="FILE", help="write the static HTML matrix")
    add("--junit", type=Path, metavar="FILE",
        help="write JUnit XML (a test case per case and comparison, the explanation as text)")
    add("--sarif", type=Path, metavar="FILE",
        help="write SARIF 2.1.0 (a rule per behaviour, the case file as location)")
    add("--badge", type=Path, metavar="FILE",
        help="write a shields.io endpoint badge (JSON: share of cases passing)")
    add("--jobs", type=int, default=1, metavar="N", help="parallel workers (each connects anew)")
    add("--timeout", type=float, default=30.0, metavar="S", help="per-case limit (default 30)")
    add("--memory-mb", type=int, default=2048, metavar="MB",
        help="memory limit of each reader process, python: workers included (default 2048)")
    add("--venv", type=Path, metavar="DIR",
        help="run python:MOD:FN readers with this virtual environment's interpreter "
             "(default: rechain's)")
    add("--save-cases", type=Path, default=None, metavar="DIR",
        help="where shrunk disagreements are written as cases (default: a directory for the "
             "run under the rechain cache, <cache>/cases/<run>)")
    add("--no-shrink", action="store_true", help="report disagreements without shrinking them")
    add("--max-shrink", type=int, default=12, metavar="K",
        help="kinds of disagreement to shrink per pair of readers (default 12)")
    add("--skips", type=Path, metavar="FILE",
        help="skip list (default: the one shipped, with each adapter:NAME's own)")
    add("--no-skips", action="store_true", help="ignore the skip list")
    add("--write-skips", type=Path, metavar="FILE",
        help="write a skip list covering every corpus case that did not pass (toml-test -script)")
    add("--contract", metavar="FILE",
        help="judge the readers under test by this contract (contract.json) instead of "
             "the one they declare")
    add("--fields", choices=("uuids", "types", "messages"), default=None,
        help="how strict the comparison is: which rows in which order (uuids), also each "
             "row's type (types), also the messages as declared (messages, the default)")
    add("--invariant-every", type=int, default=4, metavar="K",
        help="run a reader with a contract again on one generated case in K and on every "
             "case file (an appended invalid line, reformatted rows) to check its answer "
             "does not change; 0 turns it off (default 4)")
    add("--validate", action="store_true",
        help="check every answer against the protocol and result schemas (a break is a crash)")
    add("--progress", action=argparse.BooleanOptionalAction, default=None,
        help="progress on stderr: a bar on a terminal, else a line every ~10 s with the rate "
             "and ETA (default: on; --no-progress for none)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Run the check; the exit code is the footer's."""
    previous = None
    if args.resume is not None:  # the interrupted run's own options, from its report
        if args.report is not None and args.report.absolute() != args.resume.absolute():
            raise UsageError("--resume appends to its own report; leave out --report")
        args, previous = resumed(args)
    check_writable(args)
    started = dt.datetime.now(dt.UTC)
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    settings = Settings.from_options(
        args, seed=seed, started=started, argv=tuple(getattr(args, "argv", sys.argv[1:])),
        save_cases=saved_cases_dir(args.save_cases, started, seed))
    say = functools.partial(print, file=sys.stderr, flush=True)
    finished = check(settings, say, _progress(args), previous)
    render(args, finished.lines)
    if finished.interrupted is not None:
        if args.report is not None:
            print("rechain: resume with: " + portable.rechain(
                ["check", "--resume", str(args.report.absolute())]), file=sys.stderr)
        raise finished.interrupted
    return finished.exit


def saved_cases_dir(chosen: Path | None, started: dt.datetime, seed: int) -> Path:
    """Where shrunk cases go, absolute: ``--save-cases``, else a run dir under the cache.

    Never the current directory: a check run inside a repository leaves nothing there.
    """
    if chosen is not None:  # made now: a folder that cannot be is said before the run
        return output_dir("--save-cases", chosen)
    run = f"{started.strftime('%Y%m%d-%H%M%S')}-seed{seed}"
    return (cache_dir() / "cases" / run).absolute()


def _progress(args: argparse.Namespace) -> Callable[[int], progress.Progress]:
    """A bar on a terminal, a line every ~10 s elsewhere (CI logs), nothing with --no-progress;
    made for the number of cases once the run knows it."""
    if args.progress is False:
        return functools.partial(progress.Progress, stream=None, style=progress.LINES)
    style = progress.BAR if args.progress or sys.stderr.isatty() else progress.LINES
    return functools.partial(progress.Progress, stream=sys.stderr, style=style)
