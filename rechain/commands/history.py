"""``rechain history FILE``: how each verified Claude Code release resumes one transcript.

One row per range of releases that resume it alike: the entry the new prompt is
chained to, how many messages the chain has, and where it first differs from the
range before. Computed by the release profiles, so it runs offline in a moment.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rechain.conformance import history
from rechain.errors import UsageError
from rechain.reference.profiles.family import ENTRY_POINTS, verified_releases

HISTORY_ENTRIES = ENTRY_POINTS


def register(subparsers: Any) -> None:
    """Add ``history``."""
    parser = subparsers.add_parser(
        "history", help="how each verified Claude Code release resumes a transcript",
        description=(__doc__ or "").split("\n\n")[1].replace("\n", " "),
    )
    parser.add_argument("file", type=Path, help="a transcript (.jsonl)")
    parser.add_argument("--entry", choices=HISTORY_ENTRIES, default="resume-id",
                        help="how the session is opened: -p --resume <id> (default), "
                             "--continue, or --resume <file>.jsonl")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="a table to read (default) or JSON lines, one per range")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the table; exit 0 (a transcript no release resumes is an answer too)."""
    try:
        data = args.file.read_bytes()
    except OSError as error:
        raise UsageError(f"{args.file}: {error.strerror or error}") from None
    found = history.history(data, verified_releases(), args.entry)
    if args.format == "json":
        for line in history.as_json(found):
            sys.stdout.write(json.dumps(line) + "\n")
    else:
        sys.stdout.write(history.table(found, data, f"claude -p {_opening(args.entry)}"))
    return 0


def _opening(entry: str) -> str:
    return {"continue": "--continue", "resume-file": "--resume <file>.jsonl"}.get(
        entry, "--resume <id>")
