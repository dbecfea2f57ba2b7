"""``rechain drift``: what changed between two releases of one real reader, and where.

Runs the corpus and generated transcripts through both releases (the newer one
checked against the older), shrinks every change on generated input to a minimal
case, and bisects each change over the releases the registry lists between the
two to the first one that shows it. Default: the pinned release against the
newest published one. Exit 0 when nothing changed, 1 when something did, 2 on
usage errors.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from pathlib import Path
from typing import Any

from rechain.cache import cache_dir
from rechain.commands._paths import output_dir
from rechain.conformance import drift
from rechain.conformance.oracles.install import install
from rechain.conformance.oracles.registry import REGISTRY, get, version_tuple
from rechain.conformance.oracles.releases import between, published_versions, resolve
from rechain.conformance.protocol_process import Limits
from rechain.conformance.report import read
from rechain.errors import UsageError

ORACLES = ("agent-sdk-ts", "agent-sdk-py", "claude-code")


def register(subparsers: Any) -> None:
    """Add ``drift``."""
    parser = subparsers.add_parser(
        "drift", help="behaviour changes between two releases of a real reader, bisected",
        description=(__doc__ or "").split("\n\n")[1].replace("\n", " "),
    )
    add = parser.add_argument
    add("oracle", choices=ORACLES, help="the real reader whose releases are compared")
    add("--from", dest="older", metavar="VERSION",
        help="the older release (default: the one rechain pins)")
    add("--to", dest="newer", metavar="VERSION", default="latest",
        help="the newer release, or `latest` (default: the newest the registry lists)")
    add("--examples", type=int, default=200, metavar="N",
        help="generated transcripts, half valid, half corrupted (default 200)")
    add("--seed", type=int, default=None, help="Hypothesis seed (default: random, printed)")
    add("--case", action="append", default=[], metavar="GLOB",
        help="only corpus cases matching (repeatable)")
    add("--no-corpus", action="store_true", help="generated transcripts only")
    add("--jobs", type=int, default=1, metavar="N", help="parallel workers (default 1)")
    add("--timeout", type=float, default=60.0, metavar="S", help="per-case limit (default 60)")
    add("--no-bisect", action="store_true", help="report the changes without bisecting them")
    add("--out", type=Path, default=None, metavar="DIR",
        help="where the run's report, cases and tables go (default: a new folder under the "
             "rechain cache, printed)")
    parser.set_defaults(handler=run)


def _concrete(oracle: str, version: str) -> str:
    if version == "latest":
        return resolve(f"{oracle}@latest").version
    return get(f"{oracle}@{version}").version


def _install(name: str) -> None:
    result = install(get(name))
    if not result.already:
        print(f"installed {result.spec.slug} ({result.seconds:.1f} s)", file=sys.stderr,
              flush=True)


def run(args: argparse.Namespace) -> int:
    """Compare, bisect, print the table; exit 1 when anything changed."""
    if args.examples < 0 or args.jobs < 1 or args.timeout <= 0:
        raise UsageError("--examples must not be negative, --jobs and --timeout positive")
    older = _concrete(args.oracle, args.older or REGISTRY[args.oracle].version)
    newer = _concrete(args.oracle, args.newer)
    if version_tuple(older) >= version_tuple(newer):
        print(f"{args.oracle}: {older} is not older than {newer}; nothing to compare "
              f"(name an older release with --from)", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.randrange(2**31)
    stamp = dt.datetime.now(dt.UTC).strftime("%Y%m%dT%H%M%S")
    out = output_dir("--out", args.out or cache_dir() / "drift" /
                     f"{args.oracle}-{older}-{newer}-{stamp}").resolve()
    say = _say
    for version in (older, newer):
        _install(f"{args.oracle}@{version}")
    report = out / "check.jsonl"
    argv = drift.check_argv(args.oracle, older, newer, examples=args.examples, seed=seed,
                            jobs=args.jobs, report=report, cases=out / "cases")
    argv += [f"--case={glob}" for glob in args.case] + (["--no-corpus"] if args.no_corpus else [])
    code = drift.run_check(argv, say)
    if code == 2 or not report.exists():
        raise UsageError(f"the differential check failed to run (exit {code}); see above")
    lines = read(report)
    compared = sum(1 for line in lines if line.get("kind") == "case")
    if compared == 0:
        print("drift: nothing was compared", file=sys.stderr)
        return 1
    changes = _changes(args, lines, older, newer)
    corpus = sum(1 for line in lines if line.get("kind") == "case"
                 and line.get("group") not in ("generated", "corrupted"))
    summary = (f"{compared} comparisons ({corpus} corpus option sets, {args.examples} generated, "
               f"seed {seed}): " + (f"{len(changes)} behaviour change(s)." if changes
                                    else "no behaviour change."))
    text = drift.table(changes, args.oracle, older, newer, summary)
    (out / "changes.md").write_text(text, encoding="utf-8")
    with (out / "changes.jsonl").open("w", encoding="utf-8") as handle:
        for change in changes:
            handle.write(json.dumps(change.to_json()) + "\n")
    sys.stdout.write(text)
    print(f"\nreport: {report}\ntable: {out / 'changes.md'}\nJSONL: {out / 'changes.jsonl'}")
    return 1 if changes else 0


def _changes(args: argparse.Namespace, lines: list[dict[str, Any]], older: str,
             newer: str) -> list[drift.Change]:
    profile = drift.profile_for(args.oracle, older, newer)
    view = drift.view_for(profile)
    candidates: list[str] = []
    if not args.no_bisect:
        candidates = between(published_versions(args.oracle), older, newer) or [newer]
    releases = drift.Releases(args.oracle, Limits(timeout=args.timeout), _install)
    changes: list[drift.Change] = []
    try:
        for line, source in drift.changed_inputs(lines):
            case_id = str(line.get("case_id") or line.get("id"))
            before, after = drift.sides(line)
            item = drift.item_for(source, profile, view, case_id)
            entry = "-" if item is None or profile == "sdk" else str(
                item.case.options.get("entry", "resume-id"))
            first, probed = (newer, []) if len(candidates) <= 1 or item is None else (
                drift.bisect_change(item, older, candidates, releases))
            changes.append(drift.Change(case_id, entry, before, after,
                                        first if candidates else None, source, tuple(probed)))
    finally:
        releases.close()
    return changes


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)
