"""What ``check`` and ``report merge`` print and write from a report's lines."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import Any

from rechain.conformance import report_ci, report_html, report_text, skips
from rechain.conformance.check.plan import GENERATED


def render(args: argparse.Namespace, lines: Sequence[dict[str, Any]]) -> None:
    """The terminal summary on stdout, and the files the options ask for (skip list,
    Markdown, HTML, JUnit, SARIF, badge)."""
    if args.write_skips is not None:
        document = skips.covering(lines, GENERATED)
        args.write_skips.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    sys.stdout.write(report_text.terminal(lines))
    if args.markdown is not None:
        text = report_text.markdown(lines)
        if str(args.markdown) == "-":
            sys.stdout.write(text)
        else:
            args.markdown.write_text(text, encoding="utf-8")
    if args.html is not None:
        args.html.write_text(report_html.render(lines), encoding="utf-8")
    report_ci.write(args, lines)
    sys.stdout.flush()
