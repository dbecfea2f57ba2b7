"""``rechain bench``: benchmarks that print what they measured in one run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from rechain.errors import UsageError


def register(subparsers: Any) -> None:
    parser = subparsers.add_parser("bench", help="run a benchmark and print its ratios")
    kinds = parser.add_subparsers(dest="bench", metavar="KIND", required=True)
    load = kinds.add_parser("load", help="reference load time vs read+orjson floor (and the SDKs)")
    load.add_argument("--size-mb", type=float, default=100.0, metavar="MB",
                      help="size of the generated transcript in MB (default 100)")
    load.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    load.add_argument("--seed", type=int, default=0,
                      help="seed of the generated transcript (default 0)")
    load.add_argument("--keep", type=Path, help="write the generated transcript here")
    load.set_defaults(handler=_load)
    listing = kinds.add_parser(
        "listing", help="session-list time at several file sizes (sparse files; must be flat)"
    )
    listing.add_argument("--sessions", type=int, default=100, metavar="N",
                         help="session files in the listed project (default 100)")
    listing.add_argument(
        "--sizes-mb", default="1,100", help="comma-separated file sizes in MB (default 1,100)"
    )
    listing.add_argument("--runs", type=int, default=3, help="best of N runs (default 3)")
    listing.set_defaults(handler=_listing)


def _load(args: argparse.Namespace) -> int:
    from rechain.conformance.bench import load

    if args.size_mb <= 0 or args.runs < 1:
        raise UsageError("--size-mb must be > 0 and --runs >= 1")
    print(load.main_json(load.run(args.size_mb, args.runs, args.seed, args.keep)))
    return 0


def _listing(args: argparse.Namespace) -> int:
    import json

    from rechain.conformance.bench import listing

    try:
        sizes = [float(x) for x in args.sizes_mb.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--sizes-mb {args.sizes_mb!r}: give numbers like 1,100") from None
    if not sizes or min(sizes) <= 0 or args.sessions < 1 or args.runs < 1:
        raise UsageError("--sizes-mb must be > 0, --sessions and --runs >= 1")
    print(json.dumps(listing.run(args.sessions, sizes, args.runs), indent=2))
    return 0
