"""``rechain lint-transcript FILE...``: transcripts a repository commits must read cleanly.

Each file is rebuilt with a profile's rules (default sdk): at least one line must be
a transcript row (a JSON object with a string "type"; a file with none tests
nothing), the reader must not throw and every line must be a message or
diagnosed. ``--strict`` also refuses
torn lines, non-UTF-8 bytes and broken chains. The pre-commit hook runs this on
staged ``.jsonl`` files. Exit 0 when every file passes, 1 when one does not, 2 on
usage errors (an unreadable file, an unknown profile).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rechain.errors import UsageError


def register(subparsers: Any) -> None:
    """Add ``lint-transcript``."""
    parser = subparsers.add_parser(
        "lint-transcript", help="check that transcripts read cleanly (for pre-commit)",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else None)
    parser.add_argument("files", nargs="+", type=Path, metavar="FILE", help="transcript .jsonl")
    parser.add_argument("--profile", default="sdk", help="reader profile (default: sdk)")
    parser.add_argument("--strict", action="store_true",
                        help="also refuse torn lines, non-UTF-8 bytes and broken chains")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """One line per problem (``FILE:LINE: kind: detail``); a summary line at the end."""
    from rechain.reference import get_profile
    from rechain.reference.lint import lint

    profile = get_profile(args.profile).name  # an unknown name is a usage error
    failed = 0
    for path in args.files:
        try:
            data = path.read_bytes()
        except OSError as error:
            raise UsageError(f"{path}: cannot read: {error.strerror}") from None
        problems = lint(data, profile, strict=args.strict)
        failed += bool(problems)
        for problem in problems:
            where = f"{path}:{problem.line}" if problem.line is not None else str(path)
            print(f"{where}: {problem.kind}: {problem.detail}")
    print(f"{len(args.files) - failed} of {len(args.files)} transcripts pass ({profile})",
          file=sys.stderr)
    return 1 if failed else 0
