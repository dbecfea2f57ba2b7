"""``rechain corpus new|lint|record|anonymise``: build, check, record and extend the corpus.

``new`` writes the hand-written scenarios as case directories, ``lint`` checks
every case, ``record`` fills expectations from a real program (never from the
reference), ``anonymise`` turns a real transcript into a committed skeleton.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from rechain.commands._paths import output_dir
from rechain.errors import UsageError


def register(subparsers: Any) -> None:
    """Add ``corpus`` and its four actions."""
    parser = subparsers.add_parser(
        "corpus",
        help="build, lint, record and extend the case corpus",
        description="Work on the language-agnostic corpus (corpus/cases/<id>/).",
    )
    parser.set_defaults(handler=run, corpus_parser=parser)
    actions = parser.add_subparsers(dest="corpus_action", metavar="ACTION")

    new = actions.add_parser("new", help="write the hand-written scenarios as cases")
    new.add_argument(
        "--case", action="append", metavar="ID", help="only this scenario (repeatable)"
    )
    new.add_argument(
        "--check", action="store_true", help="only report cases that differ; exit 1 if any"
    )
    _root(new)

    lint = actions.add_parser("lint", help="check every case; exit 1 with one line per problem")
    _root(lint)

    record = actions.add_parser("record", help="record expectations with a real reader (--oracle)")
    record.add_argument("--case", action="append", metavar="ID", help="only this case (repeatable)")
    record.add_argument("--unrecorded", action="store_true", help="only cases tagged unrecorded")
    record.add_argument("--oracle", default="agent-sdk-ts", metavar="ORACLE",
                        help="agent-sdk-ts (default); claude-code records the CLI's resume "
                             "(views api and chain); claude-code@2.1.88, or a later release "
                             "the 2.1.88 line answers (claude-code@2.1.91, ...), records that "
                             "release's (views resumed-chain and api, per entry point); a "
                             "native release the family answers (claude-code@2.1.304, ...) "
                             "records its resume like claude-code's (views api and chain)")
    record.add_argument("--jobs", type=int, default=2, metavar="N",
                        help="CLI runs at once with --oracle claude-code* (default 2)")
    record.add_argument("--resume-interrupted-turn", action="store_true",
                        help="with --oracle claude-code: also record with "
                             "CLAUDE_CODE_RESUME_INTERRUPTED_TURN=1 "
                             "(option resume_interrupted_turn)")
    _root(record)

    anon = actions.add_parser(
        "anonymise", help="add a real transcript as a text-free skeleton case"
    )
    anon.add_argument("input", type=Path, metavar="IN.jsonl", help="the real transcript")
    anon.add_argument(
        "out_dir", type=Path, metavar="OUT_DIR", help="the cases root (e.g. corpus/cases)"
    )
    anon.add_argument("--id", required=True, dest="case_id", help="the new case id (kebab-case)")
    anon.add_argument(
        "--source", default="real", choices=("real", "hand-written", "generated", "fuzz"),
        help="where the transcript came from (default: real)",
    )
    anon.add_argument("--description", help="one line saying what the transcript is")
    anon.add_argument("--tag", action="append", default=[], help="a feature tag (repeatable)")
    anon.add_argument("--session-id", help="the session id (default: from the file)")
    for name in ("repo", "path", "commit", "blob", "licence", "claude-code-version", "notes"):
        anon.add_argument(f"--{name}", help=f"provenance: {name.replace('-', ' ')}")
    anon.add_argument("--force", action="store_true", help="replace an existing case directory")


def _root(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--root",
        type=Path,
        default=None,
        help="cases directory (default: the packaged corpus/cases)",
    )


def run(args: argparse.Namespace) -> int:
    """Dispatch to the chosen action; no action prints the usage."""
    handlers = {"new": run_new, "lint": run_lint, "record": run_record, "anonymise": run_anonymise}
    handler = handlers.get(args.corpus_action)
    if handler is None:
        args.corpus_parser.print_help(sys.stderr)
        return 2
    return handler(args)


def run_new(args: argparse.Namespace) -> int:
    from rechain.corpus.actions import new_cases, writable_root

    root = writable_root(args.root)
    lines, drift = new_cases(root, args.case, check=args.check)
    for line in lines:
        print(line)
    if args.check:
        return 1 if drift else 0
    print(
        f"{len(lines)} case(s) written under {root}" if lines else "all scenario cases up to date"
    )
    return 0


def run_lint(args: argparse.Namespace) -> int:
    from rechain.corpus.cases_io import case_dirs
    from rechain.corpus.lint import lint_cases

    if args.root is not None and not args.root.is_dir():
        raise UsageError(f"{args.root}: not a directory")
    problems = lint_cases(args.root)
    for problem in problems:
        print(problem)
    if problems:
        return 1
    print(f"{len(case_dirs(args.root))} cases, no problems")
    return 0


def run_record(args: argparse.Namespace) -> int:
    """Record with the chosen oracle (``rechain.conformance.record``: one entry per oracle)."""
    from rechain.conformance.record import Request, record
    from rechain.corpus.cases_io import case_dirs

    if args.root is not None and not args.root.is_dir():
        raise UsageError(f"{args.root}: not a directory")
    if not case_dirs(args.root):  # recording nothing is no success
        raise UsageError(f"no cases under {args.root or 'the packaged corpus'}")
    request = Request(args.root, tuple(args.case or ()), jobs=args.jobs,
                      unrecorded=args.unrecorded,
                      switches={"resume_interrupted_turn": args.resume_interrupted_turn})
    return _recorded(lambda: record(args.oracle, request))


def _recorded(record: Callable[[], list[str]]) -> int:
    """Run one recorder: a line per case, then a summary; a failed oracle is exit 1."""
    from rechain.conformance.oracles import OracleError

    try:
        lines = record()
    except OracleError as error:
        print(f"rechain: oracle failed: {error}", file=sys.stderr)
        return 1
    for line in lines:
        print(line)
    failed = [line for line in lines if ": not recorded" in line]
    changed = len(lines) - len(failed)
    print(f"{changed} case(s) changed" if changed else "all expectations up to date")
    return 1 if failed else 0


def run_anonymise(args: argparse.Namespace) -> int:
    from rechain.corpus.actions import anonymise_case, command

    output_dir("OUT_DIR", args.out_dir)
    provenance = {"source": args.source}
    for name in ("repo", "path", "commit", "blob", "licence", "claude_code_version", "notes"):
        value = getattr(args, name)
        if value:
            provenance[name] = value
    description = args.description or f"Anonymised skeleton of {args.input.name}."
    directory = anonymise_case(
        args.input,
        args.out_dir,
        case_id=args.case_id,
        description=description,
        tags=args.tag,
        provenance=provenance,
        session_id=args.session_id,
        force=args.force,
    )
    record = command(["corpus", "record", "--case", args.case_id], args.out_dir)
    print(f"wrote {directory.absolute()} (run `{record}`)")
    return 0
