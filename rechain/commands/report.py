"""``rechain report merge``: join the JSONL reports of ``rechain check --shard I/N`` runs.

The merged report has the unsplit run's case lines, counts and exit code, and
renders the same summary, Markdown and HTML (and whatever else ``check``
writes from a report). Exit 0 when every case agreed or was skipped, 1 on any
disagreement, crash or timeout (or a shard that did not finish), 2 on usage
errors (a missing, repeated or foreign shard).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from rechain.commands._outputs import check_writable, render
from rechain.conformance import report
from rechain.conformance.report_merge import OUTPUT_FLAGS, merge, with_outputs

#: the output options of ``rechain check`` this command offers too (same renderers)
OUTPUTS = {
    "--markdown": "write a Markdown summary (- for stdout)",
    "--html": "write the static HTML matrix",
    "--junit": "write JUnit XML",
    "--sarif": "write SARIF 2.1.0",
    "--badge": "write a shields.io endpoint JSON badge",
    "--write-skips": "write a skip list covering every corpus case that did not pass",
}


def register(subparsers: Any) -> None:
    """Add ``report`` with its ``merge`` subcommand."""
    parser = subparsers.add_parser(
        "report", help="work with run reports (merge the shards of a split run)",
        description="Work with rechain check's JSONL run reports.")
    commands = parser.add_subparsers(dest="report_command", metavar="COMMAND")
    merging = commands.add_parser(
        "merge", help="join the reports of rechain check --shard I/N runs",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else None)
    merging.add_argument("reports", nargs="+", type=Path, metavar="REPORT",
                         help="the shards' --report files")
    merging.add_argument("--report", type=Path, metavar="FILE",
                         help="write the merged JSONL report here")
    for flag, text in OUTPUTS.items():
        merging.add_argument(flag, type=Path, metavar="FILE", help=text)
    merging.set_defaults(handler=run)
    parser.set_defaults(handler=lambda _args: _usage(parser))


def _usage(parser: argparse.ArgumentParser) -> int:
    """No subcommand: its list on stderr, as the other command groups print it (exit 2)."""
    parser.print_help(sys.stderr)
    return 2


def run(args: argparse.Namespace) -> int:
    """Merge, write, render; the exit code is the merged footer's."""
    check_writable(args)
    lines = merge([report.read(path) for path in args.reports], [str(p) for p in args.reports])
    written = {flag: getattr(args, flag[2:].replace("-", "_")) for flag in OUTPUT_FLAGS}
    lines[0] = with_outputs(lines[0], {flag: str(path) if str(path) == "-" else
                                       str(path.absolute())
                                       for flag, path in written.items() if path is not None})
    if args.report is not None:
        with args.report.open("wb") as stream:
            writer = report.Writer(stream)
            for line in lines:
                writer.write(line)
    render(args, lines)
    return int(lines[-1]["exit"])
