"""``rechain matrix``: run every shipped adapter of a real reader and publish the matrix.

Each adapter in ``implementations/`` is installed at its pinned version in its own
environment, run as a tier-1 reader declaring its contract, on generated transcripts
(and the corpus with ``--corpus``); every kind of failure is shrunk to a minimal case.
Writes ``docs/matrix.md``, ``docs/matrix.html`` and a shields badge per reader.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import shlex
import sys
from pathlib import Path
from typing import Any

from rechain import portable
from rechain.commands._paths import output_dir
from rechain.jsonio import dumps, loads


def register(subparsers: Any) -> None:
    """Add ``matrix``."""
    parser = subparsers.add_parser(
        "matrix", help="run every shipped adapter of a real reader and write the matrix",
        description=__doc__.split("\n\n")[1].replace("\n", " ") if __doc__ else None)
    add = parser.add_argument
    add("--reader", action="append", metavar="NAME", help="only this adapter (repeatable)")
    add("--examples", type=int, default=100, metavar="N", help="generated per reader (100)")
    add("--seed", type=int, default=20261201, help="Hypothesis seed (the same for every reader)")
    add("--corpus", action="store_true", help="also run the packaged corpus")
    add("--out", type=Path, default=Path("docs"), metavar="DIR",
        help="where matrix.md, matrix.html and badges/ go (default ./docs)")
    add("--cases", type=Path, default=Path("rechain-cases/matrix"), metavar="DIR",
        help="where minimal cases are written (default ./rechain-cases/matrix)")
    add("--jobs", type=int, default=1, metavar="N", help="parallel workers per reader")
    add("--max-shrink", type=int, default=6, metavar="K",
        help="kinds of failure shrunk per reader, the most harmful first (default 6)")
    add("--no-run", action="store_true",
        help="only write the matrix: from the reports in --cases, else from the results "
             "kept in OUT/matrix-data")
    add("--install", action="store_true",
        help="only install the pinned readers (every one, or each --reader) in their own "
             "environments, and write nothing")
    parser.set_defaults(handler=run)


def _install(shipped: list[Any]) -> int:
    """Install each pinned reader (an installed one is left as it is); 1 if any failed."""
    from rechain.conformance.matrix import adapters
    from rechain.errors import UsageError

    failed = 0
    for adapter in shipped:
        try:
            adapters.install(adapter, lambda text: print(text, file=sys.stderr))
        except UsageError as error:
            print(f"matrix: {error}", file=sys.stderr)
            failed += 1
            continue
        print(f"{adapter.slug}: installed in {adapter.home}")
    return 1 if failed else 0


def run(args: argparse.Namespace) -> int:
    """Run (or, with ``--no-run``, re-read) each adapter's check, then write the matrix.

    Each reader's results are kept as data in ``<out>/matrix-data/<name>.jsonl`` (committed
    with the docs): ``--no-run`` renders from a report in ``--cases`` when there is one,
    else from that data, so a fresh checkout re-renders the published matrix. With
    ``--reader``, only those readers run; the others keep their rows from that data, so the
    page still shows every reader."""
    from rechain.conformance.matrix import adapters, render

    if args.install:
        return _install(adapters.shipped(names=args.reader))
    rows, headers = [], []
    args.out = output_dir("--out", args.out, make=False)  # made once there is a row to keep
    chosen = {adapter.name for adapter in adapters.shipped(names=args.reader)}
    root = repository(args.out)
    for adapter in adapters.shipped():
        report = args.cases / f"{adapter.name}.report.jsonl"
        stored = args.out / "matrix-data" / f"{adapter.name}.jsonl"
        if adapter.name not in chosen:  # another reader's row stays as it was kept
            if stored.is_file():
                kept = [loads(line) for line in stored.read_bytes().splitlines()]
                rows.append(render.row_of_data(kept))
                headers.append(kept[0])
            continue
        if not args.no_run:
            _check(args, adapter, report)
        if report.is_file():
            kept = _kept(adapter, report, args.cases, root)
            # a reader's answer may hold lone surrogates (kept escaped): never a crash
            stored.parent.mkdir(parents=True, exist_ok=True)
            stored.write_bytes(b"".join(dumps(line) + b"\n" for line in kept))
        elif stored.is_file():
            kept = [loads(line) for line in stored.read_bytes().splitlines()]
        else:
            again = portable.rechain(["matrix", "--reader", adapter.name, "--out",
                                      str(args.out), "--cases", str(args.cases.absolute())])
            print(f"matrix: no results for {adapter.slug} in {args.cases} or {stored.parent};"
                  f" run it first: {again}", file=sys.stderr)
            continue
        row = render.row_of_data(kept)
        rows.append(row)
        headers.append(kept[0])
        (args.out / "badges").mkdir(parents=True, exist_ok=True)
        (args.out / "badges" / f"{adapter.name}.json").write_text(
            json.dumps(render.badge(row)) + "\n", encoding="utf-8")
    if not rows:
        print("matrix: nothing to render", file=sys.stderr)
        return 1
    command = render.command(headers)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "matrix.md").write_text(render.markdown(rows, command), encoding="utf-8")
    (args.out / "matrix.html").write_text(render.page(rows, command), encoding="utf-8")
    # what the terminal shows is run now, from any directory: the words that start this
    # rechain and the cases folder in full; the committed page keeps the portable forms
    program = " ".join(shlex.quote(word) for word in portable.program())
    local = [render.here(row, program, root) for row in rows]
    sys.stdout.write(render.markdown(local, command, program))
    return 0


def repository(out: Path) -> Path:
    """What the committed matrix's paths are relative to: the repository ``out`` lies in
    (the nearest folder up holding ``.git``), from whose root a reader of the docs runs
    its replays; outside any repository, the directory the run started in."""
    from rechain.conformance.report_locations import checkout

    root = checkout(out)
    return root if (root / ".git").exists() else Path.cwd()


def _kept(adapter: Any, report: Path, cases: Path, root: Path) -> list[dict[str, Any]]:
    """A reader's report as the matrix keeps it (``render.data``), its cases' replays
    made portable: the cases folder named from ``root`` (as given when it lies outside),
    whichever directory the run started in and however ``--cases`` was written."""
    from rechain.conformance.contracts.model import from_json
    from rechain.conformance.matrix import render
    from rechain.conformance.report_locations import inside

    lines = [loads(line) for line in report.read_bytes().splitlines()]
    contract = from_json({"name": adapter.name, "version": adapter.version,
                          **adapter.contract}).summary
    row = render.row_of(adapter.slug, contract, lines, adapter.name,
                        inside(cases, root) or str(cases))
    _portable_cases(row, cases)
    header = next((line for line in lines if line.get("kind") == "header"), {})
    return render.data(row, header, lines)


def _portable_cases(row: Any, cases: Path) -> None:
    """Each minimal case's replay command as the matrix shows it (``adapter:NAME``, the
    cases folder named from the repository), so a case folder committed with the docs
    replays anywhere."""
    from rechain.corpus.cases_io import dumps_case

    for finding in row.findings:
        path = cases / str(finding["case_id"]) / "case.json"
        if not path.is_file():
            continue
        document = json.loads(path.read_text(encoding="utf-8"))
        differential = document.get("provenance", {}).get("differential")
        if isinstance(differential, dict) and differential.get("replay") != finding["replay"]:
            differential["replay"] = finding["replay"]
            path.write_bytes(dumps_case(document))


def _check(args: argparse.Namespace, adapter: Any, report: Path) -> None:
    """``rechain check`` of one adapter on generated transcripts, its report in ``report``."""
    from rechain.cli import build_parser
    from rechain.commands import check
    from rechain.conformance.matrix import adapters

    adapters.install(adapter, lambda text: print(text, file=sys.stderr))
    report.parent.mkdir(parents=True, exist_ok=True)
    argv = ["check", "--impl", f"adapter:{adapter.name}", "--examples", str(args.examples),
            "--seed", str(args.seed), "--report", str(report), "--save-cases",
            str(args.cases), "--jobs", str(args.jobs), "--no-progress", "--max-shrink",
            str(args.max_shrink), "--timeout", "120"]
    skips = adapter.folder / "skips.json"
    argv += ["--skips", str(skips)] if skips.is_file() else ["--no-skips"]
    if not args.corpus:
        argv.append("--no-corpus")
    print(f"matrix: {adapter.slug}…", file=sys.stderr, flush=True)
    with contextlib.redirect_stdout(io.StringIO()):
        check.run(build_parser().parse_args(argv))
