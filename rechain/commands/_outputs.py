"""What ``check`` and ``report merge`` print and write from a report's lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rechain.commands._paths import output_file
from rechain.conformance import report_ci, report_html, report_text, skips
from rechain.conformance.check.plan import GENERATED
from rechain.errors import UsageError

#: the options that name a file a run writes, as ``args`` attributes
FILES = ("report", "write_skips", "markdown", "html", "junit", "sarif", "badge")


def check_writable(args: argparse.Namespace) -> None:
    """Every file the options name can be written: said before the run, in one line, so a
    mistyped folder never costs a run's results nor ends it in a traceback."""
    for name in FILES:
        path: Path | None = getattr(args, name, None)
        if path is not None and str(path) != "-":
            output_file(f"--{name.replace('_', '-')}", path)


def _write(option: str, path: Path, text: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as error:
        raise UsageError(f"{option} {path}: cannot write: {error.strerror or error}") from None


def render(args: argparse.Namespace, lines: Sequence[dict[str, Any]]) -> None:
    """The terminal summary on stdout, and the files the options ask for (skip list,
    Markdown, HTML, JUnit, SARIF, badge)."""
    if args.write_skips is not None:
        document = skips.covering(lines, GENERATED)
        _write("--write-skips", args.write_skips, json.dumps(document, indent=2) + "\n")
        listed = sum(len(entry["cases"]) for entry in document["skips"])
        print(f"rechain: wrote {listed} known failures to {args.write_skips.absolute()} "
              f"({len(document['skips'])} entries): replace each TODO reason and link, commit "
              "it and name it in --skips (a listed case that passes fails the run)",
              file=sys.stderr)
    sys.stdout.write(report_text.terminal(lines))
    if args.markdown is not None:
        text = report_text.markdown(lines)
        if str(args.markdown) == "-":
            sys.stdout.write(text)
        else:
            _write("--markdown", args.markdown, text)
    if args.html is not None:
        _write("--html", args.html, report_html.render(lines))
    report_ci.write(args, lines)
    sys.stdout.flush()
